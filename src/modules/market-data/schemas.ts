import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';
import { ActionSchema, SideSchema } from '../trading/schemas.js';
import { INTERVAL_NAMES, MAX_CANDLES } from './candles.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Cents = (description: string) => Type.Integer({ description });
const Outcome = Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('VOID')]);

export const CandleIntervalSchema = Type.Union(
  INTERVAL_NAMES.map((name) => Type.Literal(name)),
  {
    description:
      '1m, 5m, 15m, 1h, 6h or 1d; intervals start on multiples of their width since the Unix epoch (UTC)',
  },
);

export const CandleQuery = Type.Object({
  interval: Type.Optional(
    Type.Union(
      INTERVAL_NAMES.map((name) => Type.Literal(name)),
      { default: '1h' },
    ),
  ),
  from: Type.Optional(
    Type.String({
      format: 'date-time',
      description: `First interval: the one holding this time (default: ${MAX_CANDLES} intervals before \`to\`)`,
    }),
  ),
  to: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'End of the range, exclusive (default and at most: the end of the current interval)',
    }),
  ),
});

export const Candle = Type.Object(
  {
    t: Type.String({ format: 'date-time', description: 'Start of the interval' }),
    o: Type.Integer({ description: 'YES price of the first execution (cents)' }),
    h: Type.Integer({ description: 'Highest YES price' }),
    l: Type.Integer({ description: 'Lowest YES price' }),
    c: Type.Integer({ description: 'YES price of the last execution' }),
    v: Type.Integer({ description: 'Volume in shares' }),
    vc: Type.Integer({
      description: 'Volume in cents: quantity × price of each execution, in the taker’s side',
    }),
  },
  {
    description:
      'One interval of an option’s YES price. An interval without trades is flat at the last close',
  },
);

export const Candles = Type.Object({
  optionId: IdString,
  interval: CandleIntervalSchema,
  data: Type.Array(Candle, { description: 'Oldest first, one per interval from the first with a price' }),
});

export const Ticker = Type.Object({
  optionId: IdString,
  eventSlug: Type.String(),
  optionLabel: Type.String(),
  status: Type.Union(
    ['open', 'closed', 'resolved', 'settled'].map((s) => Type.Literal(s)),
    {
      description: 'The market’s lifecycle state',
    },
  ),
  bestBidCents: Nullable(Type.Integer({ description: 'Best YES bid (the house quote included)' })),
  bestBidQuantity: Type.Integer({ description: 'Shares bid at bestBidCents (0 without a bid)' }),
  bestAskCents: Nullable(Type.Integer({ description: 'Best YES ask (the house quote included)' })),
  bestAskQuantity: Type.Integer({ description: 'Shares offered at bestAskCents (0 without an ask)' }),
  lastPriceCents: Nullable(Type.Integer({ description: 'YES price of the last execution' })),
  previousPriceCents: Nullable(
    Type.Integer({ description: 'The YES price 24 hours ago (minute resolution); null when it had none' }),
  ),
  change24hCents: Nullable(Type.Integer({ description: 'lastPriceCents − previousPriceCents' })),
  volume24hShares: Type.Integer({ description: 'Shares traded in the last 24 hours (minute resolution)' }),
  volume24hCents: Type.Integer({
    description: 'Notional traded in the last 24 hours, in the takers’ prices',
  }),
  openInterest: Type.Integer({ description: 'YES shares outstanding (= NO shares outstanding)' }),
});

export const TickerQuery = Type.Object({
  eventSlug: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Only this event’s options' }),
  ),
  optionIds: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,99}$',
      maxLength: 1700,
      description: 'Only these options: up to 100 ids, comma-separated',
    }),
  ),
});

export const Tickers = Type.Object({ data: Type.Array(Ticker) });

export const TapeTrade = Type.Object({
  id: IdString,
  optionId: IdString,
  yesPriceCents: Type.Integer({ description: 'Execution price of YES (a NO price is 100 − it)' }),
  quantity: Type.Integer(),
  takerSide: SideSchema,
  takerAction: ActionSchema,
  at: DateTime,
});

