import type { ConversionKind, ConversionLeg, ConversionRequest, PoolState } from './conversions.js';
import type { TradeRecord } from './execution.js';
import type { House } from './house.js';
import type { KeyAccount, KeyLimitRefusal } from './key-limits.js';
import type { LadderLevel } from './ladder.js';
import type { JournalEntry } from './ledger.js';
import type { AmmState } from './lmsr.js';
import type { FillKind } from './matching.js';
import type { Action, Side } from './money.js';
import type { OrderBook } from './order-book.js';
import type { OrderKind, OrderState, TimeInForce } from './orders.js';
import type { PositionChange, PositionState } from './positions.js';

/** The resting orders of one option: the order book and the state of each order on it. */
export interface BookState {
  book: OrderBook;
  orders: Map<number, OrderState>;
}

/** What an exclusive event adds to its market: its options in order, its conversion pool and last prices. */
export interface ExclusiveState {
  eventId: number;
  optionIds: number[];
  pool: PoolState;
  /** Each option's last traded YES price: the reference of conversions when the event has no house maker. */
  lastYesPrices: Map<number, number | null>;
}

export interface MarketState {
  /** Null when the market takes orders; else why it does not (its state, or "past its closing time"). */
  closed: string | null;
  /** Null unless conversions are open (an exclusive event before its resolution); else why they are not. */
  conversionsClosed: string | null;
  /** The house maker; advanced by the fills it takes part in. */
  house: House | null;
  /** Present for an exclusive event. */
  exclusive: ExclusiveState | null;
  feeBps: number;
  now: Date;
}

/**
 * What the takers hold, read under lock: the cash each buyer brought to this market (what its collateral holds set
 * aside, in its `transit` account: collateral.ts), and the positions of every seller (positionKey).
 */
export interface Holdings {
  funds: Map<number, number>;
  positions: Map<string, PositionState>;
  /**
   * The limits of the API keys placing orders (by credential, `apiKey:<id>`) and what they use now; a buyer whose
   * key limits its position has its position among `positions`.
   */
  keys?: Map<string, KeyAccount>;
}

export interface NewOrder {
  /** Taken from the orders' sequence before the decision. */
  id: number;
  optionId: number;
  userId: number;
  kind: OrderKind;
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  timeInForce: TimeInForce;
  postOnly: boolean;
  /** GTD: when what rests of it expires. */
  expiresAt: Date | null;
  clientOrderId: string | null;
  /** The credential that placed it (its dead man's switch covers it). */
  placedBy: string | null;
}

/**
 * A change to a resting order. The same price and fewer shares left: the order shrinks where it stands, keeping
 * its time priority. A new price, or more shares: it is cancelled and `replacement` placed in its stead at once
 * (same side, action, time in force, expiry and post-only flag), behind every order already at that price; if the
 * replacement cannot be placed the order stays as it was.
 */
export interface Amend {
  optionId: number;
  orderId: number;
  userId: number;
  /** The shares the order is to have left to fill (null: as it has now). */
  remainingQuantity: number | null;
  /** Its new price (null: as it is). */
  priceCents: number | null;
  /** The replacement's id (taken beforehand, used only if it is placed), clientOrderId and credential. */
  replacement: { id: number; clientOrderId: string | null; placedBy: string | null };
}

export type Instruction =
  | { type: 'place'; order: NewOrder }
  | {
      type: 'cancel';
      optionId: number;
      orderId: number;
      userId: number;
      /** Why, when not at the user's own request. */
      reason?: 'heartbeat_lapsed';
    }
  | ({ type: 'amend' } & Amend)
  /** Its time is up (the caller read its expiry); it ends if it still rests. */
  | { type: 'expire'; optionId: number; orderId: number }
  /** Every resting order of the market ends, and the house stops quoting. */
  | { type: 'close' }
  | { type: 'convert'; id: number; request: ConversionRequest };

