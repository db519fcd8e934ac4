import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Refusal, Verdict } from '../../src/exchange/decision.js';
import { ammAskQuantity, ammBidQuantity } from '../../src/exchange/lmsr.js';
import {
  type Action,
  feeCents,
  MAX_PRICE,
  MIN_PRICE,
  PAYOUT_CENTS,
  type Side,
} from '../../src/exchange/money.js';
import { type BookSide, toLadder } from '../../src/exchange/order-book.js';
import { isResting, type OrderState } from '../../src/exchange/orders.js';
import type { OrderRequest, Placed } from './world.js';
import { World } from './world.js';

/**
 * Time in force, post-only and amend, property-tested: random order flows of funded users (holding shares, so that
 * SELLs happen) on one option with or without a house maker, and on exclusive events, each step checked against what
 * its order type promises, checked against counts taken independently from the world's orders and house quotes, and
 * the world's invariants checked after every step.
 */

const USERS = [1, 2, 3, 4];
/** User 4 is short of cash: its orders and amends are often refused for it. */
const FUNDS = new Map([
  [1, 60_000],
  [2, 60_000],
  [3, 60_000],
  [4, 8_000],
]);

type OrderType = 'GTC' | 'GTD' | 'IOC' | 'FOK' | 'market';
type AmendMode = 'shrink' | 'grow' | 'huge' | 'reprice' | 'cross' | 'both' | 'same' | 'gone' | 'stranger';

type Step =
  | {
      type: 'order';
      user: number;
      option: number;
      side: Side;
      action: Action;
      price: number;
      quantity: number;
      orderType: OrderType;
      postOnly: boolean;
    }
  | { type: 'cancel'; pick: number }
  | { type: 'amend'; pick: number; mode: AmendMode; quantity: number; price: number };

type Shape =
  | { kind: 'plain'; feeBps: number }
  | { kind: 'house'; liquidity: number; feeBps: number }
  | { kind: 'exclusive'; options: number; liquidity: number; feeBps: number };

interface Mix {
  GTC: number;
  IOC: number;
  FOK: number;
  postOnly: number;
  market: number;
  cancel: number;
  amend: number;
}

/** Prices anywhere, and often near the middle, where orders meet each other and the house. */
const priceArb = fc.oneof(fc.integer({ min: MIN_PRICE, max: MAX_PRICE }), fc.integer({ min: 40, max: 60 }));

const orderArb = (orderTypes: OrderType[], postOnly: boolean): fc.Arbitrary<Step> =>
  fc.record({
    type: fc.constant('order' as const),
    user: fc.constantFrom(...USERS),
    option: fc.integer({ min: 1, max: 8 }),
    side: fc.constantFrom<Side>('YES', 'NO'),
    action: fc.constantFrom<Action>('BUY', 'SELL'),
    price: priceArb,
    quantity: fc.integer({ min: 1, max: 40 }),
    orderType: fc.constantFrom(...orderTypes),
    postOnly: fc.constant(postOnly),
  });

const amendArb: fc.Arbitrary<Step> = fc.record({
  type: fc.constant('amend' as const),
  pick: fc.nat(),
  mode: fc.constantFrom<AmendMode>(
    'shrink',
    'shrink',
    'grow',
    'huge',
    'reprice',
    'cross',
    'both',
    'same',
    'gone',
    'stranger',
  ),
  quantity: fc.nat({ max: 1_000 }),
  price: priceArb,
});

const stepArb = (mix: Mix): fc.Arbitrary<Step> =>
  fc.oneof(
    { weight: mix.GTC, arbitrary: orderArb(['GTC', 'GTD'], false) },
    { weight: mix.IOC, arbitrary: orderArb(['IOC'], false) },
    { weight: mix.FOK, arbitrary: orderArb(['FOK'], false) },
    { weight: mix.postOnly, arbitrary: orderArb(['GTC', 'GTD'], true) },
    { weight: mix.market, arbitrary: orderArb(['market'], false) },
    {
      weight: mix.cancel,
      arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat() }),
    },
    { weight: mix.amend, arbitrary: amendArb },
  );

const feeArb = fc.constantFrom(0, 0, 50);
const shapeArb: fc.Arbitrary<Shape> = fc.oneof(
  fc.record({ kind: fc.constant('plain' as const), feeBps: feeArb }),
  fc.record({
    kind: fc.constant('house' as const),
    liquidity: fc.constantFrom(2_000, 20_000, 100_000),
    feeBps: feeArb,
  }),
  fc.record({
    kind: fc.constant('exclusive' as const),
    options: fc.integer({ min: 2, max: 5 }),
    liquidity: fc.constantFrom(0, 5_000, 40_000),
    feeBps: feeArb,
  }),
);

const scenarioArb = (mix: Mix, maxSteps: number) =>
  fc.record({
    shape: shapeArb,
    steps: fc.array(stepArb(mix), { minLength: 1, maxLength: maxSteps, size: 'max' }),
  });

