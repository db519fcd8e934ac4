import { type Static, Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';
import { ActionSchema, SideSchema } from '../trading/schemas.js';

/** The largest page of GET /api/stream/replay, in changes of the book. */
export const MAX_REPLAY_LIMIT = 1000;

const DateTime = Type.String({ format: 'date-time' });
const channel = Type.String({ description: 'book:<optionId> or trades:<optionId>', maxLength: 64 });
const seq = Type.Integer({ description: 'The book version of the change: rises by exactly one per change' });

const StreamLevel = Type.Object({
  side: Type.Union([Type.Literal('bid'), Type.Literal('ask')], {
    description: 'bid: YES bids; ask: YES asks',
  }),
  priceCents: Type.Integer({ description: 'YES price (a NO price is 100 − it)' }),
  quantity: Type.Integer({ description: 'Resting shares, the house quote included; 0 = the level is gone' }),
  orders: Type.Integer({ description: 'Resting user orders' }),
  houseQuantity: Type.Integer({ description: 'Shares offered by the house market maker' }),
});

const StreamTrade = Type.Object({
  id: IdString,
  yesPriceCents: Type.Integer(),
  quantity: Type.Integer(),
  takerSide: SideSchema,
  takerAction: ActionSchema,
  at: DateTime,
});

export const ReplayQuery = Type.Object({
  channel,
  fromSeq: Type.Integer({ minimum: 1, description: 'The first seq wanted: one more than the last one held' }),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_REPLAY_LIMIT,
      default: 100,
      description:
        'The most changes of the book read for this page (a trades channel skips those without fills)',
    }),
  ),
});

/** A book or trades message as the stream sends it, and as the window keeps it. */
export const WindowMessage = Type.Union([
  Type.Object({ type: Type.Literal('delta'), channel, seq, levels: Type.Array(StreamLevel) }),
  Type.Object({ type: Type.Literal('trades'), channel, seq, trades: Type.Array(StreamTrade) }),
]);
export type WindowMessage = Static<typeof WindowMessage>;

export const Replay = Type.Object({
  channel,
  fromSeq: Type.Integer(),
  latestSeq: Type.Integer({ description: 'The book version when the page was read' }),
  messages: Type.Array(WindowMessage, {
    description: 'The messages the stream sent, oldest first, the same as a resumed subscription receives',
  }),
  nextFromSeq: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Where the next page starts; null when this one reaches latestSeq',
  }),
});
