import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ammAskQuantity, ammBidQuantity, maxLossCents } from '../../src/exchange/lmsr.js';
import { MAX_PRICE, MIN_PRICE, PAYOUT_CENTS, type Side, sidePrice } from '../../src/exchange/money.js';
import { toLadder } from '../../src/exchange/order-book.js';
import { OPTION_ID, World } from './world.js';

const USERS = [1, 2, 3, 4, 5];
const STARTING_CASH = 50_000;

const orderArb = fc.record({
  type: fc.constant('order' as const),
  userId: fc.constantFrom(...USERS),
  side: fc.constantFrom<Side>('YES', 'NO'),
  action: fc.constantFrom('BUY' as const, 'SELL' as const),
  price: fc.integer({ min: MIN_PRICE, max: MAX_PRICE }),
  quantity: fc.integer({ min: 1, max: 60 }),
  rest: fc.boolean(),
});
const cancelArb = fc.record({ type: fc.constant('cancel' as const), pick: fc.nat() });
const streamArb = fc.array(
  fc.oneof({ weight: 5, arbitrary: orderArb }, { weight: 1, arbitrary: cancelArb }),
  {
    minLength: 1,
    maxLength: 120,
  },
);
const ammArb = fc.option(fc.integer({ min: 1_000, max: 200_000 }), { nil: null });

function bestPrices(world: World) {
  let bestBid = world.book.bestBid() ?? 0;
  let bestAsk = world.book.bestAsk() ?? PAYOUT_CENTS;
  if (world.amm) {
    for (let p = MAX_PRICE; p >= MIN_PRICE; p--) {
      if (ammBidQuantity(world.amm, p) > 0) {
        bestBid = Math.max(bestBid, p);
        break;
      }
    }
    for (let p = MIN_PRICE; p <= MAX_PRICE; p++) {
      if (ammAskQuantity(world.amm, p) > 0) {
        bestAsk = Math.min(bestAsk, p);
        break;
      }
    }
  }
  return { bestBid, bestAsk };
}

function newWorld(liquidity: number | null, feeBps: number) {
  const world = new World(
    liquidity ? { liquidityCents: liquidity, offset: 0, yesShares: 0, noShares: 0 } : null,
    feeBps,
  );
  for (const user of USERS) world.fund(user, STARTING_CASH);
  return world;
}

describe('matching engine properties', () => {
  it('never leaves the book crossed, fills within limits by price-time priority, and conserves cash and shares', () => {
    fc.assert(
      fc.property(ammArb, streamArb, fc.constantFrom(0, 0, 25), (liquidity, stream, feeBps) => {
        const world = newWorld(liquidity, feeBps);
        for (const step of stream) {
          if (step.type === 'cancel') {
            const open = world.openOrders();
            if (open.length) world.cancel(open[(step as { pick: number }).pick % open.length]!.id);
            continue;
          }
          const request = step as Parameters<World['place']>[0];
          const placed = world.place(request);
          if (!placed) continue;
          const { fills, order } = placed;
          const limit = toLadder(request.side, request.action, request.price);

          // Fills respect the limit, in price-time priority, never against the taker's own orders.
          let previous: [number, number] | null = null;
          for (const fill of fills) {
            const takerPrice = sidePrice(request.side, fill.yesPrice);
            if (request.action === 'BUY') expect(takerPrice).toBeLessThanOrEqual(request.price);
            else expect(takerPrice).toBeGreaterThanOrEqual(request.price);
            if (fill.makerOrderId !== null)
              expect(world.orders.get(fill.makerOrderId)?.userId).not.toBe(request.userId);
            const rank: [number, number] = [
              limit.bookSide === 'bid' ? fill.yesPrice : -fill.yesPrice,
              fill.makerOrderId ?? Number.MAX_SAFE_INTEGER,
            ];
            if (previous)
              expect(rank[0] > previous[0] || (rank[0] === previous[0] && rank[1] >= previous[1])).toBe(true);
            previous = rank;
          }
          expect(fills.reduce((sum, fill) => sum + fill.quantity, 0)).toBe(order.filledQuantity);

          // An order that did not fill completely left nothing it could have taken.
          if (order.filledQuantity < order.quantity) {
            const opposite = limit.bookSide === 'bid' ? world.book.depth('ask') : world.book.depth('bid');
            for (const level of opposite) {
              const crosses =
                limit.bookSide === 'bid' ? level.price <= limit.bookPrice : level.price >= limit.bookPrice;
              if (crosses) {
                for (const resting of world.openOrders()) {
                  if (resting.bookPrice === level.price && resting.bookSide !== limit.bookSide) {
                    expect(resting.userId).toBe(request.userId);
                  }
                }
              }
            }
          }

          const { bestBid, bestAsk } = bestPrices(world);
          expect(bestBid).toBeLessThan(bestAsk);
        }

        // Cash is conserved: every account, house ones included, sums to zero.
        let total = 0;
        for (const value of world.balances.values()) total += value;
        expect(total).toBe(0);
        for (const user of USERS) {
          expect(world.balance({ kind: 'cash', userId: user })).toBeGreaterThanOrEqual(0);
          const open = world.openOrders().filter((o) => o.userId === user && o.action === 'BUY');
          expect(world.balance({ kind: 'reserved', userId: user })).toBe(
            open.reduce((s, o) => s + o.reservedCents, 0),
          );
        }

        // Shares are conserved: YES outstanding = NO outstanding = pairs, fully collateralised by escrow.
        const pairs = world.pairsMinted - world.pairsMerged;
        let yes = world.amm?.yesShares ?? 0;
        let no = world.amm?.noShares ?? 0;
        for (const user of USERS) {
          yes += world.position(user, 'YES').quantity;
          no += world.position(user, 'NO').quantity;
          for (const side of ['YES', 'NO'] as const) {
            const held = world.position(user, side);
            const selling = world
              .openOrders()
              .filter((o) => o.userId === user && o.side === side && o.action === 'SELL')
              .reduce((s, o) => s + o.quantity - o.filledQuantity, 0);
            expect(held.reservedQuantity).toBe(selling);
            expect(held.quantity).toBeGreaterThanOrEqual(0);
          }
        }
        expect(yes).toBe(pairs);
        expect(no).toBe(pairs);
        expect(world.balance({ kind: 'escrow', optionId: OPTION_ID })).toBe(PAYOUT_CENTS * pairs);
      }),
      { numRuns: 300 },
    );
  });

  it('never lets the house market maker lose more than b·ln 2, whatever the outcome', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 100_000 }),
        fc.array(orderArb, { maxLength: 80 }),
        (b, stream) => {
          const world = new World({ liquidityCents: b, offset: 0, yesShares: 0, noShares: 0 });
          for (const user of USERS) world.fund(user, 10_000_000);
          for (const step of stream) world.place({ ...step, rest: false });
          const amm = world.amm!;
          const cash = world.balance({ kind: 'amm' });
          for (const outcome of ['YES', 'NO'] as const) {
            const payout = outcome === 'YES' ? amm.yesShares * PAYOUT_CENTS : amm.noShares * PAYOUT_CENTS;
            expect(cash + payout).toBeGreaterThanOrEqual(-maxLossCents(b) - 1e-6);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
