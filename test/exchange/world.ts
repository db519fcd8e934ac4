import {
  amendWorstCase,
  type CollateralNeed,
  holdCollateral,
  type NeedVerdict,
  orderWorstCase,
  splitCost,
} from '../../src/exchange/collateral.js';
import type { ConversionKind, PoolState } from '../../src/exchange/conversions.js';
import {
  applyPositionChanges,
  type BookState,
  type DecidedFill,
  type Decision,
  decide,
  type Instruction,
  type Refusal,
  type Verdict,
} from '../../src/exchange/decision.js';
import { positionKey } from '../../src/exchange/execution.js';
import { House } from '../../src/exchange/house.js';
import type { KeyAccount, KeyLimits } from '../../src/exchange/key-limits.js';
import { type AccountRef, accountKey, type JournalEntry, normaliseEntry } from '../../src/exchange/ledger.js';
import type { AmmState } from '../../src/exchange/lmsr.js';
import type { Action, Side } from '../../src/exchange/money.js';
import { OrderBook } from '../../src/exchange/order-book.js';
import { isResting, type OrderState, type TimeInForce } from '../../src/exchange/orders.js';
import { EMPTY_POSITION, type PositionState } from '../../src/exchange/positions.js';

export const OPTION_ID = 1;
export const EVENT_ID = 1;

export interface OrderRequest {
  userId: number;
  /** Defaults to OPTION_ID. */
  optionId?: number;
  side: Side;
  action: Action;
  price: number;
  quantity: number;
  /** A limit order whose rest rests; else a market order (immediate or cancel). Ignored when `tif` is given. */
  rest: boolean;
  /** A limit order with this time in force (GTC, GTD: its rest rests; IOC, FOK: it never rests). */
  tif?: TimeInForce;
  /** Refused rather than take anything on arrival. */
  postOnly?: boolean;
  /** GTD: when what rests of it expires (default: a day after the epoch). */
  expiresAt?: Date;
  /** The API key placing it (`apiKey:<id>`), whose limits (`World.keyLimits`) the decision holds it to. */
  placedBy?: string;
}

/** What an amend asks: the shares to be left and the new price (absent: as they are). */
export interface AmendRequest {
  remainingQuantity?: number;
  priceCents?: number;
  /** Who asks (default: the order's owner). */
  userId?: number;
  /** The API key asking, whose limits the replacement is held to. */
  placedBy?: string;
}

export interface Placed {
  id: number;
  order: OrderState;
  fills: DecidedFill[];
  selfTradeCancelled: OrderState[];
  feeCents: number;
}

/**
 * A whole exchange in memory, built only from the pure core: every order and conversion decided by the same `decide`
 * the trading service calls, its ledger entries, positions, orders and option totals applied as the service writes
 * them. One independent option (`new World(amm)`), or an exclusive event's options (`World.exclusive`).
 */
export class World {
  readonly books = new Map<number, BookState>();
  readonly balances = new Map<string, number>();
  readonly positions = new Map<string, PositionState>();
  readonly orders = new Map<number, OrderState>();
  readonly pairs = new Map<number, { minted: number; merged: number }>();
  readonly house: House | null;
  pool: PoolState | null = null;
  /** Why the last place, amend or cancel was refused (null when it was not). */
  lastRefusal: Refusal | null = null;
  /** API keys' risk limits, by credential; what they use is counted from the world as the service reads it. */
  readonly keyLimits = new Map<string, KeyLimits>();
  /** What each limited key's trades paid (fees included), less what its sales brought. */
  readonly keyPaid = new Map<string, number>();
  private nextId = 1;

  /** An id for a new order or conversion, as the service takes them from their sequence. */
  takeId(): number {
    return this.nextId++;
  }

  constructor(
    amm: AmmState | null,
    readonly feeBps = 0,
    readonly optionIds: number[] = [OPTION_ID],
    house?: House | null,
  ) {
    this.house = house === undefined ? House.ofOption(OPTION_ID, amm) : house;
    for (const id of optionIds) {
      this.books.set(id, { book: new OrderBook(), orders: new Map() });
      this.pairs.set(id, { minted: 0, merged: 0 });
    }
  }

