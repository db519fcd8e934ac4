import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KeyLimits } from '../../src/exchange/key-limits.js';
import type { Side } from '../../src/exchange/money.js';
import { isResting } from '../../src/exchange/orders.js';
import { World } from './world.js';

/**
 * An API key's risk limits, property-tested on the one decision: random flows in which a key places, amends and
 * cancels orders while other traders fill them and cancel their own, in any order. After every step, what the key
 * has let through is within each limit, counted at worst from the world itself: no order of the key larger than its
 * largest order, no more resting than its open orders, no side of the option held (with every share its resting
 * purchases could still buy) past its position, and no more paid today (with what its resting purchases hold) than
 * its loss per day. Every refusal names a limit the order would in fact have passed.
 */

const KEY = 'apiKey:7';
const KEY_USER = 1;
const OTHERS = [2, 3];

type Step =
  | { type: 'key'; side: Side; action: 'BUY' | 'SELL'; price: number; quantity: number; rest: boolean }
  | { type: 'other'; user: number; side: Side; action: 'BUY'; price: number; quantity: number; rest: boolean }
  | { type: 'cancel'; pick: number }
  | { type: 'amend'; pick: number; price: number; quantity: number };

const side = fc.constantFrom<Side>('YES', 'NO');
const price = fc.integer({ min: 1, max: 99 });
const quantity = fc.integer({ min: 1, max: 30 });

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      type: fc.constant('key' as const),
      side,
      action: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'BUY', 'SELL'),
      price,
      quantity,
      rest: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('other' as const),
      user: fc.constantFrom(...OTHERS),
      side,
      action: fc.constant('BUY' as const),
      price,
      quantity,
      rest: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constant('amend' as const), pick: fc.nat(), price, quantity }),
  },
);

const maybe = (arbitrary: fc.Arbitrary<number>) => fc.option(arbitrary, { nil: null });
const limits: fc.Arbitrary<KeyLimits> = fc.record({
  maxOrderCents: maybe(fc.integer({ min: 1, max: 2_000 })),
  maxOpenOrders: maybe(fc.integer({ min: 0, max: 4 })),
  maxPositionShares: maybe(fc.integer({ min: 0, max: 40 })),
  maxDailyLossCents: maybe(fc.integer({ min: 0, max: 3_000 })),
});

function newWorld(feeBps: number, keyLimits: KeyLimits): World {
  const world = new World(null, feeBps);
  for (const user of [KEY_USER, ...OTHERS]) world.fund(user, 1_000_000);
  world.keyLimits.set(KEY, keyLimits);
  return world;
}

function run(world: World, s: Step): void {
  switch (s.type) {
    case 'key':
      world.place({
        userId: KEY_USER,
        side: s.side,
        action: s.action,
        price: s.price,
        quantity: s.quantity,
        rest: s.rest,
        placedBy: KEY,
      });
      return;
    case 'other':
      world.place({
        userId: s.user,
        side: s.side,
        action: s.action,
        price: s.price,
        quantity: s.quantity,
        rest: s.rest,
      });
      return;
    case 'cancel': {
      const open = world.openOrders();
      const order = open[s.pick % Math.max(1, open.length)];
      if (order) world.cancel(order.id);
      return;
    }
    case 'amend': {
      const own = world.openOrders().filter((order) => order.placedBy === KEY);
      const order = own[s.pick % Math.max(1, own.length)];
      if (order) world.amend(order.id, { priceCents: s.price, remainingQuantity: s.quantity, placedBy: KEY });
    }
  }
}

/** Checks every limit against the world, counted at worst. */
function expectWithin(world: World, keyLimits: KeyLimits): void {
  const resting = world.openOrders().filter((order) => order.placedBy === KEY);
  if (keyLimits.maxOpenOrders !== null) expect(resting.length).toBeLessThanOrEqual(keyLimits.maxOpenOrders);
  if (keyLimits.maxOrderCents !== null)
    for (const order of world.orders.values())
      if (order.placedBy === KEY)
        expect(order.priceCents * order.quantity).toBeLessThanOrEqual(keyLimits.maxOrderCents);
  if (keyLimits.maxPositionShares !== null)
    for (const s of ['YES', 'NO'] as const) {
      const buying = resting
        .filter((order) => order.action === 'BUY' && order.side === s)
        .reduce((sum, order) => sum + order.quantity - order.filledQuantity, 0);
      expect(world.position(KEY_USER, s).quantity + buying).toBeLessThanOrEqual(keyLimits.maxPositionShares);
    }
  if (keyLimits.maxDailyLossCents !== null)
    expect(world.keyAccount(KEY, keyLimits).usage.dailyLossCents).toBeLessThanOrEqual(
      keyLimits.maxDailyLossCents,
    );
}

describe('API key limits in the one decision', () => {
  it('never let through more than they say, in any order of fills, amends and cancels', () => {
    fc.assert(
      fc.property(
        limits,
        fc.constantFrom(0, 100),
        fc.array(step, { minLength: 1, maxLength: 60 }),
        (keyLimits, feeBps, steps) => {
          const world = newWorld(feeBps, keyLimits);
          for (const s of steps) {
            run(world, s);
            expectWithin(world, keyLimits);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuse an order only when it would pass a limit, and say which', () => {
    fc.assert(
      fc.property(limits, fc.array(step, { minLength: 1, maxLength: 40 }), (keyLimits, steps) => {
        const world = newWorld(0, keyLimits);
        for (const s of steps) {
          if (s.type !== 'key') {
            run(world, s);
            continue;
          }
          const before = world.keyAccount(KEY, keyLimits).usage;
          const held = world.position(KEY_USER, s.side).quantity;
          const buying = world
            .openOrders()
            .filter((o) => o.placedBy === KEY && o.action === 'BUY' && o.side === s.side && isResting(o))
            .reduce((sum, o) => sum + o.quantity - o.filledQuantity, 0);
          run(world, s);
          const refusal = world.lastRefusal;
          if (!refusal?.code.startsWith('KEY_')) continue;
          const cents = s.price * s.quantity;
          const over = {
            KEY_ORDER_TOO_LARGE: cents > (keyLimits.maxOrderCents ?? Infinity),
            KEY_OPEN_ORDERS_LIMIT: s.rest && before.openOrders + 1 > (keyLimits.maxOpenOrders ?? Infinity),
            KEY_POSITION_LIMIT: held + buying + s.quantity > (keyLimits.maxPositionShares ?? Infinity),
            KEY_DAILY_LOSS_LIMIT: before.dailyLossCents + cents > (keyLimits.maxDailyLossCents ?? Infinity),
          }[refusal.code as string];
          expect(over, JSON.stringify({ refusal, s, before })).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