export type Refusal =
  | { code: 'MARKET_CLOSED'; state: string }
  | { code: 'INSUFFICIENT_FUNDS'; neededCents: number; availableCents: number }
  | { code: 'INSUFFICIENT_SHARES'; needed: number; available: number }
  | { code: 'NO_LIQUIDITY' }
  /** A post-only order that would meet a resting order or a house quote on arrival. */
  | { code: 'POST_ONLY_WOULD_TAKE' }
  /** A fill-or-kill order that cannot fill whole now. */
  | { code: 'FOK_NOT_FILLED'; fillableQuantity: number }
  | { code: 'ORDER_NOT_OPEN' }
  | { code: 'INVALID_CONVERSION'; reason: string }
  /** The placing API key's risk limits do not let this order through (key-limits.ts). */
  | KeyLimitRefusal;

export interface Conversion {
  id: number;
  userId: number;
  kind: ConversionKind;
  quantity: number;
  /** convert: the options whose NO was given. */
  optionIds: number[];
  cashCents: number;
  legs: ConversionLeg[];
}

export interface PlacedVerdict {
  type: 'placed';
  order: OrderState;
  /** Its slice of the decision's trades (its own and its makers'). */
  trades: { from: number; to: number };
  /** The resting orders it filled, as they stood right after it. */
  makers: OrderState[];
  /** The taker's own resting orders it met: cancelled, never filled. */
  selfTradeCancelled: OrderState[];
}

export type Verdict =
  | PlacedVerdict
  | { type: 'ended'; reason: 'cancelled' | 'expired' | 'market_closed'; orders: OrderState[] }
  /**
   * `previous`: the order as it stood before; `order`: as it stands now (the same order shrunk, or the replacement,
   * whose placing is `replacement`). An amend that changes nothing leaves `order` equal to `previous`.
   */
  | { type: 'amended'; previous: OrderState; order: OrderState; replacement: PlacedVerdict | null }
  | { type: 'converted'; conversion: Conversion }
  | { type: 'unchanged' }
  | { type: 'refused'; refusal: Refusal };

export interface DecidedFill {
  optionId: number;
  takerOrderId: number;
  makerOrderId: number | null;
  yesPrice: number;
  quantity: number;
  kind: FillKind;
  takerSide: Side;
  takerAction: Action;
}

export interface OptionTotals {
  pairsMinted: number;
  pairsMerged: number;
  volumeShares: number;
  volumeCents: number;
  lastYesPrice: number | null;
  /** Cash the house maker received in the option (negative: paid). */
  houseCashCents: number;
}

/** What the decision did to one option. */
export interface OptionDecision {
  totals: OptionTotals;
  /** Whether its book changed (orders, the house quotes, or fills): it then has a new book version and its levels. */
  changed: boolean;
  /** The house maker's ladder in the option after the instructions (null when it has none). */
  house: AmmState | null;
  /** The ladder levels the instructions changed, as they now stand. */
  levels: LadderLevel[];
}

export interface Decision {
  verdicts: Verdict[];
  /** Every order to write in its final state: the new ones (`newOrderIds`) and the resting ones changed. */
  orders: Map<number, OrderState>;
  newOrderIds: Set<number>;
  fills: DecidedFill[];
  /** Trades by fill (`fillIndex` into `fills`). */
  trades: TradeRecord[];
  entries: JournalEntry[];
  /** Each holder's position changes, in the order they happened (positionKey). */
  positions: Map<string, { userId: number; optionId: number; side: Side; changes: PositionChange[] }>;
  /** Per option of the market: totals, house, levels. */
  options: Map<number, OptionDecision>;
  /** The exclusive event's conversion pool after the instructions (null for an independent option). */
  pool: PoolState | null;
  /** The keys of `holdings.keys` with what they use after the instructions (counted at worst). */
  keys: Map<string, KeyAccount>;
  /** Whether anything at all is to be written. */
  changed: boolean;
}