  /** An exclusive event of `count` options (ids 1..count) with one house maker of liquidity b (0 = none). */
  static exclusive(count: number, liquidityCents: number, feeBps = 0): World {
    const ids = Array.from({ length: count }, (_, i) => i + 1);
    const house = House.ofEvent(
      liquidityCents,
      new Map(ids.map((id) => [id, { offset: 0, yesShares: 0, noShares: 0 }])),
    );
    const world = new World(null, feeBps, ids, house);
    world.pool = { yesSets: 0, noSets: 0 };
    return world;
  }

  /** The house maker's ladder in the single option of an independent world. */
  get amm(): AmmState | null {
    return this.house?.quote(OPTION_ID) ?? null;
  }

  get book(): OrderBook {
    return (this.books.get(OPTION_ID) as BookState).book;
  }

  get pairsMinted(): number {
    return this.pairs.get(OPTION_ID)?.minted ?? 0;
  }

  get pairsMerged(): number {
    return this.pairs.get(OPTION_ID)?.merged ?? 0;
  }

  balance(account: AccountRef): number {
    return this.balances.get(accountKey(account)) ?? 0;
  }

  post(entry: JournalEntry): void {
    for (const posting of normaliseEntry(entry).postings) {
      const key = accountKey(posting.account);
      this.balances.set(key, (this.balances.get(key) ?? 0) + posting.amount);
    }
  }

  fund(userId: number, cents: number): void {
    this.post({
      kind: 'signup_credit',
      memo: 'test',
      postings: [
        { account: { kind: 'bonus' }, amount: -cents },
        { account: { kind: 'cash', userId }, amount: cents },
      ],
    });
  }

  position(userId: number, side: Side, optionId = OPTION_ID): PositionState {
    return this.positions.get(positionKey(userId, optionId, side)) ?? EMPTY_POSITION;
  }

  /** Places an order; returns null when it is refused (the API's 402, 409), the refusal kept in `lastRefusal`. */
  place(request: OrderRequest): Placed | null {
    const outcome = this.placeOrRefuse(request);
    return 'placed' in outcome ? outcome.placed : null;
  }

  /** Places an order: what it did, or why it was refused. */
  placeOrRefuse(request: OrderRequest): { placed: Placed } | { refusal: Refusal } {
    const { userId, side, action, price, quantity } = request;
    const id = this.nextId++;
    const timeInForce = request.tif ?? (request.rest ? 'GTC' : 'IOC');
    const decision = this.apply(userId, {
      type: 'place',
      order: {
        id,
        optionId: request.optionId ?? OPTION_ID,
        userId,
        kind: request.tif || request.rest ? 'limit' : 'market',
        side,
        action,
        quantity,
        priceCents: price,
        timeInForce,
        postOnly: request.postOnly ?? false,
        expiresAt: timeInForce === 'GTD' ? (request.expiresAt ?? new Date(86_400_000)) : null,
        clientOrderId: null,
        placedBy: request.placedBy ?? null,
      },
    });
    const verdict = decision.verdicts[0] as Verdict;
    if (verdict.type === 'refused') return { refusal: verdict.refusal };
    if (verdict.type !== 'placed') throw new Error(`a place was answered ${verdict.type}`);
    const own = decision.trades.slice(verdict.trades.from, verdict.trades.to).filter((t) => t.orderId === id);
    return {
      placed: {
        id,
        order: verdict.order,
        fills: decision.fills,
        selfTradeCancelled: verdict.selfTradeCancelled,
        feeCents: own.reduce((sum, trade) => sum + trade.feeCents, 0),
      },
    };
  }