export const Fill = Type.Object(
  {
    id: IdString,
    fillId: IdString,
    orderId: IdString,
    optionId: IdString,
    eventSlug: Type.String(),
    eventTitle: Type.String({ description: 'The title of the fill’s market' }),
    optionLabel: Type.String(),
    side: SideSchema,
    action: ActionSchema,
    role: Type.Union([Type.Literal('maker'), Type.Literal('taker')]),
    priceCents: Cents('Execution price of your side'),
    yesPriceCents: Cents('Execution price of YES'),
    quantity: Type.Integer(),
    notionalCents: Cents('priceCents × quantity'),
    feeCents: Type.Integer(),
    createdAt: DateTime,
  },
  { description: 'One execution of one of your orders (`fillId` is its id on the public tape)' },
);

export const Settlement = Type.Object(
  {
    id: IdString,
    optionId: IdString,
    eventSlug: Type.String(),
    eventTitle: Type.String(),
    optionLabel: Type.String(),
    side: SideSchema,
    outcome: Outcome,
    quantity: Type.Integer({ description: 'Shares held when the option settled' }),
    payoutCents: Type.Integer(),
    pnlCents: Type.Integer({ description: 'Payout minus the cost of the shares held' }),
    settledAt: DateTime,
  },
  { description: 'What one side of one option paid you when it settled' },
);

export const PortfolioHistory = Type.Object({
  range: Type.Union(['1d', '1w', '1m', 'all'].map((r) => Type.Literal(r))),
  stepSeconds: Type.Integer({ description: 'Spacing of the points (the last one is now)' }),
  data: Type.Array(
    Type.Object({
      t: DateTime,
      cashCents: Type.Integer(),
      reservedCents: Type.Integer(),
      positionsValueCents: Type.Integer({ description: 'Positions at their marks at that time' }),
      totalValueCents: Type.Integer({ description: 'cash + reserved + positions value' }),
    }),
    { description: 'Oldest first' },
  ),
});

export const QuoteQuery = Type.Object({
  side: SideSchema,
  action: ActionSchema,
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'Shares to buy or sell' }),
  priceCents: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 99,
      description:
        'Worst acceptable price of your side, as a market trade’s `priceCents` (default: any, 99 for a BUY and 1 ' +
        'for a SELL)',
    }),
  ),
});

export const Quote = Type.Object(
  {
    optionId: IdString,
    side: SideSchema,
    action: ActionSchema,
    quantity: Type.Integer({ description: 'Shares asked about' }),
    priceCents: Type.Integer({ description: 'The worst price the quote accepted (yours, or the default)' }),
    filledQuantity: Type.Integer({ description: 'Shares a market trade would get now' }),
    unfilledQuantity: Type.Integer({
      description: 'Shares it would leave unfilled (cancelled, never resting)',
    }),
    notionalCents: Cents('Σ price × quantity of the fills, in your side’s prices'),
    feeCents: Cents('The taker fee those fills would pay'),
    totalCents: Cents('What you would pay (a BUY: notional + fee) or get (a SELL: notional − fee)'),
    averagePriceCents: Nullable(
      Type.Number({ description: 'notionalCents ÷ filledQuantity (to 4 decimals); null when nothing fills' }),
    ),
    worstPriceCents: Nullable(Type.Integer({ description: 'The last (worst) price reached' })),
    levels: Type.Array(
      Type.Object({
        priceCents: Type.Integer({ description: 'A price of your side' }),
        quantity: Type.Integer({ description: 'Shares taken at that price' }),
        houseQuantity: Type.Integer({ description: 'Of those, from the house market maker' }),
      }),
      { description: 'The prices walked, best first: users’ resting orders and the house maker’s quotes' },
    ),
    selfTradeCancels: Type.Integer({
      description:
        'Your own resting orders it would meet, which self-trade prevention cancels (signed in only)',
    }),
    refusal: Nullable(
      Type.Object(
        {
          status: Type.Integer(),
          error: Type.String(),
          code: Type.String(),
          details: Type.Optional(Type.Unknown()),
        },
        {
          description:
            'The error a market trade of this size would be refused with now (MARKET_CLOSED, NO_LIQUIDITY; signed ' +
            'in: INSUFFICIENT_FUNDS, INSUFFICIENT_SHARES), nothing placed or charged; null when it would be placed',
        },
      ),
    ),
    forUser: Type.Boolean({
      description:
        'Quoted for the signed-in caller: their own resting orders left out and their cash and shares counted',
    }),
    takerFeeBps: Type.Integer(),
    bookVersion: Type.Integer({
      description: 'The book version quoted (as the order book’s and the stream’s)',
    }),
    quotedAt: DateTime,
  },
  { description: 'What a market trade of this size would do right now; nothing is placed' },
);
