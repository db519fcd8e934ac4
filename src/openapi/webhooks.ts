import { type TSchema, Type } from '@sinclair/typebox';
import { END_REASONS } from '../exchange/orders.js';
import {
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EXAMPLES,
  type WebhookEventType,
} from '../modules/webhooks/events.js';

/** The `webhooks` section: what each event type POSTs to a subscription, signed per Standard Webhooks. */

const Id = Type.String({ description: 'Numeric id as a string' });
const Side = Type.Union([Type.Literal('YES'), Type.Literal('NO')]);
const Action = Type.Union([Type.Literal('BUY'), Type.Literal('SELL')]);
const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const CancelReason = Type.Union(END_REASONS.map((reason) => Type.Literal(reason)));

const WebhookOrder = Type.Object(
  {
    id: Id,
    optionId: Id,
    eventSlug: Type.String(),
    optionLabel: Type.String(),
    kind: Type.Union([Type.Literal('market'), Type.Literal('limit')]),
    side: Side,
    action: Action,
    quantity: Type.Integer(),
    priceCents: Type.Integer(),
    filledQuantity: Type.Integer(),
    remainingQuantity: Type.Integer(),
    status: Type.String(),
    cancelReason: Nullable(CancelReason),
    clientOrderId: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { description: 'The order as it stands after the event' },
);

const Ended = Type.Object({ order: WebhookOrder, reason: CancelReason });
/** Feed items that are also typed events carry the feed's words and id beside their data. */
const FeedWords = {
  title: Type.String(),
  body: Type.String(),
  notificationId: Id,
};

const DATA: Record<WebhookEventType, TSchema> = {
  'order.filled': Type.Object({
    order: WebhookOrder,
    liquidity: Type.Union([Type.Literal('taker'), Type.Literal('maker')]),
    filledQuantity: Type.Integer({ description: 'Shares filled in this match' }),
    notionalCents: Type.Integer(),
    averagePriceCents: Type.Integer(),
    feeCents: Type.Integer(),
  }),
  'order.cancelled': Ended,
  'order.expired': Ended,
  'trade.executed': Type.Unsafe({ $ref: '#/components/schemas/Trade' }),
  'conversion.completed': Type.Unsafe({ $ref: '#/components/schemas/Conversion' }),
  'position.protection_triggered': Type.Object({
    positionId: Id,
    optionId: Id,
    eventSlug: Type.String(),
    optionLabel: Type.String(),
    side: Side,
    trigger: Type.Union([Type.Literal('stop_loss'), Type.Literal('take_profit')]),
    thresholdProbBps: Type.Integer(),
    triggerPriceCents: Type.Integer(),
    soldQuantity: Type.Integer(),
    averagePriceCents: Nullable(Type.Integer()),
    orderId: Nullable(Id),
    outcome: Type.Union([Type.Literal('sold'), Type.Literal('not_sold')]),
  }),
  'market.resolved': Type.Object({
    eventId: Id,
    eventSlug: Type.String(),
    optionId: Id,
    outcome: Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('VOID')]),
    ...FeedWords,
  }),
  'market.settled': Type.Object({
    eventId: Id,
    eventSlug: Type.String(),
    payoutCents: Type.Integer(),
    pnlCents: Type.Integer(),
    ...FeedWords,
  }),
  'notification.created': Type.Object({
    id: Id,
    type: Type.String({ description: 'The feed item type (badge.earned, social.follow, ...)' }),
    title: Type.String(),
    body: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Type.String({ format: 'date-time' }),
  }),
};

const SIGNATURE_HEADERS = [
  ['webhook-id', 'The message id (the same on every attempt of one event): deduplicate on it'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed; refuse old ones (replays)'],
  [
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the subscription secret',
  ],
] as const;

/** The body every delivery of this type carries. */
export function webhookPayload(type: WebhookEventType): TSchema {
  return Type.Object(
    {
      id: Type.String({ description: 'The message id, equal to the webhook-id header' }),
      type: Type.Literal(type),
      createdAt: Type.String({ format: 'date-time' }),
      data: DATA[type],
    },
    { additionalProperties: false },
  );
}

function toJson(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook${type.replace(/(^|[._])([a-z])/g, (_m, _s, c: string) => c.toUpperCase())}`,
          summary: type,
          description: `${WEBHOOK_EVENT_DESCRIPTIONS[type]} Delivered at least once (deduplicate on webhook-id); verify the signature with any Standard Webhooks library.`,
          tags: ['Webhooks'],
          security: [],
          parameters: SIGNATURE_HEADERS.map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: toJson(webhookPayload(type)),
                example: {
                  id: 'msg_2fa4c1',
                  type,
                  createdAt: '2025-03-09T10:15:02.120Z',
                  data: WEBHOOK_EXAMPLES[type],
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'Any 2xx acknowledges the delivery; anything else is retried with back-off',
            },
          },
        },
      },
    ]),
  );
}
