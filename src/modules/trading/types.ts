import type { ConversionLeg, ConversionRequest } from '../../exchange/conversions.js';
import type { KeyLimits } from '../../exchange/key-limits.js';
import type { LadderLevel } from '../../exchange/ladder.js';
import type { Action, Side } from '../../exchange/money.js';
import type { TimeInForce } from '../../exchange/orders.js';
import type { Tx } from '../../platform/db/types.js';
import type { OrderRow, TradeRow } from './repository.js';

export type { LadderLevel };

export interface TradingSettings {
  takerFeeBps: number;
  maxOrderQuantity: number;
  booksInMemory: number;
  /** The most requests waiting in one option's queue on this instance; past it, 503 at once. */
  maxQueuedOrdersPerOption: number;
  /**
   * Transactions of one market an instance runs at once: 2 lets the next batch wait for the lock while one is
   * written (PostgreSQL); 1 on the embedded database, whose one connection a transaction holds whole.
   */
  transactionsPerMarket: 1 | 2;
  /** How long a request may wait for a transaction to decide it before it is answered 503 (REQUEST_DEADLINE_MS). */
  requestDeadlineMs: number;
}

export type { TimeInForce };

/** An order as a trader sends it. */
export interface OrderRequest {
  optionId: number;
  kind: 'market' | 'limit';
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  /** Market orders are IOC; a limit order is GTC, or GTD when it carries an expiry. */
  timeInForce?: TimeInForce | undefined;
  postOnly?: boolean | undefined;
  /** GTD: an absolute expiry, or one this many hours after the order's time (the database's clock). */
  expiresAt?: Date | undefined;
  expiresInHours?: number | undefined;
  clientOrderId?: string | undefined;
  /** The credential placing it (`apiKey:<id>`, `session:<id>`), whose dead man's switch covers it. */
  placedBy?: string | null | undefined;
  /** The placing API key's risk limits, which the decision holds the order to (none: not an API key, or no limits). */
  keyLimits?: KeyLimits | null | undefined;
}

/** A change to one of the user's resting orders: fewer shares left, or another price or more shares. */
export interface AmendRequest {
  optionId: number;
  orderId: number;
  /** The amended order's action, read before it queues: a BUY's buyer's cash and a SELL's shares are locked. */
  action: Action;
  /** Null: unchanged. */
  remainingQuantity: number | null;
  priceCents: number | null;
  /** The replacement's clientOrderId, when there is one. */
  clientOrderId: string | null;
  placedBy: string | null;
  /** The amending API key's risk limits, which the replacement is held to. */
  keyLimits?: KeyLimits | null | undefined;
}