/** A funded world whose users hold YES and NO shares of every option (bought from each other, or the house). */
function worldOf(shape: Shape): World {
  const world =
    shape.kind === 'exclusive'
      ? World.exclusive(shape.options, shape.liquidity, shape.feeBps)
      : new World(
          shape.kind === 'house'
            ? { liquidityCents: shape.liquidity, offset: 0, yesShares: 0, noShares: 0 }
            : null,
          shape.feeBps,
        );
  for (const user of USERS) world.fund(user, FUNDS.get(user) as number);
  for (const optionId of world.optionIds) {
    for (const [a, b] of [
      [1, 2],
      [3, 4],
      [2, 1],
      [4, 3],
    ] as const) {
      const common = { optionId, price: 50, quantity: 30 };
      world.place({ ...common, userId: a, side: 'YES', action: 'BUY', rest: true });
      world.place({ ...common, userId: b, side: 'NO', action: 'BUY', rest: false });
    }
  }
  return world;
}

/** Tallies of the outcomes met, so that a property that never met one of its cases fails instead of passing idly. */
type Seen = Map<string, number>;

function note(seen: Seen, key: string): void {
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

function optionOf(world: World, option: number): number {
  return world.optionIds[(option - 1) % world.optionIds.length] as number;
}

function remainingOf(order: OrderState): number {
  return order.quantity - order.filledQuantity;
}

/** Whether a book price is at the order's limit or better for it (a bid takes asks at or below, an ask bids at or above). */
function acceptable(bookSide: BookSide, limit: number, price: number): boolean {
  return bookSide === 'bid' ? price <= limit : price >= limit;
}

interface Probe {
  optionId: number;
  userId: number;
  side: Side;
  action: Action;
  price: number;
}

/** The shares an order could take now, counted from the world's own records: others' resting orders and the house. */
function takeable(world: World, probe: Probe): number {
  const { bookSide, bookPrice } = toLadder(probe.side, probe.action, probe.price);
  let total = 0;
  for (const order of world.openOrders()) {
    if (order.optionId !== probe.optionId || order.bookSide === bookSide || order.userId === probe.userId)
      continue;
    if (acceptable(bookSide, bookPrice, order.bookPrice)) total += remainingOf(order);
  }
  const amm = world.house?.quote(probe.optionId);
  if (amm) {
    for (let price = MIN_PRICE; price <= MAX_PRICE; price++) {
      if (!acceptable(bookSide, bookPrice, price)) continue;
      total += bookSide === 'bid' ? ammAskQuantity(amm, price) : ammBidQuantity(amm, price);
    }
  }
  return total;
}

/** Whether the user's own resting orders sit where the order would take (never counted as takeable). */
function ownInTheWay(world: World, probe: Probe): boolean {
  const { bookSide, bookPrice } = toLadder(probe.side, probe.action, probe.price);
  return world
    .openOrders()
    .some(
      (order) =>
        order.optionId === probe.optionId &&
        order.bookSide !== bookSide &&
        order.userId === probe.userId &&
        acceptable(bookSide, bookPrice, order.bookPrice),
    );
}

/** Whether anything at all (the order's owner's own orders included, or a house quote) sits at its price or better. */
function meetsAnything(world: World, probe: Probe): boolean {
  const { bookSide, bookPrice } = toLadder(probe.side, probe.action, probe.price);
  for (const order of world.openOrders()) {
    if (order.optionId !== probe.optionId || order.bookSide === bookSide) continue;
    if (acceptable(bookSide, bookPrice, order.bookPrice)) return true;
  }
  const amm = world.house?.quote(probe.optionId);
  if (!amm) return false;
  for (let price = MIN_PRICE; price <= MAX_PRICE; price++) {
    if (!acceptable(bookSide, bookPrice, price)) continue;
    if ((bookSide === 'bid' ? ammAskQuantity(amm, price) : ammBidQuantity(amm, price)) > 0) return true;
  }
  return false;
}

/** Why the user cannot pay for `quantity` at `price` (cash with its fee for a BUY, free shares for a SELL), if so. */
function shortfall(
  world: World,
  probe: Probe,
  quantity: number,
  freed: { cents: number; shares: number } = { cents: 0, shares: 0 },
): Refusal | null {
  if (probe.action === 'BUY') {
    const notional = probe.price * quantity;
    const neededCents = notional + feeCents(notional, world.feeBps);
    const availableCents = world.balance({ kind: 'cash', userId: probe.userId }) + freed.cents;
    return availableCents < neededCents ? { code: 'INSUFFICIENT_FUNDS', neededCents, availableCents } : null;
  }
  const held = world.position(probe.userId, probe.side, probe.optionId);
  const available = held.quantity - held.reservedQuantity + freed.shares;
  return available < quantity ? { code: 'INSUFFICIENT_SHARES', needed: quantity, available } : null;
}

/**
 * The price of an order's own side that meets the best the other side (book or house) offers, `beyond` cents past
 * it; null when the other side is empty.
 */
function crossingPrice(world: World, order: OrderState, beyond: number): number | null {
  const amm = world.house?.quote(order.optionId) ?? null;
  const state = world.books.get(order.optionId);
  if (!state) throw new Error(`no option ${order.optionId}`);
  let best: number | null = null;
  for (let price = MIN_PRICE; price <= MAX_PRICE; price++) {
    const bookHas = state.book.level(order.bookSide === 'bid' ? 'ask' : 'bid', price).size > 0;
    const houseHas =
      amm !== null &&
      (order.bookSide === 'bid' ? ammAskQuantity(amm, price) : ammBidQuantity(amm, price)) > 0;
    if (!bookHas && !houseHas) continue;
    if (order.bookSide === 'bid') {
      best = price;
      break;
    }
    best = price;
  }
  if (best === null) return null;
  const yesPrice = Math.min(
    MAX_PRICE,
    Math.max(MIN_PRICE, best + (order.bookSide === 'bid' ? beyond : -beyond)),
  );
  return order.side === 'YES' ? yesPrice : PAYOUT_CENTS - yesPrice;
}

/** The ids resting at one price of one option, in time order. */
function levelIds(world: World, optionId: number, side: BookSide, price: number): number[] {
  const state = world.books.get(optionId);
  if (!state) throw new Error(`no option ${optionId}`);
  return [...state.book.level(side, price).each()].map((order) => order.id);
}

/** Everything the world holds, to compare before and after; `normal` rewrites orders where two worlds may differ. */
function snapshot(world: World, normal: (order: OrderState) => OrderState = (order) => order) {
  const byKey = <V>(entries: Iterable<[string, V]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
  const byId = (orders: Iterable<OrderState>) => [...orders].map(normal).sort((a, b) => a.id - b.id);
  return {
    balances: byKey([...world.balances].filter(([, amount]) => amount !== 0)),
    positions: byKey(world.positions),
    orders: byId(world.orders.values()),
    books: world.optionIds.map((optionId) => {
      const state = world.books.get(optionId);
      if (!state) throw new Error(`no option ${optionId}`);
      const levels = [...state.book.occupied()].map(({ side, priceCents }) => ({
        side,
        priceCents,
        orders: [...state.book.level(side, priceCents).each()].map((o) => [o.id, o.remaining]),
        quantity: state.book.at(side, priceCents).quantity,
      }));
      return { levels, orders: byId(state.orders.values()) };
    }),
    house: world.optionIds.map((optionId) => {
      const quote = world.house?.quote(optionId);
      return quote ? { ...quote } : null;
    }),
    pool: world.pool ? { ...world.pool } : null,
    pairs: [...world.pairs].map(([id, pairs]) => [id, { ...pairs }]),
  };
}

function expectPlaced(outcome: { placed: Placed } | { refusal: Refusal }): Placed {
  if (!('placed' in outcome)) throw new Error(`refused: ${JSON.stringify(outcome.refusal)}`);
  return outcome.placed;
}

function expectRefused(outcome: { placed: Placed } | { refusal: Refusal }): Refusal {
  if (!('refusal' in outcome)) throw new Error(`placed as ${outcome.placed.order.status}`);
  return outcome.refusal;
}

/** Whether a placed order is on its book as the last order of its level, with what is left of it. */
function expectLastInLevel(world: World, order: OrderState): void {
  const ids = levelIds(world, order.optionId, order.bookSide, order.bookPrice);
  expect(ids[ids.length - 1]).toBe(order.id);
  expect(world.books.get(order.optionId)?.book.get(order.id)?.remaining).toBe(remainingOf(order));
}

function expectOffBook(world: World, order: OrderState): void {
  expect(world.books.get(order.optionId)?.book.has(order.id)).toBe(false);
  expect(world.books.get(order.optionId)?.orders.has(order.id)).toBe(false);
}

function runOrder(world: World, step: Extract<Step, { type: 'order' }>, seen: Seen): void {
  const { orderType } = step;
  const optionId = optionOf(world, step.option);
  const rests = orderType === 'GTC' || orderType === 'GTD';
  const request: OrderRequest = {
    userId: step.user,
    optionId,
    side: step.side,
    action: step.action,
    price: step.price,
    quantity: step.quantity,
    rest: rests,
    postOnly: step.postOnly && rests,
    ...(orderType === 'market' ? {} : { tif: orderType }),
  };
  const probe: Probe = {
    optionId,
    userId: step.user,
    side: step.side,
    action: step.action,
    price: step.price,
  };
  const before = snapshot(world);
  const available = takeable(world, probe);
  const meets = meetsAnything(world, probe);
  const short = shortfall(world, probe, step.quantity);
  // The same order, immediate or cancel, on a copy of the world: what a FOK fills when it fills.
  const twin = orderType === 'FOK' ? world.clone() : null;
  const outcome = world.placeOrRefuse(request);
  const label = request.postOnly ? 'postOnly' : orderType;

  if (short) {
    expect(expectRefused(outcome)).toEqual(short);
    expect(world.lastRefusal).toEqual(short);
    expect(snapshot(world)).toEqual(before);
    note(seen, `${label}:short`);
    return;
  }
  const expectedFill = Math.min(step.quantity, available);

  if (request.postOnly) {
    if (meets) {
      expect(expectRefused(outcome)).toEqual({ code: 'POST_ONLY_WOULD_TAKE' });
      expect(snapshot(world)).toEqual(before);
      note(seen, available === 0 ? 'postOnly:refused:own' : 'postOnly:refused');
      return;
    }
    const placed = expectPlaced(outcome);
    expect(placed.fills).toEqual([]);
    expect(placed.selfTradeCancelled).toEqual([]);
    expect(placed.order).toMatchObject({ status: 'open', filledQuantity: 0, postOnly: true });
    expect(placed.order.reservedCents).toBe(step.action === 'BUY' ? step.price * step.quantity : 0);
    expect(placed.order.bookPrice).toBe(toLadder(step.side, step.action, step.price).bookPrice);
    expectLastInLevel(world, placed.order);
    const after = snapshot(world);
    expect(after.house).toEqual(before.house);
    expect(after.pairs).toEqual(before.pairs);
    note(seen, 'postOnly:rested');
    return;
  }

  if (orderType === 'FOK') {
    const ioc = expectPlaced((twin as World).placeOrRefuse({ ...request, tif: 'IOC' }));
    expect(ioc.order.filledQuantity).toBe(expectedFill);
    if (available < step.quantity) {
      expect(expectRefused(outcome)).toEqual({ code: 'FOK_NOT_FILLED', fillableQuantity: available });
      expect(snapshot(world)).toEqual(before);
      note(seen, ownInTheWay(world, probe) ? 'FOK:refused:own' : 'FOK:refused');
      return;
    }
    const placed = expectPlaced(outcome);
    expect(placed.order).toMatchObject({
      status: 'filled',
      filledQuantity: step.quantity,
      reservedCents: 0,
      timeInForce: 'FOK',
    });
    expectOffBook(world, placed.order);
    // It did exactly what the immediate-or-cancel order did on the copy.
    const asIoc = (order: OrderState): OrderState =>
      order.id === placed.id ? { ...order, timeInForce: 'IOC' } : order;
    expect(snapshot(world, asIoc)).toEqual(snapshot(twin as World));
    note(seen, 'FOK:filled');
    return;
  }

  if (orderType === 'market' && available === 0) {
    expect(expectRefused(outcome)).toEqual({ code: 'NO_LIQUIDITY' });
    expect(snapshot(world)).toEqual(before);
    note(seen, 'market:no_liquidity');
    return;
  }

  const placed = expectPlaced(outcome);
  const { order } = placed;
  expect(order.filledQuantity).toBe(expectedFill);
  expect(placed.fills.reduce((sum, fill) => sum + fill.quantity, 0)).toBe(expectedFill);
  expect(world.orders.get(order.id)).toEqual(order);
  if (rests) {
    if (expectedFill < step.quantity) {
      expect(order.status).toBe(expectedFill > 0 ? 'partially_filled' : 'open');
      expect(order.reservedCents).toBe(step.action === 'BUY' ? step.price * remainingOf(order) : 0);
      expectLastInLevel(world, order);
    } else {
      expect(order.status).toBe('filled');
      expectOffBook(world, order);
    }
    note(seen, `${orderType}:${order.status}`);
    return;
  }
  // Immediate or cancel (a limit order, or a market order): never rests, whatever filled.
  expectOffBook(world, order);
  expect(order.reservedCents).toBe(0);
  expect(isResting(order)).toBe(false);
  if (expectedFill === step.quantity) expect(order).toMatchObject({ status: 'filled', cancelReason: null });
  else expect(order).toMatchObject({ status: 'cancelled', cancelReason: 'unfilled_remainder' });
  note(seen, `${orderType}:${order.status}${expectedFill === 0 ? ':empty' : ''}`);
}

function runCancel(world: World, step: Extract<Step, { type: 'cancel' }>, seen: Seen): void {
  const open = world.openOrders();
  const order = open[step.pick % Math.max(1, open.length)];
  if (!order) return;
  expect(world.cancel(order.id)).toBe(true);
  expect(world.orders.get(order.id)).toMatchObject({
    status: 'cancelled',
    cancelReason: 'cancelled_by_user',
    reservedCents: 0,
  });
  expectOffBook(world, order);
  note(seen, 'cancel');
}

function runAmend(world: World, step: Extract<Step, { type: 'amend' }>, seen: Seen): void {
  if (step.mode === 'gone') {
    const ended = [...world.orders.values()].filter((order) => !isResting(order));
    const order = ended[step.pick % Math.max(1, ended.length)];
    if (!order) return;
    const before = snapshot(world);
    const verdict = world.amend(order.id, { remainingQuantity: 1 + (step.quantity % 40) });
    expect(verdict).toEqual({ type: 'refused', refusal: { code: 'ORDER_NOT_OPEN' } });
    expect(snapshot(world)).toEqual(before);
    note(seen, 'amend:gone');
    return;
  }
  const open = world.openOrders();
  // More shares than a BUY's owner can pay for: asked of BUY orders, when there are.
  const buys = open.filter((o) => o.action === 'BUY');
  const pool = step.mode === 'huge' && buys.length > 0 ? buys : open;
  const order = pool[step.pick % Math.max(1, pool.length)];
  if (!order) return;
  const left = remainingOf(order);
  const before = snapshot(world);

  if (step.mode === 'stranger') {
    const stranger = USERS[(USERS.indexOf(order.userId) + 1 + (step.quantity % 3)) % USERS.length] as number;
    const verdict = world.amend(order.id, { userId: stranger, remainingQuantity: 1 });
    expect(verdict).toEqual({ type: 'refused', refusal: { code: 'ORDER_NOT_OPEN' } });
    expect(snapshot(world)).toEqual(before);
    note(seen, 'amend:stranger');
    return;
  }

  let remainingQuantity: number | undefined;
  let priceCents: number | undefined;
  switch (step.mode) {
    case 'shrink':
      remainingQuantity = left > 1 ? 1 + (step.quantity % (left - 1)) : left;
      break;
    case 'grow':
      remainingQuantity = left + 1 + (step.quantity % 60);
      break;
    case 'huge':
      remainingQuantity = left + 5_000 + step.quantity;
      break;
    case 'reprice':
      priceCents = step.price;
      break;
    case 'cross':
      // To the best price on the other side (book or house), or beyond it: it would trade there.
      priceCents = crossingPrice(world, order, step.quantity % 3) ?? step.price;
      break;
    case 'both':
      priceCents = step.price;
      remainingQuantity = 1 + (step.quantity % 40);
      break;
    case 'same':
      if (step.quantity % 2 === 1) remainingQuantity = left;
      if (step.quantity % 3 !== 0) priceCents = order.priceCents;
      break;
  }
  const newRemaining = remainingQuantity ?? left;
  const newPrice = priceCents ?? order.priceCents;
  const probe: Probe = {
    optionId: order.optionId,
    userId: order.userId,
    side: order.side,
    action: order.action,
    price: newPrice,
  };
  const levelBefore = levelIds(world, order.optionId, order.bookSide, order.bookPrice);
  const available = takeable(world, probe);
  const meets = meetsAnything(world, probe);
  const short = shortfall(world, probe, newRemaining, { cents: order.reservedCents, shares: left });
  // What the replacement is to do: as the order cancelled and then the same one placed at once, on a copy.
  const twin = world.clone();

  const verdict: Verdict = world.amend(order.id, { remainingQuantity, priceCents });

  if (newPrice === order.priceCents && newRemaining === left) {
    expect(verdict.type).toBe('amended');
    if (verdict.type !== 'amended') return;
    expect(verdict.order).toBe(verdict.previous);
    expect(verdict.replacement).toBeNull();
    expect(snapshot(world)).toEqual(before);
    note(seen, 'amend:unchanged');
    return;
  }

  if (newPrice === order.priceCents && newRemaining < left) {
    // Shrunk where it stands: same place in its level, what it no longer needs given back.
    const cut = left - newRemaining;
    expect(verdict).toMatchObject({ type: 'amended', replacement: null, previous: order });
    const after = world.orders.get(order.id) as OrderState;
    expect(verdict.type === 'amended' && verdict.order).toEqual(after);
    expect(after).toEqual({
      ...order,
      quantity: order.quantity - cut,
      reservedCents: order.action === 'BUY' ? order.priceCents * newRemaining : 0,
    });
    expect(levelIds(world, order.optionId, order.bookSide, order.bookPrice)).toEqual(levelBefore);
    expect(world.books.get(order.optionId)?.book.get(order.id)?.remaining).toBe(newRemaining);
    const released = order.reservedCents - after.reservedCents;
    expect(world.balance({ kind: 'cash', userId: order.userId })).toBe(
      twin.balance({ kind: 'cash', userId: order.userId }) + released,
    );
    expect(world.balance({ kind: 'reserved', userId: order.userId })).toBe(
      twin.balance({ kind: 'reserved', userId: order.userId }) - released,
    );
    const held = twin.position(order.userId, order.side, order.optionId);
    expect(world.position(order.userId, order.side, order.optionId)).toEqual({
      ...held,
      reservedQuantity: held.reservedQuantity - (order.action === 'SELL' ? cut : 0),
    });
    const after2 = snapshot(world);
    expect(after2.house).toEqual(before.house);
    expect(after2.pairs).toEqual(before.pairs);
    note(seen, `amend:shrunk:${order.action}`);
    return;
  }

  // A new price, or more shares: replaced, unless the replacement cannot be placed.
  const refusal = short ?? (order.postOnly && meets ? ({ code: 'POST_ONLY_WOULD_TAKE' } as const) : null);
  twin.cancel(order.id);
  const twinOutcome = twin.placeOrRefuse({
    userId: order.userId,
    optionId: order.optionId,
    side: order.side,
    action: order.action,
    price: newPrice,
    quantity: newRemaining,
    rest: true,
    tif: order.timeInForce,
    postOnly: order.postOnly,
    ...(order.expiresAt ? { expiresAt: order.expiresAt } : {}),
  });
  if (refusal) {
    expect(verdict).toEqual({ type: 'refused', refusal });
    expect(expectRefused(twinOutcome)).toEqual(refusal);
    expect(snapshot(world)).toEqual(before);
    note(seen, `amend:refused:${refusal.code}`);
    return;
  }
  if (verdict.type !== 'amended') throw new Error(`amend answered ${JSON.stringify(verdict)}`);
  const { previous, order: replacement } = verdict;
  expect(previous).toEqual({ ...order, status: 'cancelled', cancelReason: 'replaced', reservedCents: 0 });
  expect(world.orders.get(order.id)).toEqual(previous);
  expectOffBook(world, order);
  expect(verdict.replacement?.order).toEqual(replacement);
  expect(replacement.id).toBeGreaterThan(order.id);
  expect(replacement).toMatchObject({
    replacesOrderId: order.id,
    optionId: order.optionId,
    userId: order.userId,
    kind: order.kind,
    side: order.side,
    action: order.action,
    timeInForce: order.timeInForce,
    postOnly: order.postOnly,
    expiresAt: order.expiresAt,
    priceCents: newPrice,
    quantity: newRemaining,
    filledQuantity: Math.min(newRemaining, available),
  });
  if (order.postOnly) expect(replacement.filledQuantity).toBe(0);
  if (isResting(replacement)) expectLastInLevel(world, replacement);
  else expectOffBook(world, replacement);
  expect(world.orders.get(replacement.id)).toEqual(replacement);
  // Nothing else differs from cancelling the order and placing the replacement as a new order.
  const twinPlaced = expectPlaced(twinOutcome);
  expect(twinPlaced.id).toBe(replacement.id);
  const asTwin = (o: OrderState): OrderState =>
    o.id === order.id
      ? { ...o, cancelReason: 'cancelled_by_user' }
      : o.id === replacement.id
        ? { ...o, replacesOrderId: null }
        : o;
  expect(snapshot(world, asTwin)).toEqual(snapshot(twin));
  note(seen, `amend:replaced:${replacement.filledQuantity > 0 ? 'crossed' : 'rested'}`);
}

function run(world: World, step: Step, seen: Seen): void {
  if (step.type === 'order') runOrder(world, step, seen);
  else if (step.type === 'cancel') runCancel(world, step, seen);
  else runAmend(world, step, seen);
}

/**
 * What holds after every step: the ledger balances, collateral matches the resting orders, shares are paired, the
 * books hold exactly the resting orders. Checked in plain code and asserted once (what breaks is listed).
 */
function checkInvariants(world: World): void {
  const broken: string[] = [];
  const check = (holds: boolean, what: () => string) => {
    if (!holds) broken.push(what());
  };
  let total = 0;
  for (const amount of world.balances.values()) total += amount;
  check(total === 0, () => `the postings sum to ${total}`);
  const open = world.openOrders();
  for (const userId of USERS) {
    const cash = world.balance({ kind: 'cash', userId });
    check(cash >= 0, () => `user ${userId} has ${cash} in cash`);
    const buys = open.filter((o) => o.userId === userId && o.action === 'BUY');
    for (const o of buys)
      check(
        o.reservedCents === o.priceCents * remainingOf(o),
        () => `order ${o.id} holds ${o.reservedCents}`,
      );
    const reserved = world.balance({ kind: 'reserved', userId });
    const collateral = buys.reduce((s, o) => s + o.reservedCents, 0);
    check(reserved === collateral, () => `user ${userId} has ${reserved} reserved for ${collateral}`);
    for (const optionId of world.optionIds) {
      for (const side of ['YES', 'NO'] as const) {
        const held = world.position(userId, side, optionId);
        const selling = open
          .filter(
            (o) => o.userId === userId && o.optionId === optionId && o.side === side && o.action === 'SELL',
          )
          .reduce((s, o) => s + remainingOf(o), 0);
        check(
          held.reservedQuantity === selling && held.quantity >= held.reservedQuantity,
          () => `user ${userId} holds ${JSON.stringify(held)} of ${side} ${optionId}, selling ${selling}`,
        );
      }
    }
  }
  for (const o of open)
    check(o.timeInForce === 'GTC' || o.timeInForce === 'GTD', () => `order ${o.id} (${o.timeInForce}) rests`);
  const pool = world.pool ?? { yesSets: 0, noSets: 0 };
  for (const optionId of world.optionIds) {
    // The book holds exactly the resting orders, each with what is left of it, and is not crossed.
    const state = world.books.get(optionId);
    if (!state) throw new Error(`no option ${optionId}`);
    const resting = open.filter((o) => o.optionId === optionId);
    check(state.book.size === resting.length, () => `book ${optionId} holds ${state.book.size} orders`);
    for (const o of resting) {
      check(state.book.get(o.id)?.remaining === remainingOf(o), () => `order ${o.id} is off its book`);
      check(
        JSON.stringify(state.orders.get(o.id)) === JSON.stringify(o),
        () => `order ${o.id} differs in its book state`,
      );
    }
    const bid = state.book.bestBid();
    const ask = state.book.bestAsk();
    check(bid === null || ask === null || bid < ask, () => `book ${optionId} is crossed: ${bid} / ${ask}`);
    // YES outstanding = NO outstanding = pairs minted less merged, each pair's 100 cents in escrow.
    const maker = world.house?.quote(optionId);
    const count = (side: Side) =>
      USERS.reduce((sum, u) => sum + world.position(u, side, optionId).quantity, 0) +
      (side === 'YES' ? (maker?.yesShares ?? 0) + pool.yesSets : (maker?.noShares ?? 0) + pool.noSets);
    const pairs = (world.pairs.get(optionId)?.minted ?? 0) - (world.pairs.get(optionId)?.merged ?? 0);
    const escrow = world.balance({ kind: 'escrow', optionId });
    check(
      count('YES') === pairs && count('NO') === pairs && escrow === PAYOUT_CENTS * pairs,
      () => `option ${optionId}: ${count('YES')} YES, ${count('NO')} NO, ${pairs} pairs, ${escrow} in escrow`,
    );
  }
  expect(broken).toEqual([]);
}

/** Runs random flows of this mix, every step checked; fails when a case of `expected` was never met. */
function assertFlows(mix: Mix, numRuns: number, expected: string[], maxSteps = 30): void {
  const seen: Seen = new Map();
  fc.assert(
    fc.property(scenarioArb(mix, maxSteps), ({ shape, steps }) => {
      const world = worldOf(shape);
      checkInvariants(world);
      for (const step of steps) {
        run(world, step, seen);
        checkInvariants(world);
      }
    }),
    { numRuns },
  );
  for (const key of expected)
    expect(seen.get(key) ?? 0, `cases met: ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
}

/** Runs of each property (flows of up to 30 steps; the mixed one up to 50): some 7 s for the file in all. */
const RUNS = 120;
const MIXED_RUNS = 80;

const QUIET: Mix = { GTC: 0, IOC: 0, FOK: 0, postOnly: 0, market: 0, cancel: 0, amend: 0 };

describe('order types', () => {
  it('fill or kill fills whole or leaves the world untouched, exactly as what is takeable says', () => {
    assertFlows({ ...QUIET, GTC: 4, FOK: 4, IOC: 1, cancel: 1 }, RUNS, [
      'FOK:refused',
      'FOK:filled',
      'FOK:short',
    ]);
  });

  it('post-only never takes: refused when anything sits at its price or better, else it rests untouched', () => {
    assertFlows({ ...QUIET, GTC: 3, postOnly: 4, market: 1, cancel: 1 }, RUNS, [
      'postOnly:refused',
      'postOnly:rested',
    ]);
  });

  it('immediate or cancel never rests, and takes all it can', () => {
    assertFlows({ ...QUIET, GTC: 4, IOC: 4, market: 2, cancel: 1 }, RUNS, [
      'IOC:filled',
      'IOC:cancelled',
      'IOC:cancelled:empty',
      'market:no_liquidity',
    ]);
  });

  it('amend keeps time priority exactly when it shrinks at the same price, else replaces the order at the back', () => {
    assertFlows({ ...QUIET, GTC: 3, postOnly: 3, IOC: 1, cancel: 1, amend: 6 }, RUNS, [
      'amend:unchanged',
      'amend:shrunk:BUY',
      'amend:shrunk:SELL',
      'amend:replaced:rested',
      'amend:replaced:crossed',
      'amend:refused:INSUFFICIENT_FUNDS',
      'amend:refused:POST_ONLY_WOULD_TAKE',
      'amend:gone',
      'amend:stranger',
    ]);
  });

  it('keeps the ledger, the collateral and the pairs whole through any mix of order types, cancels and amends', () => {
    assertFlows(
      { GTC: 3, IOC: 2, FOK: 2, postOnly: 2, market: 1, cancel: 1, amend: 3 },
      MIXED_RUNS,
      ['FOK:filled', 'FOK:refused', 'postOnly:rested', 'amend:shrunk:BUY', 'amend:replaced:rested'],
      50,
    );
  });
});

describe('order types, by example', () => {
  function world(): World {
    const w = new World(null);
    for (const user of USERS) w.fund(user, 100_000);
    return w;
  }

  it('fill or kill never counts the taker’s own orders, and leaves them resting when refused', () => {
    const w = world();
    const own = w.place({ userId: 1, side: 'NO', action: 'BUY', price: 40, quantity: 10, rest: true })!;
    w.place({ userId: 2, side: 'NO', action: 'BUY', price: 45, quantity: 5, rest: true });
    const fok = { userId: 1, side: 'YES', action: 'BUY', price: 60, quantity: 10, rest: false } as const;
    expect(w.placeOrRefuse({ ...fok, tif: 'FOK' })).toEqual({
      refusal: { code: 'FOK_NOT_FILLED', fillableQuantity: 5 },
    });
    expect(w.lastRefusal).toEqual({ code: 'FOK_NOT_FILLED', fillableQuantity: 5 });
    expect(w.book.has(own.id)).toBe(true);
    const filled = expectPlaced(w.placeOrRefuse({ ...fok, quantity: 5, tif: 'FOK' }));
    expect(filled.order).toMatchObject({ status: 'filled', filledQuantity: 5 });
    expect(w.book.has(own.id)).toBe(true);
    expect(w.place({ ...fok, quantity: 1, tif: 'FOK' })).toBeNull();
    expect(w.lastRefusal).toEqual({ code: 'FOK_NOT_FILLED', fillableQuantity: 0 });
    expect(w.book.has(own.id)).toBe(true);
  });

  it('post-only is refused by the user’s own order at its price, and rests one cent short of it', () => {
    const w = world();
    w.place({ userId: 1, side: 'NO', action: 'BUY', price: 40, quantity: 10, rest: true });
    const bid = { userId: 1, side: 'YES', action: 'BUY', quantity: 10, rest: true, postOnly: true } as const;
    expect(w.placeOrRefuse({ ...bid, price: 60 })).toEqual({ refusal: { code: 'POST_ONLY_WOULD_TAKE' } });
    const rested = expectPlaced(w.placeOrRefuse({ ...bid, price: 59, tif: 'GTD' }));
    expect(rested.order).toMatchObject({
      status: 'open',
      timeInForce: 'GTD',
      postOnly: true,
      reservedCents: 590,
    });
  });

  it('an amend shrinking at the same price keeps the order’s place; one growing or repricing goes to the back', () => {
    const w = world();
    const bid = { side: 'YES', action: 'BUY', price: 50, quantity: 10, rest: true } as const;
    const [a, b, c] = [1, 2, 3].map((userId) => w.place({ ...bid, userId })!.id) as [number, number, number];
    const shrunk = w.amend(b, { remainingQuantity: 4 });
    expect(shrunk).toMatchObject({ type: 'amended', replacement: null, order: { id: b, quantity: 4 } });
    expect(levelIds(w, 1, 'bid', 50)).toEqual([a, b, c]);
    expect(w.balance({ kind: 'reserved', userId: 2 })).toBe(200);
    const grown = w.amend(b, { remainingQuantity: 6 });
    if (grown.type !== 'amended') throw new Error('refused');
    expect(grown.previous).toMatchObject({ id: b, status: 'cancelled', cancelReason: 'replaced' });
    expect(grown.order).toMatchObject({ replacesOrderId: b, quantity: 6, status: 'open' });
    expect(levelIds(w, 1, 'bid', 50)).toEqual([a, c, grown.order.id]);
    const repriced = w.amend(a, { priceCents: 51 });
    if (repriced.type !== 'amended') throw new Error('refused');
    expect(levelIds(w, 1, 'bid', 51)).toEqual([repriced.order.id]);
    expect(w.amend(c, { priceCents: 50, remainingQuantity: 10 })).toMatchObject({
      type: 'amended',
      replacement: null,
    });
    // What the order holds counts as available: 99,500 in cash and 500 reserved.
    expect(w.amend(c, { remainingQuantity: 2_001 })).toEqual({
      type: 'refused',
      refusal: { code: 'INSUFFICIENT_FUNDS', neededCents: 100_050, availableCents: 100_000 },
    });
    expect(levelIds(w, 1, 'bid', 50)).toEqual([c, grown.order.id]);
  });
});
