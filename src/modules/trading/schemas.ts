import { type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const SideSchema = Type.Union([Type.Literal('YES'), Type.Literal('NO')], { description: 'YES or NO' });
export const ActionSchema = Type.Union([Type.Literal('BUY'), Type.Literal('SELL')], {
  description: 'BUY or SELL (SELL only shares you hold: to bet against YES, buy NO)',
});
const Price = (description: string) => Type.Integer({ minimum: 1, maximum: 99, description });
const Quantity = Type.Integer({
  minimum: 1,
  maximum: 1_000_000_000,
  description: 'Whole shares (default limit 1..1,000,000)',
});
const ById = { optionId: IdString };
const ByLabel = {
  eventSlug: Type.String({ minLength: 1, maxLength: 200 }),
  optionLabel: Type.String({ minLength: 1, maxLength: 200, description: 'The option’s label (any case)' }),
};

/**
 * An order body names its option one of two ways, never both: `optionId`, or `eventSlug` with `optionLabel`. A
 * `oneOf` of two closed objects, so that a generated client's type refuses an order naming no option, or both.
 */
function orderBody<P extends TProperties>(fields: P, name: string) {
  const byId = Type.Object(
    { ...ById, ...fields },
    { additionalProperties: false, title: `${name}ByOptionId` },
  );
  const byLabel = Type.Object(
    { ...ByLabel, ...fields },
    { additionalProperties: false, title: `${name}ByLabel` },
  );
  return {
    body: Type.Unsafe<Static<TObject<typeof ById & P>> | Static<TObject<typeof ByLabel & P>>>({
      oneOf: [byId, byLabel],
    }),
    byId,
    byLabel,
  };
}
/** A list's filter to one event, by the event's slug (an unknown slug lists nothing). */
export const EventSlugFilter = Type.Optional(
  Type.String({ minLength: 1, maxLength: 200, description: 'Only this event’s, by its slug' }),
);
const ClientOrderId = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Your id for the order; a retry with the same id is idempotent',
  }),
);

export const TradeOrder = orderBody(
  {
    side: SideSchema,
    action: ActionSchema,
    quantity: Quantity,
    priceCents: Price('Worst acceptable price of your side: the most a BUY pays, the least a SELL accepts'),
    clientOrderId: ClientOrderId,
  },
  'PlaceTrade',
);
export const TradeBody = TradeOrder.body;

export const TimeInForceSchema = Type.Union(
  [Type.Literal('GTC'), Type.Literal('GTD'), Type.Literal('IOC'), Type.Literal('FOK')],
  {
    description:
      'GTC: rests until filled or cancelled (the default); GTD: rests until `expiresAt` (the default when an ' +
      'expiry is given); IOC: fills what it can at once, the rest is cancelled; FOK: fills whole at once or is ' +
      'refused (409 FOK_NOT_FILLED), nothing charged',
  },
);

export const LimitOrder = orderBody(
  {
    side: SideSchema,
    action: ActionSchema,
    quantity: Quantity,
    limitPriceCents: Price('Limit price of your side'),
    timeInForce: Type.Optional(TimeInForceSchema),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'GTD: when what rests of the order expires; in the future, at most 720 hours ahead',
      }),
    ),
    expiresInHours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 720,
        description: 'GTD: expires this many hours after it is placed (1..720); or send `expiresAt`',
      }),
    ),
    postOnly: Type.Optional(
      Type.Boolean({
        description:
          'Only ever rest: refused whole (409 POST_ONLY_WOULD_TAKE, nothing written) if it would trade on ' +
          'arrival. GTC or GTD only',
      }),
    ),
    clientOrderId: ClientOrderId,
  },
  'PlaceLimitOrder',
);
export const LimitOrderBody = LimitOrder.body;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[!-~]+$',
      description: 'Visible ASCII characters, no spaces (a UUID is the usual choice); one key per request',
    }),
  ),
});

export const TradeView = Type.Object({
  id: IdString,
  orderId: IdString,
  optionId: IdString,
  eventSlug: Type.String(),
  optionLabel: Type.String(),
  side: SideSchema,
  action: ActionSchema,
  quantity: Type.Integer(),
  priceCents: Type.Integer({ description: 'Execution price of your side' }),
  feeCents: Type.Integer(),
  liquidity: Type.Union([Type.Literal('maker'), Type.Literal('taker')]),
  orderKind: Type.Union([Type.Literal('market'), Type.Literal('limit')]),
  createdAt: DateTime,
});

export const OrderView = Type.Object({
  id: IdString,
  optionId: IdString,
  eventSlug: Type.String(),
  optionLabel: Type.String(),
  kind: Type.Union([Type.Literal('market'), Type.Literal('limit')]),
  side: SideSchema,
  action: ActionSchema,
  quantity: Type.Integer(),
  priceCents: Type.Integer({ description: 'The limit (worst acceptable) price of your side' }),
  filledQuantity: Type.Integer(),
  remainingQuantity: Type.Integer(),
  status: Type.Union(
    ['open', 'partially_filled', 'filled', 'cancelled', 'expired'].map((s) => Type.Literal(s)),
  ),
  cancelReason: Nullable(Type.String()),
  reservedCents: Type.Integer({ description: 'Cash still held for this order' }),
  clientOrderId: Nullable(Type.String()),
  timeInForce: TimeInForceSchema,
  postOnly: Type.Boolean(),
  expiresAt: Nullable(DateTime),
  replacesOrderId: Nullable(
    Type.Union([IdString], { description: 'The order an amend replaced with this one' }),
  ),
  createdAt: DateTime,
  updatedAt: DateTime,
});

