import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { END_REASONS } from '../../exchange/orders.js';
import { IdString } from '../../platform/http.js';

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
export const DateTime = Type.String({ format: 'date-time' });

export const SideSchema = Type.Union([Type.Literal('YES'), Type.Literal('NO')], { description: 'YES or NO' });
export const ActionSchema = Type.Union([Type.Literal('BUY'), Type.Literal('SELL')], {
  description: 'BUY or SELL (SELL only shares you hold: to bet against YES, buy NO)',
});
export const Price = (description: string) => Type.Integer({ minimum: 1, maximum: 99, description });
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
export const ClientOrderId = Type.Optional(
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
  cancelReason: Nullable(
    Type.Union(
      END_REASONS.map((reason) => Type.Literal(reason)),
      {
        description:
          'Why it ended unfilled: cancelled_by_user, self_trade_prevented, unfilled_remainder (the rest of an IOC, FOK ' +
          'or market order), market_closed, expired, replaced (by an amend), heartbeat_lapsed (the dead man’s switch)',
      },
    ),
  ),
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
    Type.Integer({
      description:
        'What a share is valued at (docs/trading.md, Valuation): once resolved, what a share pays; else the last traded price of this side; else, for an option that never traded, its side of the chance its event’s last conversion booked it at. Null only for an option that never changed hands.',
    }),
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
  data: Type.Array(PositionView, {
    description:
      'Your open positions in the order of their option and side: all of them, or one page with `limit`',
  }),
  nextCursor: Nullable(
    Type.String({
      description: 'Pass as `cursor` for the next page; null on the last page and without `limit`',
    }),
  ),
  summary: Type.Object(
    {
      cashCents: Type.Integer(),
      reservedCents: Type.Integer({ description: 'Cash held for open BUY orders' }),
      positionsValueCents: Type.Integer(),
      totalValueCents: Type.Integer({ description: 'cash + reserved + positions value' }),
      realizedPnlCents: Type.Integer(),
      unrealizedPnlCents: Type.Integer(),
      openOrders: Type.Integer(),
    },
    { description: 'Over all your positions, whatever the page' },
  ),
});

/** `GET /api/positions`: every position (no `limit`), or pages of them. */
export const PositionsQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 500,
      description: 'Positions per page (1..500). Without it every position comes in one answer.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page' }),
  ),
});

/**
 * A conversion's body: a convert names the options whose NO it gives (`optionIds`, required); a split or a merge
 * takes every option and names none. `maxQuantity`: MAX_ORDER_QUANTITY, the bound the service holds it to.
 */
export const ConversionBody = (maxQuantity: number) => {
  const quantity = Type.Integer({
    minimum: 1,
    maximum: maxQuantity,
    description: `Units to convert (1..${maxQuantity}, MAX_ORDER_QUANTITY)`,
  });
  return Type.Union(
    [
      Type.Object(
        {
          type: Type.Literal('convert', {
            description:
              'NO on the options named in `optionIds` → YES on every other option, plus (k − 1) × 100 cents a ' +
              'unit for k options',
          }),
          quantity,
          optionIds: Type.Array(IdString, {
            minItems: 1,
            maxItems: 50,
            description: 'The options whose NO shares you give (each at most once)',
          }),
        },
        {
          additionalProperties: false,
          title: 'Convert',
          examples: [{ type: 'convert', quantity: 10, optionIds: ['12'] }],
        },
      ),
      Type.Object(
        {
          type: Type.Union([Type.Literal('split'), Type.Literal('merge')], {
            description:
              'split: 100 cents a unit → YES on every option; merge: YES on every option → 100 cents a unit',
          }),
          quantity,
        },
        { additionalProperties: false, title: 'SplitOrMerge', examples: [{ type: 'split', quantity: 5 }] },
      ),
    ],
    { description: 'A convert names `optionIds`; a split or a merge names none' },
  );
};

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
          'The price per share of the leg’s side at the house’s chance of the option (its NO at 100 − that): ' +
          'a set’s legs add up to 100, and the cost basis moves between the legs by these prices',
      }),
    }),
  ),
  createdAt: DateTime,
});
