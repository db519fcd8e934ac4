import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConversionKind } from '../../src/exchange/conversions.js';
import { makerResults } from '../../src/exchange/house.js';
import { ammAskQuantity, ammBidQuantity, ammPrice } from '../../src/exchange/lmsr.js';
import { MAX_PRICE, MIN_PRICE, PAYOUT_CENTS, type Side } from '../../src/exchange/money.js';
import { settleOption, voidPayouts } from '../../src/exchange/settlement.js';
import { World } from './world.js';

/**
 * The exclusive event's core, property-tested: random order flows, cancels and conversions on events of 2..8
 * options, with and without a house maker, checked after every step against the rules of exclusive events.
 */

const USERS = [1, 2, 3, 4];
const FUNDS = 200_000;

type Step =
  | {
      type: 'order';
      user: number;
      option: number;
      side: Side;
      buy: boolean;
      price: number;
      quantity: number;
      rest: boolean;
    }
  | { type: 'cancel'; pick: number }
  | { type: 'convert'; user: number; kind: ConversionKind; quantity: number; given: number[] };

const stepArb = (options: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        type: fc.constant('order' as const),
        user: fc.constantFrom(...USERS),
        option: fc.integer({ min: 1, max: options }),
        side: fc.constantFrom<Side>('YES', 'NO'),
        buy: fc.boolean(),
        price: fc.integer({ min: 2, max: 98 }),
        quantity: fc.integer({ min: 1, max: 40 }),
        rest: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat() }) },
    {
      weight: 3,
      arbitrary: fc.record({
        type: fc.constant('convert' as const),
        user: fc.constantFrom(...USERS),
        kind: fc.constantFrom<ConversionKind>('convert', 'split', 'merge'),
        quantity: fc.integer({ min: 1, max: 20 }),
        given: fc.uniqueArray(fc.integer({ min: 1, max: options }), { minLength: 1, maxLength: options }),
      }),
    },
  );

const scenarioArb = fc
  .record({
    options: fc.integer({ min: 2, max: 8 }),
    liquidity: fc.constantFrom(0, 5_000, 40_000, 200_000),
    feeBps: fc.constantFrom(0, 0, 50),
  })
  .chain((shape) =>
    fc.record({ shape: fc.constant(shape), steps: fc.array(stepArb(shape.options), { maxLength: 40 }) }),
  );

/** What a user holds is worth, in cents, if option `winner` wins: cash, reserved, and what their shares pay. */
function worthIf(world: World, userId: number, winner: number): number {
  let cents = world.balance({ kind: 'cash', userId }) + world.balance({ kind: 'reserved', userId });
  for (const optionId of world.optionIds) {
    cents += world.position(userId, 'YES', optionId).quantity * (optionId === winner ? PAYOUT_CENTS : 0);
    cents += world.position(userId, 'NO', optionId).quantity * (optionId === winner ? 0 : PAYOUT_CENTS);
  }
  return cents;
}

function run(world: World, step: Step): void {
  if (step.type === 'order') {
    world.place({
      userId: step.user,
      optionId: step.option,
      side: step.side,
      action: step.buy ? 'BUY' : 'SELL',
      price: step.price,
      quantity: step.quantity,
      rest: step.rest,
    });
  } else if (step.type === 'cancel') {
    const open = world.openOrders();
    const order = open[step.pick % Math.max(1, open.length)];
    if (order) world.cancel(order.id);
  } else {
    const before = USERS.map((u) => world.optionIds.map((w) => worthIf(world, u, w)));
    const verdict = world.convert(step.user, step.kind, step.quantity, step.given);
    const after = USERS.map((u) => world.optionIds.map((w) => worthIf(world, u, w)));
    // Under every resolution with one winner, a conversion pays exactly what the shares it gave would have.
    expect(after).toEqual(before);
    if (verdict.type === 'converted' && step.kind === 'convert')
      expect(verdict.conversion.cashCents).toBe((step.given.length - 1) * PAYOUT_CENTS * step.quantity);
  }
}

