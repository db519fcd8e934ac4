import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Threshold = (what: string) =>
  Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 100,
        maximum: 9900,
        description: `${what} in basis points of your side's price (100..9900, i.e. 1¢..99¢); null clears it, absent leaves it`,
      }),
    ),
  );

export const ProtectionsBody = Type.Object(
  {
    stopLossProbBps: Threshold('Sell when the price falls to this or below:'),
    takeProfitProbBps: Threshold('Sell when the price rises to this or above:'),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Quantity = Type.Integer({ minimum: 1, maximum: 1_000_000 });

export const SizingBody = Type.Union(
  [
    Type.Object(
      { mode: Type.Literal('fixed'), quantity: Quantity },
      { additionalProperties: false, description: 'Always this many shares' },
    ),
    Type.Object(
      {
        mode: Type.Literal('fraction'),
        fraction: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
        fractionBps: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
      },
      {
        additionalProperties: false,
        description:
          'This share of the leader’s quantity, rounded down: `fraction` (0 < f ≤ 1) or `fractionBps` (1..10000)',
      },
    ),
  ],
  { description: 'How many shares each copy trades' },
);

export const FollowBody = Type.Object(
  {
    leaderId: Type.Optional(IdString),
    leaderUsername: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    sizing: Type.Optional(SizingBody),
    maxQuantityPerTrade: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Default 100' }),
    ),
    dailyLimitCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000_000,
        description: 'Most cash your copies of this trader may spend per UTC day. Default 10000',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'Pause (false) or resume copying. Default true' })),
  },
  { additionalProperties: false },
);

export const FollowView = Type.Object({
  leaderId: IdString,
  leaderUsername: Type.String(),
  sizing: Type.Union([
    Type.Object({ mode: Type.Literal('fixed'), quantity: Type.Integer() }),
    Type.Object({ mode: Type.Literal('fraction'), fraction: Type.Number(), fractionBps: Type.Integer() }),
  ]),
  maxQuantityPerTrade: Type.Integer(),
  dailyLimitCents: Type.Integer(),
  usedTodayCents: Type.Integer({
    description: 'Spent (or being spent) on copies of this trader today (UTC)',
  }),
  enabled: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const LeaderParams = Type.Object({ leaderId: IdString });

export const MirrorView = Type.Object({
  id: IdString,
  leaderId: IdString,
  leaderUsername: Type.String(),
  leaderOrderId: IdString,
  optionId: IdString,
  eventSlug: Type.String(),
  optionLabel: Type.String(),
  side: Type.Union([Type.Literal('YES'), Type.Literal('NO')]),
  action: Type.Union([Type.Literal('BUY'), Type.Literal('SELL')]),
  leaderQuantity: Type.Integer(),
  worstPriceCents: Type.Integer({ description: 'The leader’s average price, rounded in your favour' }),
  status: Type.Union(['pending', 'processing', 'placed', 'skipped'].map((s) => Type.Literal(s))),
  quantity: Nullable(Type.Integer()),
  filledQuantity: Type.Integer(),
  notionalCents: Type.Integer(),
  orderId: Nullable(IdString),
  reason: Nullable(Type.String({ description: 'Why it was skipped' })),
  createdAt: DateTime,
  processedAt: Nullable(DateTime),
});
