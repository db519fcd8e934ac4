import { type Static, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';
import {
  ActionSchema,
  ClientOrderId,
  DateTime,
  LimitOrderBody,
  Nullable,
  OrderView,
  PlacedOrderView,
  Price,
  SideSchema,
} from './schemas.js';

/** What any part of a request of many may meet: a passing fault (503, with its Retry-After) or a fault of ours. */
const PART_UNAVAILABLE = [
  'OPTION_BUSY',
  'ORDER_QUEUE_FULL',
  'DATABASE_UNAVAILABLE',
  'DATABASE_READ_ONLY',
  'DATABASE_DISK_FULL',
  'DATABASE_OVERLOADED',
  'SHUTTING_DOWN',
  'INTERNAL_ERROR',
] as const;

/**
 * The codes one order of a batch can be refused with: a single limit order's, less those of the request as a whole
 * (its body, credentials and idempotency key, answered for the whole batch).
 */
export const BATCH_ITEM_ERROR_CODES = [
  'VALIDATION_FAILED',
  'BAD_REQUEST',
  'INSUFFICIENT_FUNDS',
  'NOT_FOUND',
  'INSUFFICIENT_SHARES',
  'MARKET_CLOSED',
  'POST_ONLY_WOULD_TAKE',
  'FOK_NOT_FILLED',
  'POST_ONLY_MODE',
  'KEY_ORDER_TOO_LARGE',
  'KEY_OPEN_ORDERS_LIMIT',
  'KEY_POSITION_LIMIT',
  'KEY_DAILY_LOSS_LIMIT',
  'ORDER_RATE_LIMITED',
  'MAINTENANCE',
  ...PART_UNAVAILABLE,
] as const;

/** The codes one cancel of many can be refused with: not yours (or no such order), no longer open, or a fault. */
export const CANCEL_ITEM_ERROR_CODES = ['NOT_FOUND', 'ORDER_NOT_OPEN', ...PART_UNAVAILABLE] as const;

/**
 * The error shape (ApiError's fields) with `code` one of `codes`: written out rather than narrowed with an `allOf`,
 * which the response serialiser would have to merge for every part.
 */
function partError(codes: readonly string[], description = 'Why it failed') {
  return Type.Object(
    {
      error: Type.String(),
      code: Type.Unsafe<string>({ type: 'string', enum: [...codes] }),
      details: Type.Optional(Type.Unknown()),
    },
    { description },
  );
}

/**
 * What one order of a batch, or one cancel of many, came to: a `oneOf` of its answer (a 2xx status) and its error
 * (4xx or 5xx, with a code from `codes`), never both, so a generated client's type tells which it holds.
 */
function itemResult<T extends TSchema>(
  answer: T,
  options: { codes: readonly string[]; description: string; fields?: TProperties; title: string },
) {
  const fields = options.fields ?? {};
  const done = Type.Object(
    {
      ...fields,
      status: Type.Integer({
        minimum: 200,
        maximum: 299,
        description: 'The HTTP status it would have had alone',
      }),
      order: answer,
    },
    { title: `${options.title}Done` },
  );
  const failed = Type.Object(
    {
      ...fields,
      status: Type.Integer({
        minimum: 400,
        maximum: 599,
        description: 'The HTTP status it would have had alone',
      }),
      error: partError(options.codes),
    },
    { title: `${options.title}Failed` },
  );
  return Type.Unsafe<Static<typeof done> | Static<typeof failed>>({
    oneOf: [done, failed],
    description: options.description,
  });
}

export const BatchOrdersBody = (maxOrders: number) =>
  Type.Object(
    {
      orders: Type.Array(LimitOrderBody, {
        minItems: 1,
        maxItems: maxOrders,
        description: `1..${maxOrders} limit orders, decided in this order, each as if placed alone`,
      }),
    },
    {
      additionalProperties: false,
      examples: [
        {
          orders: [
            { optionId: '12', side: 'YES', action: 'BUY', quantity: 50, limitPriceCents: 44, postOnly: true },
            { optionId: '12', side: 'NO', action: 'BUY', quantity: 50, limitPriceCents: 52, postOnly: true },
          ],
        },
      ],
    },
  );

export const BatchOrderResult = itemResult(PlacedOrderView, {
  codes: BATCH_ITEM_ERROR_CODES,
  description: 'One order of a batch: `order` when it was placed (status 201), else `error`',
  title: 'BatchOrder',
});
export const BatchOrdersResult = Type.Object({
  data: Type.Array(BatchOrderResult, { description: 'One result per order sent, in the same order' }),
});

export const CancelOrdersBody = Type.Object(
  {
    orderIds: Type.Array(IdString, {
      minItems: 1,
      maxItems: 200,
      description: 'Your orders to cancel (each at most once)',
    }),
  },
  { additionalProperties: false, examples: [{ orderIds: ['101', '102'] }] },
);
export const CancelOrderResult = itemResult(OrderView, {
  codes: CANCEL_ITEM_ERROR_CODES,
  description: 'One cancel of many: `order` when it was cancelled (status 200), else `error`',
  fields: { orderId: IdString },
  title: 'CancelOrder',
});
export const CancelOrdersResult = Type.Object({
  data: Type.Array(CancelOrderResult, { description: 'One result per id sent, in the same order' }),
});

export const CancelAllBody = Type.Object(
  {
    optionId: Type.Optional(IdString),
    eventSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this event’s' })),
    side: Type.Optional(SideSchema),
    action: Type.Optional(ActionSchema),
  },
  {
    additionalProperties: false,
    description:
      'Which of your resting orders to cancel: every filter given narrows it; none cancels them all',
    examples: [{}, { eventSlug: 'ind-vs-aus-odi-1', side: 'YES' }],
  },
);
export const MarketCancelResult = Type.Object(
  {
    optionId: IdString,
    status: Type.Integer({
      description:
        '200 when every order of this market was cancelled, else the status of its refusal alone (503 …)',
    }),
    cancelledCount: Type.Integer({ description: 'Orders of this market cancelled' }),
    refusedCount: Type.Integer({ description: 'Orders of this market left resting: retry them' }),
    error: Type.Optional(
      partError(PART_UNAVAILABLE, 'Why this market’s orders were left (absent when none were)'),
    ),
  },
  { description: 'What the cancel did in one market (option)' },
);
export const CancelAllResult = Type.Object({
  data: Type.Array(OrderView, { description: 'The orders cancelled, in the state they were left in' }),
  cancelledCount: Type.Integer(),
  markets: Type.Array(MarketCancelResult, {
    description:
      'One result per market that had orders the filters took: cancelled, or refused and left resting',
  }),
});

export const AmendBody = Type.Object(
  {
    remainingQuantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000_000,
        description: 'The shares the order is to have left to fill',
      }),
    ),
    limitPriceCents: Type.Optional(Price('Its new limit price (of its own side)')),
    clientOrderId: ClientOrderId,
  },
  {
    additionalProperties: false,
    description:
      'Fewer shares at the same price: the order shrinks where it stands and keeps its time priority. A new ' +
      'price, or more shares: the order is cancelled and a replacement placed at once, in one transaction, behind ' +
      'the orders already at its price (priority lost); the replacement may fill at once if its price crosses, ' +
      'and carries `clientOrderId` if given',
    examples: [{ remainingQuantity: 20 }, { limitPriceCents: 46 }],
  },
);
export const AmendResult = Type.Object({
  order: PlacedOrderView,
  replacedOrder: Nullable(OrderView),
  priorityKept: Type.Boolean({
    description:
      'true when the order shrank in place (or nothing changed); false when a replacement took its place',
  }),
});

export const HeartbeatBody = Type.Object(
  {
    timeoutSeconds: Type.Integer({
      minimum: 5,
      maximum: 3600,
      description: 'How long without a heartbeat before your orders are cancelled (5..3600)',
    }),
  },
  { additionalProperties: false, examples: [{ timeoutSeconds: 15 }] },
);
export const HeartbeatView = Type.Object({
  armed: Type.Boolean(),
  timeoutSeconds: Nullable(Type.Integer()),
  lastBeatAt: Nullable(DateTime),
  expiresAt: Nullable(
    Type.Union([DateTime], {
      description:
        'When your orders are cancelled unless another heartbeat comes first (null while disarmed)',
    }),
  ),
  firedAt: Nullable(Type.Union([DateTime], { description: 'The last time the switch went off' })),
  cancelledOrders: Type.Integer({ description: 'How many orders it cancelled then' }),
});
