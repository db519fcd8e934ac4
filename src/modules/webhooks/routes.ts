import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, Page, PageQuery } from '../../platform/http.js';
import {
  VERIFY_SNIPPET,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EXAMPLES,
} from './events.js';
import {
  AdminDelivery,
  CreatedSubscription,
  CreateSubscriptionBody,
  Delivery,
  DeliveryStatusQuery,
  Subscription,
} from './schemas.js';
import { MAX_ATTEMPTS, MAX_SUBSCRIPTIONS, RETRY_DELAYS_SECONDS, type WebhooksService } from './service.js';

const tags = ['Webhooks'];
const security = [{ bearerAuth: [] }];

const formatDelay = (seconds: number) =>
  seconds < 60 ? `${seconds}s` : seconds < 3600 ? `${seconds / 60}m` : `${seconds / 3600}h`;
const schedule = RETRY_DELAYS_SECONDS.map(formatDelay).join(', ');

const DELIVERY_DOCS = [
  'Each event is POSTed as JSON `{id, type, createdAt, data}` with the Standard Webhooks headers ',
  '`webhook-id` (the event id, the same on every retry: deduplicate on it), `webhook-timestamp` (Unix seconds) and ',
  '`webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the ',
  'base64-decoded part of your secret after `whsec_`.\n\n',
  `Any 2xx answer within the timeout is a delivery; anything else (including a redirect: redirects are never `,
  `followed) is retried after ${schedule} (${MAX_ATTEMPTS} attempts, about a day), then the delivery is marked `,
  '`failed`. Delivery is at least once and in no guaranteed order.\n\n',
  '**Event types**\n\n',
  WEBHOOK_EVENT_TYPES.map((type) => `- \`${type}\`: ${WEBHOOK_EVENT_DESCRIPTIONS[type]}`).join('\n'),
  '\n\n**Example** (`order.filled`)\n\n```json\n',
  JSON.stringify(
    {
      id: 'msg_2hX0aQ1r',
      type: 'order.filled',
      createdAt: '2025-03-09T10:15:02.120Z',
      data: WEBHOOK_EXAMPLES['order.filled'],
    },
    null,
    2,
  ),
  '\n```\n\n**Verifying a delivery (Node)**\n\n```js\n',
  VERIFY_SNIPPET,
  '\n```',
].join('');

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (
  app,
  { webhooks },
) => {
  app.get(
    '/api/me/webhooks',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your webhook subscriptions',
        description: `Oldest first (at most ${MAX_SUBSCRIPTIONS}). The signing secret is never shown again after creation.`,
        response: { 200: Type.Object({ data: Type.Array(Subscription) }), ...errors(401) },
      },
    },
    async (request) => webhooks.list(currentUser(request).userId),
  );

  app.post(
    '/api/me/webhooks',
    {
      onRequest: app.authenticateVerified,
      schema: {
        tags,
        security,
        summary: 'Subscribe a URL to your events (HMAC signed)',
        description:
          `Returns the subscription and its signing secret, **shown once**. At most ${MAX_SUBSCRIPTIONS} per user ` +
          '(409 WEBHOOK_LIMIT_REACHED). The URL must be http(s), without credentials, and must not be or resolve to ' +
          'a loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10), ' +
          'CGNAT (100.64/10), unspecified or metadata address (400 VALIDATION_FAILED); it is checked again at ' +
          'every delivery. Address not proven yet (while the service proves addresses): 403 ' +
          'EMAIL_NOT_VERIFIED.\n\n' +
          DELIVERY_DOCS,
        body: CreateSubscriptionBody,
        response: { 201: CreatedSubscription, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await webhooks.create(currentUser(request).userId, request.body)),
  );

  app.delete(
    '/api/me/webhooks/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Delete a webhook subscription',
        description: 'Stops all its pending deliveries. Another user’s subscription: 404.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/me/webhooks/:id/deliveries',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Deliveries of a subscription, with every attempt',
        description:
          'Newest first. Each delivery lists its attempts (time, status code or error, duration, and when the next ' +
          'attempt was scheduled). Status `pending` (still being tried), `succeeded` or `failed` (gave up after ' +
          `${MAX_ATTEMPTS} attempts). Finished deliveries are kept for 30 days. Another user’s subscription: 404.`,
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Page(Delivery), ...errors(400, 401, 404) },
      },
    },
    async (request) =>
      webhooks.deliveries(
        currentUser(request).userId,
        Number(request.params.id),
        request.query.limit ?? 50,
        request.query.cursor,
      ),
  );

  app.get(
    '/api/admin/webhook-deliveries',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Every user’s webhook deliveries, with every attempt',
        description:
          'Newest first, optionally one `status` (`failed` lists the deliveries that gave up). Each delivery names ' +
          'its subscription, URL and owner, and lists its attempts as `GET /api/me/webhooks/{id}/deliveries` does.',
        querystring: Type.Object({ ...PageQuery, ...DeliveryStatusQuery.properties }),
        response: { 200: Page(AdminDelivery), ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      webhooks.allDeliveries({
        status: request.query.status,
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );
};