const EventTitle = Type.Object({
  eventTitle: Type.String({ description: 'The title of the order’s market' }),
});
/** A trade as your trade history lists it: with its market's title. */
export const TradeListItem = Type.Composite([TradeView, EventTitle]);
/** An order as your order lists show it: with its market's title. */
export const OrderListItem = Type.Composite([OrderView, EventTitle]);

export const PlacedOrderView = Type.Composite([
  OrderView,
  Type.Object({
    averagePriceCents: Nullable(Type.Integer()),
    feeCents: Type.Integer(),
    trades: Type.Array(TradeView),
    selfTradeCancelledOrderIds: Type.Array(IdString, {
      description: 'Your own resting orders this order met: cancelled instead of filled',
    }),
  }),
]);

export const PositionView = Type.Object({
  id: IdString,
  optionId: IdString,
  eventSlug: Type.String(),
  eventTitle: Type.String(),
  optionLabel: Type.String(),
  side: SideSchema,
  quantity: Type.Integer(),
  reservedQuantity: Type.Integer({ description: 'Shares locked by your open SELL orders' }),
  avgPriceCents: Type.Integer({ description: 'Average cost per share, fees included' }),
  costCents: Type.Integer(),
  markPriceCents: Nullable(
    Type.Integer({ description: 'Last traded price of this side; once resolved, what a share pays' }),
  ),
  valueCents: Type.Integer(),
  unrealizedPnlCents: Type.Integer(),
  realizedPnlCents: Type.Integer(),
  stopLossProbBps: Nullable(Type.Integer()),
  takeProfitProbBps: Nullable(Type.Integer()),
  resolution: Nullable(
    Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('VOID')], {
      description: 'How the option resolved; null while it has not',
    }),
  ),
});

export const Portfolio = Type.Object({
  data: Type.Array(PositionView),
  summary: Type.Object({
    cashCents: Type.Integer(),
    reservedCents: Type.Integer({ description: 'Cash held for open BUY orders' }),
    positionsValueCents: Type.Integer(),
    totalValueCents: Type.Integer({ description: 'cash + reserved + positions value' }),
    realizedPnlCents: Type.Integer(),
    unrealizedPnlCents: Type.Integer(),
    openOrders: Type.Integer(),
  }),
});

export const ConversionBody = Type.Object(
  {
    type: Type.Union([Type.Literal('convert'), Type.Literal('split'), Type.Literal('merge')], {
      description:
        'convert: NO on the options named in `optionIds` → YES on every other option, plus (k − 1) × 100 cents ' +
        'a unit for k options; split: 100 cents a unit → YES on every option; merge: YES on every option → 100 ' +
        'cents a unit',
    }),
    quantity: Quantity,
    optionIds: Type.Optional(
      Type.Array(IdString, {
        minItems: 1,
        maxItems: 50,
        description: 'convert only: the options whose NO shares you give (each at most once)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { type: 'convert', quantity: 10, optionIds: ['12'] },
      { type: 'split', quantity: 5 },
    ],
  },
);

export const ConversionView = Type.Object({
  id: IdString,
  eventId: IdString,
  eventSlug: Type.String(),
  type: Type.Union([Type.Literal('convert'), Type.Literal('split'), Type.Literal('merge')]),
  quantity: Type.Integer({ description: 'Units converted' }),
  optionIds: Type.Array(IdString, { description: 'convert: the options whose NO shares were given' }),
  cashCents: Type.Integer({ description: 'Cash you received (negative: paid)' }),
  legs: Type.Array(
    Type.Object({
      optionId: IdString,
      optionLabel: Type.String(),
      side: SideSchema,
      quantity: Type.Integer({ description: 'Shares you received (positive) or gave (negative)' }),
      priceCents: Type.Integer({
        description:
          'The price per share the leg is booked at in your cost basis and realized P&L: the house’s chance ' +
          'of the option (its NO at 100 − that)',
      }),
    }),
  ),
  createdAt: DateTime,
});

const ErrorRef = Type.Ref('ApiError');

/**
 * What one order of a batch, or one cancel of many, came to: its answer, or its error, never both (optional rather
 * than nullable, so that an answer is serialised without testing which of two shapes it has).
 */
function itemResult<T extends TSchema>(answer: T, name: string, description: string) {
  return Type.Object(
    {
      status: Type.Integer({
        description: 'The HTTP status this part would have had alone (201/200, 4xx, 503)',
      }),
      [name]: Type.Optional(answer),
      error: Type.Optional(
        Type.Unsafe<unknown>({ ...ErrorRef, description: 'Why it failed (absent when it did not)' }),
      ),
    } as Record<string, TSchema>,
    { description },
  );
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

export const BatchOrderResult = itemResult(
  PlacedOrderView,
  'order',
  'One order of a batch: `order` when it was placed (status 201), else `error`',
);
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
export const CancelOrderResult = Type.Composite([
  Type.Object({ orderId: IdString }),
  itemResult(
    OrderView,
    'order',
    'One cancel of many: `order` when it was cancelled (status 200), else `error`',
  ),
]);
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
export const CancelAllResult = Type.Object({
  data: Type.Array(OrderView, { description: 'The orders cancelled, in the state they were left in' }),
  cancelledCount: Type.Integer(),
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