function checkInvariants(world: World, liquidity: number): void {
  const n = world.optionIds.length;
  const pool = world.pool as { yesSets: number; noSets: number };
  for (const userId of USERS) {
    expect(world.balance({ kind: 'cash', userId })).toBeGreaterThanOrEqual(0);
    expect(world.balance({ kind: 'reserved', userId })).toBeGreaterThanOrEqual(0);
  }
  expect(Math.min(pool.yesSets, pool.noSets)).toBe(0);
  const cost = PAYOUT_CENTS * pool.yesSets + PAYOUT_CENTS * (n - 1) * pool.noSets;
  expect(world.balance({ kind: 'conversion', eventId: 1 }) + cost).toBe(0);
  for (const optionId of world.optionIds) {
    const maker = world.house?.quote(optionId);
    const count = (side: Side) =>
      USERS.reduce((sum, u) => sum + world.position(u, side, optionId).quantity, 0) +
      (side === 'YES' ? (maker?.yesShares ?? 0) + pool.yesSets : (maker?.noShares ?? 0) + pool.noSets);
    const pairs = (world.pairs.get(optionId)?.minted ?? 0) - (world.pairs.get(optionId)?.merged ?? 0);
    expect(count('YES')).toBe(pairs);
    expect(count('NO')).toBe(pairs);
    expect(world.balance({ kind: 'escrow', optionId })).toBe(PAYOUT_CENTS * pairs);
  }
  if (!world.house) return;
  // The house's chances add up to 100 %, and its quotes bracket them in every option.
  const chances = [...world.house.chances().values()];
  expect(chances.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 9);
  let bids = 0;
  let asks = 0;
  for (const optionId of world.optionIds) {
    const maker = world.house.quote(optionId);
    if (!maker) continue;
    const price = ammPrice(maker);
    const bid = bestTick(MAX_PRICE, -1, (t) => ammBidQuantity(maker, t));
    const ask = bestTick(MIN_PRICE, 1, (t) => ammAskQuantity(maker, t));
    if (bid !== null) expect(bid).toBeLessThanOrEqual(price + 1e-9);
    if (ask !== null) expect(ask).toBeGreaterThanOrEqual(price - 1e-9);
    bids += bid ?? MIN_PRICE - 1;
    asks += ask ?? MAX_PRICE + 1;
  }
  expect(bids).toBeLessThanOrEqual(PAYOUT_CENTS);
  expect(asks).toBeGreaterThanOrEqual(PAYOUT_CENTS);
  // Whatever option wins, the house loses at most b·ln n.
  const books = world.optionIds.map((optionId) => {
    const maker = world.house?.quote(optionId);
    return { cashCents: 0, yesShares: maker?.yesShares ?? 0, noShares: maker?.noShares ?? 0 };
  });
  (books[0] as { cashCents: number }).cashCents = world.balance({ kind: 'amm' });
  const worst = Math.min(...makerResults(books, true));
  expect(worst).toBeGreaterThanOrEqual(-liquidity * Math.log(n) - 1e-6);
}

/**
 * Voided, every option's YES share pays its part of 100 (`voidPayouts`) and its NO share the rest: escrow pays out
 * exactly what it holds, the conversion pool ends at zero, and the house maker is paid like any holder.
 */
function expectVoidPaysWhatEscrowHolds(world: World): void {
  const pool = world.pool as { yesSets: number; noSets: number };
  const payouts = voidPayouts(world.optionIds);
  let poolPaid = 0;
  for (const optionId of world.optionIds) {
    const maker = world.house?.quote(optionId);
    const holders = USERS.flatMap((userId) =>
      (['YES', 'NO'] as const).map((side) => ({
        userId,
        side,
        position: world.position(userId, side, optionId),
      })),
    ).filter((holder) => holder.position.quantity > 0);
    const settled = settleOption({
      optionId,
      eventId: 1,
      label: 'x',
      outcome: 'VOID',
      yesPayoutCents: payouts.get(optionId) as number,
      holders,
      house: { yesShares: maker?.yesShares ?? 0, noShares: maker?.noShares ?? 0 },
      pool: { yesShares: pool.yesSets, noShares: pool.noSets },
    });
    const escrowOut = settled.entry.postings.find((p) => p.account.kind === 'escrow')?.amount ?? 0;
    expect(world.balance({ kind: 'escrow', optionId }) + escrowOut).toBe(0);
    poolPaid += settled.poolPayoutCents;
  }
  expect(world.balance({ kind: 'conversion', eventId: 1 }) + poolPaid).toBe(0);
}

function bestTick(from: number, step: 1 | -1, quantity: (tick: number) => number): number | null {
  for (let tick = from; tick >= MIN_PRICE && tick <= MAX_PRICE; tick += step)
    if (quantity(tick) > 0) return tick;
  return null;
}