  /**
   * Amends an order (by default at its owner's request): its verdict, amended or refused. A replacement takes the
   * next id, which is used up whether or not it is placed.
   */
  amend(orderId: number, request: AmendRequest): Verdict {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`order ${orderId} is unknown`);
    const userId = request.userId ?? order.userId;
    const decision = this.apply(userId, {
      type: 'amend',
      optionId: order.optionId,
      orderId,
      userId,
      remainingQuantity: request.remainingQuantity ?? null,
      priceCents: request.priceCents ?? null,
      replacement: { id: this.nextId++, clientOrderId: null, placedBy: request.placedBy ?? null },
    });
    return decision.verdicts[0] as Verdict;
  }

  cancel(orderId: number): boolean {
    const order = this.orders.get(orderId);
    if (!order) return false;
    const decision = this.apply(order.userId, {
      type: 'cancel',
      optionId: order.optionId,
      orderId,
      userId: order.userId,
    });
    return decision.verdicts[0]?.type === 'ended';
  }

  /** A copy of the whole world (books, balances, positions, orders, house, pool) that later steps do not share. */
  clone(): World {
    const copy = new World(null, this.feeBps, this.optionIds, this.house?.clone() ?? null);
    for (const [optionId, state] of this.books) {
      const target = copy.books.get(optionId) as BookState;
      for (const resting of state.book.orders()) target.book.add({ ...resting });
      for (const [id, order] of state.orders) target.orders.set(id, order);
    }
    for (const [key, value] of this.balances) copy.balances.set(key, value);
    for (const [key, value] of this.positions) copy.positions.set(key, value);
    for (const [id, order] of this.orders) copy.orders.set(id, order);
    for (const [id, pairs] of this.pairs) copy.pairs.set(id, { ...pairs });
    copy.pool = this.pool ? { ...this.pool } : null;
    copy.nextId = this.nextId;
    return copy;
  }

  /** A conversion of an exclusive world; its verdict (converted, or refused with the reason). */
  convert(userId: number, kind: ConversionKind, quantity: number, optionIds: number[] = []): Verdict {
    const decision = this.apply(userId, {
      type: 'convert',
      id: this.nextId++,
      request: { kind, userId, quantity, optionIds },
    });
    return decision.verdicts[0] as Verdict;
  }

  openOrders(): OrderState[] {
    return [...this.orders.values()].filter(isResting);
  }

  /** What a key uses of its limits that span markets, read as the service reads it before a decision. */
  keyAccount(credential: string, limits: KeyLimits): KeyAccount {
    const open = this.openOrders().filter((order) => order.placedBy === credential);
    const held = open.reduce((sum, order) => sum + (order.action === 'BUY' ? order.reservedCents : 0), 0);
    return {
      limits,
      usage: { openOrders: open.length, dailyLossCents: (this.keyPaid.get(credential) ?? 0) + held },
    };
  }

  private countKeyTrades(decision: Decision): void {
    for (const trade of decision.trades) {
      const credential = (decision.orders.get(trade.orderId) ?? this.orders.get(trade.orderId))?.placedBy;
      if (!credential || !this.keyLimits.has(credential)) continue;
      const notional = trade.priceCents * trade.quantity;
      const paid = trade.action === 'BUY' ? notional + trade.feeCents : trade.feeCents - notional;
      this.keyPaid.set(credential, (this.keyPaid.get(credential) ?? 0) + paid);
    }
  }

  /**
   * Decides one instruction as the service does: its worst case set aside out of its user's cash first (refused
   * there when the cash cannot cover it), then decided with what was set aside, and what the decision gave back to
   * anyone (the unspent, proceeds, released collateral) taken back into their cash.
   */
  private apply(userId: number, instruction: Instruction): Decision {
    const need = this.worstCaseOf(userId, instruction);
    const step = holdCollateral(new Map([[userId, this.balance({ kind: 'cash', userId })]]), new Map(), [
      { userId, needs: [need] },
    ]);
    const held = step.verdicts[0]?.[0] as NeedVerdict;
    if ('refused' in held) {
      this.lastRefusal = { code: 'INSUFFICIENT_FUNDS', ...held.refused };
      return refusedBeforeDeciding(this.lastRefusal);
    }
    for (const entry of step.entries) this.post(entry);
    const decision = this.decideWith(userId, instruction, need.cents);
    this.takeBackTransit();
    return decision;
  }

  /** What the instruction may spend at worst, as the service sets it aside before the market decides. */
  worstCaseOf(userId: number, instruction: Instruction): CollateralNeed {
    if (instruction.type === 'place') return { cents: orderWorstCase(instruction.order, this.feeBps) };
    if (instruction.type === 'convert')
      return { cents: instruction.request.kind === 'split' ? splitCost(instruction.request.quantity) : 0 };
    if (instruction.type !== 'amend') return { cents: 0 };
    const order = this.orders.get(instruction.orderId);
    if (!order || order.userId !== userId || !isResting(order)) return { cents: 0 };
    const left = order.quantity - order.filledQuantity;
    const priceCents = instruction.priceCents ?? order.priceCents;
    const remaining = instruction.remainingQuantity ?? left;
    if (priceCents === order.priceCents && remaining <= left) return { cents: 0 };
    const replacement = { ...order, priceCents, quantity: remaining };
    return amendWorstCase(replacement, order.reservedCents, this.feeBps);
  }

  /** Every transit balance (what the decision gave back) taken back into its user's cash. */
  private takeBackTransit(): void {
    const returned = new Map<number, number>();
    for (const [key, cents] of this.balances) {
      const [kind, userId] = key.split(':');
      if (kind === 'transit' && cents !== 0) returned.set(Number(userId), cents);
    }
    const cash = new Map([...returned.keys()].map((id) => [id, this.balance({ kind: 'cash', userId: id })]));
    for (const entry of holdCollateral(cash, returned, []).entries) this.post(entry);
  }

  /** Decides an instruction with `held` cents set aside for it beforehand (in its user's transit account). */
  decideWith(userId: number, instruction: Instruction, held: number): Decision {
    const keys = new Map(
      [...this.keyLimits].map(([credential, limits]) => [credential, this.keyAccount(credential, limits)]),
    );
    const holdings = {
      keys,
      funds: new Map([[userId, held]]),
      positions: new Map(
        this.optionIds.flatMap((optionId) =>
          (['YES', 'NO'] as const).map(
            (side) => [positionKey(userId, optionId, side), this.position(userId, side, optionId)] as const,
          ),
        ),
      ),
    };
    this.lastRefusal = null;
    const decision = decide(
      this.books,
      {
        closed: null,
        conversionsClosed: null,
        house: this.house,
        exclusive: this.pool
          ? {
              eventId: EVENT_ID,
              optionIds: this.optionIds,
              pool: this.pool,
              lastYesPrices: new Map(this.optionIds.map((id) => [id, null])),
            }
          : null,
        feeBps: this.feeBps,
        now: new Date(0),
      },
      holdings,
      [instruction],
    );
    // What the service writes only when the decision says something changed must never be lost.
    const acted = decision.verdicts.some(
      (v) =>
        v.type === 'placed' ||
        v.type === 'converted' ||
        (v.type === 'ended' && v.orders.length > 0) ||
        (v.type === 'amended' && v.order !== v.previous),
    );
    if (acted && !decision.changed) throw new Error('a decision that acted says nothing changed');
    for (const entry of decision.entries) this.post(entry);
    this.countKeyTrades(decision);
    for (const [key, { userId: owner, optionId, side, changes }] of decision.positions) {
      this.positions.set(key, applyPositionChanges(this.position(owner, side, optionId), changes));
    }
    for (const order of decision.orders.values()) this.orders.set(order.id, order);
    for (const [optionId, { totals }] of decision.options) {
      const pairs = this.pairs.get(optionId) as { minted: number; merged: number };
      pairs.minted += totals.pairsMinted;
      pairs.merged += totals.pairsMerged;
    }
    if (decision.pool) this.pool = decision.pool;
    const verdict = decision.verdicts[0];
    if (verdict?.type === 'refused') this.lastRefusal = verdict.refusal;
    return decision;
  }
}

/** The decision of an instruction refused before any market saw it: nothing changed. */
function refusedBeforeDeciding(refusal: Refusal): Decision {
  return {
    verdicts: [{ type: 'refused', refusal }],
    orders: new Map(),
    newOrderIds: new Set(),
    fills: [],
    trades: [],
    entries: [],
    positions: new Map(),
    options: new Map(),
    pool: null,
    keys: new Map(),
    changed: false,
  };
}