/** The answer to a placed order: what the API sends, and what an idempotent retry replays. */
export interface PlaceResult {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * What a request's collateral step set aside for it (collateral.ts): spent by the market's transaction that decides
 * it, which marks it `spent` once it has committed; one never spent is given back.
 */
export interface RequestHold {
  id: number;
  cents: number;
  spent: boolean;
}

/** A change asked of a market (an option's book, or an exclusive event's), as it waits in that market's queue. */
export type BookRequest =
  | {
      type: 'place';
      userId: number;
      request: OrderRequest;
      /** The idempotency key (the Idempotency-Key header, or `clientOrderId:` + the clientOrderId). */
      key: string | null;
      requestHash: string;
      hold?: RequestHold;
    }
  | { type: 'cancel'; userId: number; optionId: number; orderId: number; reason?: 'heartbeat_lapsed' }
  | {
      type: 'amend';
      userId: number;
      request: AmendRequest;
      /** The Idempotency-Key header, if any. */
      key: string | null;
      requestHash: string;
      hold?: RequestHold;
    }
  | { type: 'expire'; optionId: number; orderId: number }
  | { type: 'close' }
  | {
      type: 'convert';
      userId: number;
      request: ConversionRequest;
      /** The Idempotency-Key header, if any. */
      key: string | null;
      requestHash: string;
      hold?: RequestHold;
    };

/** A request that a retry with the same idempotency key replays. */
export type KeyedRequest = Extract<BookRequest, { type: 'place' | 'convert' | 'amend' }>;

/**
 * What came of one request: an answer (a placed order's or a conversion's PlaceResult; a cancelled order; whether an
 * order expired; how many orders a close ended), a refusal (an error the API reports), `alone`: to be placed again on
 * its own after the batch (a second use of one idempotency key or clientOrderId in the same batch), or `reroute`: its
 * option turned out to trade in another market than the one it queued for (an event made exclusive while a draft).
 */
export type BookOutcome = { result: unknown } | { error: Error } | { alone: true } | { reroute: true };

/** What a committed order changed, for listeners such as notifications, webhooks and copy trading. */
export interface OrderCommitted {
  optionId: number;
  eventId: number;
  /** Its market's names as traders see them, read under the market's lock. */
  names: { eventSlug: string; eventTitle: string; optionLabel: string };
  /** Whether a position in its option has a stop-loss or a take-profit (see `LockedOption.has_protections`). */
  protectedPositions: boolean;
  order: OrderRow;
  trades: TradeRow[];
  makerOrders: OrderRow[];
  cancelledOrders: OrderRow[];
}

/** What one committed change did to an option's book, for market data. `bookVersion` rises by one each time. */
export interface BookChange {
  optionId: number;
  bookVersion: number;
  /** The levels it touched, as they now stand. */
  levels: LadderLevel[];
  fills: {
    id: number;
    yesPriceCents: number;
    quantity: number;
    takerSide: Side;
    takerAction: Action;
    at: string;
  }[];
}

export type EndReason = 'cancelled' | 'expired' | 'market_closed';

/** A committed conversion, for listeners (the user's stream). */
export interface ConversionCommitted {
  id: number;
  userId: number;
  eventId: number;
  kind: ConversionRequest['kind'];
  quantity: number;
  /** convert: the options whose NO was given. */
  optionIds: number[];
  cashCents: number;
  legs: ConversionLeg[];
  createdAt: Date;
  /** The event's names as the transaction read them under its lock: slug, title and each option's label. */
  names: { eventSlug: string; eventTitle: string; labels: Map<number, string> };
}

/**
 * Whom a decision's placed orders may concern, known before its rows are written: the users of its trades and of
 * the orders it cancelled, and how many trades and cancelled orders it made.
 */
export interface PlacedScope {
  users: number[];
  orders: number;
}

/**
 * Called inside the transaction with every order it placed (one, or a whole batch in order), and with what its
 * reader read, when it has one and the decision traded or cancelled.
 */
export type OrderListener<R = unknown> = (trx: Tx, changes: OrderCommitted[], read?: R) => Promise<void>;
/**
 * What a placed-orders listener reads before it can announce (preferences, subscriptions, ids), sent in the round
 * trip the pipeline makes anyway once the decision is made (its read-ahead), instead of one of its own.
 */
export type OrderReader<R = unknown> = (trx: Tx, scope: PlacedScope) => Promise<R>;
/** Called inside the transaction with the orders an amend shrank where they stand. */
export type AmendListener = (trx: Tx, orders: OrderRow[]) => Promise<void>;
/** Called inside the transaction with the orders a cancel, an expiry or a market close ended. */
export type EndListener = (trx: Tx, orders: OrderRow[], reason: EndReason) => Promise<void>;
/** Called inside the transaction with every change to a book it made (one per option changed, in option order). */
export type BookListener = (trx: Tx, changes: BookChange[]) => Promise<void>;
/** Called inside the transaction with the conversions it carried out. */
export type ConversionListener = (trx: Tx, conversions: ConversionCommitted[]) => Promise<void>;

/** Who hears of committed changes: registered once, at composition. */
export class TradingListeners {
  readonly placed: { announce: OrderListener; read?: OrderReader }[] = [];
  readonly ended: EndListener[] = [];
  readonly amended: AmendListener[] = [];
  readonly book: BookListener[] = [];
  readonly converted: ConversionListener[] = [];
}

/** How an order names its option: by id, or by its event's slug and the option's label (the markets resolve it). */
export interface OptionResolver {
  resolveOptionId(input: {
    optionId?: string | undefined;
    eventSlug?: string | undefined;
    optionLabel?: string | undefined;
  }): Promise<number>;
}