describe('exclusive events', () => {
  it('keep their promises through random trading and conversions: value, escrow, pool, chances, bounded house loss', () => {
    fc.assert(
      fc.property(scenarioArb, ({ shape, steps }) => {
        const world = World.exclusive(shape.options, shape.liquidity, shape.feeBps);
        for (const user of USERS) world.fund(user, FUNDS);
        for (const step of steps) {
          run(world, step);
          checkInvariants(world, shape.liquidity);
        }
        // Every resolution with one winner is paid in full from escrow, the pool ending at zero.
        const pool = world.pool as { yesSets: number; noSets: number };
        for (const winner of world.optionIds) {
          let owed = 0;
          for (const optionId of world.optionIds) {
            const maker = world.house?.quote(optionId);
            const yes = USERS.reduce((s, u) => s + world.position(u, 'YES', optionId).quantity, 0);
            const no = USERS.reduce((s, u) => s + world.position(u, 'NO', optionId).quantity, 0);
            const shares =
              optionId === winner
                ? yes + (maker?.yesShares ?? 0) + pool.yesSets
                : no + (maker?.noShares ?? 0) + pool.noSets;
            owed += PAYOUT_CENTS * shares;
          }
          const escrow = world.optionIds.reduce(
            (s, id) => s + world.balance({ kind: 'escrow', optionId: id }),
            0,
          );
          expect(owed).toBe(escrow);
          const poolPaid =
            PAYOUT_CENTS * pool.yesSets + PAYOUT_CENTS * (world.optionIds.length - 1) * pool.noSets;
          expect(world.balance({ kind: 'conversion', eventId: 1 }) + poolPaid).toBe(0);
        }
        expectVoidPaysWhatEscrowHolds(world);
      }),
      { numRuns: 150 },
    );
  });

  it('voided, pays a split back exactly what it cost: a complete set pays 100, as when one option wins', () => {
    for (const n of [2, 3, 7]) {
      const world = World.exclusive(n, 0);
      world.fund(1, FUNDS);
      expect(world.convert(1, 'split', 10).type).toBe('converted');
      const payouts = voidPayouts(world.optionIds);
      expect([...payouts.values()].reduce((sum, cents) => sum + cents, 0)).toBe(PAYOUT_CENTS);
      const paid = world.optionIds.reduce(
        (sum, optionId) =>
          sum + world.position(1, 'YES', optionId).quantity * (payouts.get(optionId) as number),
        0,
      );
      expect(world.balance({ kind: 'cash', userId: 1 }) + paid).toBe(FUNDS);
    }
  });

  it('moves every option’s house quotes after a fill in one of them', () => {
    const world = World.exclusive(4, 40_000);
    world.fund(1, FUNDS);
    const before = world.optionIds.map((id) => ammPrice(world.house?.quote(id) ?? never()));
    expect(before.reduce((s, p) => s + p, 0)).toBeCloseTo(100, 9);
    world.place({
      userId: 1,
      optionId: 1,
      side: 'YES',
      action: 'BUY',
      price: 60,
      quantity: 500,
      rest: false,
    });
    const after = world.optionIds.map((id) => ammPrice(world.house?.quote(id) ?? never()));
    expect(after[0]).toBeGreaterThan(before[0] as number);
    for (const i of [1, 2, 3]) expect(after[i]).toBeLessThan(before[i] as number);
    expect(after.reduce((s, p) => s + p, 0)).toBeCloseTo(100, 9);
  });

  it('converts NO on k options into YES on the others plus (k − 1) × 100 cents a unit', () => {
    const world = World.exclusive(3, 0);
    world.fund(1, FUNDS);
    expect(world.convert(1, 'split', 10).type).toBe('converted');
    expect(world.balance({ kind: 'cash', userId: 1 })).toBe(FUNDS - 1_000);
    for (const id of [1, 2, 3]) expect(world.position(1, 'YES', id).quantity).toBe(10);
    // Without NO shares nothing converts.
    expect(world.convert(1, 'convert', 5, [1])).toMatchObject({ refusal: { code: 'INSUFFICIENT_SHARES' } });
    expect(world.convert(1, 'merge', 4).type).toBe('converted');
    expect(world.balance({ kind: 'cash', userId: 1 })).toBe(FUNDS - 600);
    expect(world.convert(1, 'merge', 7)).toMatchObject({ refusal: { code: 'INSUFFICIENT_SHARES' } });
    expect(world.convert(1, 'convert', 1, [9])).toMatchObject({ refusal: { code: 'INVALID_CONVERSION' } });
  });
});

function never(): never {
  throw new Error('no house maker');
}
