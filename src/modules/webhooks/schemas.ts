import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENT_TYPES } from './events.js';
import { MAX_URL_LENGTH } from './url-guard.js';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const EventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type)),
  {
    description: WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\`: ${WEBHOOK_EVENT_DESCRIPTIONS[type]}`).join(
      '\n',
    ),
  },
);

export const CreateSubscriptionBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description:
        'http(s) URL receiving the POSTs; must not resolve to a loopback, private or link-local address',
    }),
    events: Type.Optional(
      Type.Array(EventType, {
        maxItems: WEBHOOK_EVENT_TYPES.length,
        description: 'Event types to receive; absent or empty = every type (including types added later)',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const Subscription = Type.Object({
  id: IdString,
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Nullable(Type.Array(Type.String())),
  createdAt: DateTime,
});

export const CreatedSubscription = Type.Composite([
  Subscription,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret ("whsec_" + base64 of 32 bytes). Shown only now: store it.',
    }),
  }),
]);

export const Attempt = Type.Object({
  attemptedAt: DateTime,
  statusCode: Nullable(Type.Integer({ description: 'The receiver’s HTTP status, null when none came' })),
  error: Nullable(
    Type.String({ description: 'Why the attempt failed (timeout, refused address, HTTP 500...)' }),
  ),
  durationMs: Type.Integer(),
  nextAttemptAt: Nullable(DateTime),
});

export const Delivery = Type.Object({
  id: IdString,
  eventId: Type.String({ description: 'The webhook-id sent (the same on every attempt)' }),
  type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attemptCount: Type.Integer(),
  nextAttemptAt: Nullable(DateTime),
  createdAt: DateTime,
  completedAt: Nullable(DateTime),
  attempts: Type.Array(Attempt),
});

export const AdminDelivery = Type.Composite([
  Delivery,
  Type.Object({
    subscriptionId: IdString,
    url: Type.String({ description: 'Where it is delivered' }),
    owner: Type.Object({ id: IdString, username: Type.String() }),
  }),
]);

export const DeliveryStatusQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description: 'Only deliveries in this state; absent = all',
    }),
  ),
});
