import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const EventStatus = Type.Union(
  ['draft', 'open', 'closed', 'resolved', 'settled'].map((s) => Type.Literal(s)),
  { description: 'draft → open → closed → resolved → settled' },
);
export const OutcomeSchema = Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('VOID')]);

export const OptionView = Type.Object({
  id: IdString,
  label: Type.String(),
  yesPriceCents: Type.Integer({
    description:
      'Independent option: last traded YES price, else the house quote, else 50. Exclusive event: the option’s ' +
      'chance, rounded to a cent (1..99)',
  }),
  noPriceCents: Type.Integer({ description: '100 − yesPriceCents' }),
  probabilityBps: Type.Integer({
    description:
      'The chance shown, in basis points. In an exclusive event those of all options add up to exactly 10,000: ' +
      'the house maker’s chances, or without one the last traded prices scaled to add up',
  }),
  lastYesPriceCents: Nullable(Type.Integer()),
  volumeShares: Type.Integer(),
  volumeCents: Type.Integer({ description: 'Notional traded, in the takers’ prices' }),
  houseLiquidityCents: Type.Integer({
    description:
      'LMSR liquidity b of this option’s own house maker (0 = none; always 0 in an exclusive event)',
  }),
  resolution: Nullable(OutcomeSchema),
});

export const EventSummary = Type.Object({
  id: IdString,
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  category: Type.String(),
  featured: Type.Boolean(),
  status: EventStatus,
  exclusive: Type.Boolean({
    description:
      'Exactly one option resolves YES: the options trade as one market (one house maker, chances that add up, ' +
      'conversions between them)',
  }),
  houseLiquidityCents: Nullable(
    Type.Integer({ description: 'Exclusive event: LMSR liquidity b of its one house maker; null otherwise' }),
  ),
  resolutionSource: Nullable(Type.String()),
  closesAt: DateTime,
  createdAt: DateTime,
});

export const EventListItem = Type.Composite([EventSummary, Type.Object({ options: Type.Array(OptionView) })]);

export const EventDetail = Type.Composite([
  EventSummary,
  Type.Object({
    openedAt: Nullable(DateTime),
    closedAt: Nullable(DateTime),
    resolvedAt: Nullable(DateTime),
    settledAt: Nullable(DateTime),
    disputeWindowEndsAt: Nullable(DateTime),
    range: Type.String(),
    options: Type.Array(
      Type.Composite([
        OptionView,
        Type.Object({
          bestBidCents: Nullable(Type.Integer({ description: 'Best YES bid, house included' })),
          bestAskCents: Nullable(Type.Integer({ description: 'Best YES ask, house included' })),
          priceHistory: Type.Array(Type.Object({ t: DateTime, yesPriceCents: Type.Integer() }), {
            description: 'Last traded YES price per time bucket; at most 200 points per option',
          }),
        }),
      ]),
    ),
  }),
]);

const Level = Type.Object({
  priceCents: Type.Integer(),
  quantity: Type.Integer({ description: 'Shares at this price, house quote included' }),
  orders: Type.Integer({ description: 'Resting user orders at this price' }),
  houseQuantity: Type.Integer({ description: 'Part of the quantity offered by the house market maker' }),
});
const Ladder = Type.Object({ bids: Type.Array(Level), asks: Type.Array(Level) });

export const OrderBookView = Type.Object({
  optionId: IdString,
  eventSlug: Type.String(),
  optionLabel: Type.String(),
  exclusive: Type.Boolean({
    description: 'The option is one of an exclusive event’s, whose one house maker quotes all its options',
  }),
  lastYesPriceCents: Nullable(Type.Integer()),
  bookVersion: Type.Integer({ description: 'Increases with every change to the book' }),
  yes: Ladder,
  no: Ladder,
});

const Ranked = Type.Array(
  Type.Object({ rank: Type.Integer(), userId: IdString, username: Type.String(), value: Type.Integer() }),
);
export const Leaderboard = Type.Object({
  profit: Ranked,
  volume: Ranked,
  predictions: Ranked,
});

export const DisputeView = Type.Object({
  id: IdString,
  eventId: IdString,
  eventSlug: Type.String(),
  userId: IdString,
  reason: Type.String(),
  evidenceUrl: Nullable(Type.String()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('upheld'), Type.Literal('rejected')]),
  decisionNote: Nullable(Type.String()),
  createdAt: DateTime,
  decidedAt: Nullable(DateTime),
});

export const DisputeBody = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 2000 }),
    evidenceUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/** A comma-separated list of up to 100 numeric ids, as a query parameter. */
export const IdList = (what: string) =>
  Type.String({
    pattern: '^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,99}$',
    maxLength: 1700,
    description: `Only these ${what}: up to 100 ids, comma-separated`,
  });

export const OptionListItem = Type.Composite(
  [
    OptionView,
    Type.Object({
      eventId: IdString,
      eventSlug: Type.String(),
      eventTitle: Type.String(),
      eventStatus: EventStatus,
      exclusive: Type.Boolean({ description: 'The option is one of an exclusive event’s' }),
      closesAt: DateTime,
    }),
  ],
  { description: 'An option with the event it belongs to' },
);

const TradingStatusSchema = Type.Union(
  [Type.Literal('trading'), Type.Literal('post_only'), Type.Literal('maintenance')],
  {
    description:
      '`trading`: orders of every kind are taken. `post_only`: only post-only limit orders (409 POST_ONLY_MODE ' +
      'for the rest). `maintenance`: no new orders, amends or conversions (503 MAINTENANCE). Cancels always work',
  },
);

export const ExchangeStatus = Type.Object({
  status: TradingStatusSchema,
  message: Nullable(Type.String({ description: 'What the operators say about it' })),
  updatedAt: DateTime,
  serverTime: DateTime,
  takerFeeBps: Type.Integer({ description: 'Taker fee in basis points of notional (TAKER_FEE_BPS)' }),
  makerFeeBps: Type.Integer({ description: 'Makers pay no fee' }),
  markets: Type.Array(
    Type.Object({
      eventId: IdString,
      eventSlug: Type.String(),
      status: TradingStatusSchema,
      message: Nullable(Type.String()),
      updatedAt: DateTime,
    }),
    {
      description:
        'The markets held stricter than the exchange; every other open market trades as `status` says',
    },
  ),
});

export const SetTradingStatusBody = Type.Object(
  {
    status: TradingStatusSchema,
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const ServerTime = Type.Object({
  serverTime: DateTime,
  epochMs: Type.Integer({ description: 'Milliseconds since the Unix epoch' }),
});
