import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * A quote for a size is what a market trade of that size then gets: after random books of users' orders and house
 * makers (independent and exclusive), the trade placed right after the quote fills the same shares at the same
 * prices, pays the same fee, moves the trader's money by exactly the quoted total, or is refused the same way.
 */

interface QuoteBody {
  quantity: number;
  filledQuantity: number;
  unfilledQuantity: number;
  notionalCents: number;
  feeCents: number;
  totalCents: number;
  averagePriceCents: number | null;
  worstPriceCents: number | null;
  levels: { priceCents: number; quantity: number; houseQuantity: number }[];
  selfTradeCancels: number;
  refusal: { status: number; code: string } | null;
  forUser: boolean;
}

let t: TestApp;
let admin: TestUser;
let makers: TestUser[];

beforeAll(async () => {
  t = await createTestApp({ env: { TAKER_FEE_BPS: '150' } });
  admin = await newAdmin(t.app);
  makers = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
});
afterAll(async () => {
  await t?.close();
});

async function exclusiveMarket(liquidityCents: number) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(admin.token),
    payload: {
      title: `Who wins ${Date.now()} ${Math.random()}`,
      category: 'cricket',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: [{ label: 'A' }, { label: 'B' }, { label: 'C' }],
      exclusive: true,
      liquidityCents,
      open: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { options: { id: string }[] };
}

async function quote(token: string | null, optionId: string, q: Record<string, string | number>) {
  const query = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await t.app.inject({
    url: `/api/options/${optionId}/quote?${query}`,
    headers: token ? bearer(token) : {},
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as QuoteBody;
}

const restingOrder = fc.record({
  maker: fc.integer({ min: 0, max: 2 }),
  side: fc.constantFrom('YES' as const, 'NO' as const),
  quantity: fc.integer({ min: 1, max: 60 }),
  price: fc.integer({ min: 2, max: 98 }),
});

const scenario = fc.record({
  market: fc.constantFrom('plain' as const, 'house' as const, 'exclusive' as const),
  liquidityCents: fc.constantFrom(2_000, 10_000, 50_000),
  book: fc.array(restingOrder, { maxLength: 12 }),
  /** A resting order of the taker's own, which its trade may meet (and cancel, not fill). */
  own: fc.option(restingOrder, { nil: undefined }),
  side: fc.constantFrom('YES' as const, 'NO' as const),
  action: fc.constantFrom('BUY' as const, 'BUY' as const, 'SELL' as const),
  quantity: fc.integer({ min: 1, max: 400 }),
  priceCents: fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }),
  /** Shares the taker holds before a SELL. */
  held: fc.integer({ min: 0, max: 120 }),
});

describe('a quote for a size', () => {
  it('equals what a market trade of that size then costs', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const optionId =
          s.market === 'exclusive'
            ? ((await exclusiveMarket(s.liquidityCents)).options[1]?.id as string)
            : ((
                await createMarket(t.app, admin.token, {
                  options: [{ label: 'Yes', liquidityCents: s.market === 'house' ? s.liquidityCents : 0 }],
                })
              ).options[0]?.id as string);
        const taker = await newUser(t.app);
        if (s.action === 'SELL' && s.held > 0) {
          await marketTrade(t.app, taker.token, {
            optionId,
            side: s.side,
            action: 'BUY',
            quantity: s.held,
            price: 99,
          });
        }
        for (const o of s.book) {
          const maker = makers[o.maker] as TestUser;
          await limitOrder(t.app, maker.token, { optionId, action: 'BUY', ...o });
        }
        if (s.own) await limitOrder(t.app, taker.token, { optionId, action: 'BUY', ...s.own });

        const ask = {
          side: s.side,
          action: s.action,
          quantity: s.quantity,
          ...(s.priceCents === undefined ? {} : { priceCents: s.priceCents }),
        };
        const quoted = await quote(taker.token, optionId, ask);
        expect(quoted.forUser).toBe(true);
        expect(quoted.filledQuantity + quoted.unfilledQuantity).toBe(s.quantity);
        const before = await balanceOf(t.app, taker.token);
        const price = s.priceCents ?? (s.action === 'BUY' ? 99 : 1);
        const placed = await marketTrade(t.app, taker.token, { optionId, ...ask, price });
        const after = await balanceOf(t.app, taker.token);
        const moved = after.cashCents + after.reservedCents - before.cashCents - before.reservedCents;

        if (quoted.refusal) {
          expect(placed.statusCode).toBe(quoted.refusal.status);
          expect(placed.json().code).toBe(quoted.refusal.code);
          expect(moved).toBe(0);
          return;
        }
        expect(placed.statusCode, placed.body).toBe(201);
        const order = placed.json();
        expect(order.filledQuantity).toBe(quoted.filledQuantity);
        expect(order.feeCents).toBe(quoted.feeCents);
        expect(order.selfTradeCancelledOrderIds).toHaveLength(quoted.selfTradeCancels);
        const byPrice = new Map<number, number>();
        for (const trade of order.trades as { priceCents: number; quantity: number }[])
          byPrice.set(trade.priceCents, (byPrice.get(trade.priceCents) ?? 0) + trade.quantity);
        expect([...byPrice]).toEqual(quoted.levels.map((level) => [level.priceCents, level.quantity]));
        expect(moved).toBe(s.action === 'BUY' ? -quoted.totalCents : quoted.totalCents);
      }),
      { numRuns: 14, endOnFailure: true },
    );
    await expectInvariants(t.database);
  });

  it('walks users’ orders before the house at each price, and says so level by level', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const optionId = market.options[0]?.id as string;
    const maker = makers[0] as TestUser;
    // A YES ask at 50 from a user (BUY NO at 50), level with the house maker's first ask.
    await limitOrder(t.app, maker.token, { optionId, side: 'NO', action: 'BUY', quantity: 5, price: 50 });
    const quoted = await quote(null, optionId, { side: 'YES', action: 'BUY', quantity: 40 });
    expect(quoted.forUser).toBe(false);
    expect(quoted.filledQuantity).toBe(40);
    const first = quoted.levels[0];
    expect(first?.priceCents).toBe(50);
    expect((first?.quantity ?? 0) - (first?.houseQuantity ?? 0)).toBe(5);
    const prices = quoted.levels.map((level) => level.priceCents);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(quoted.worstPriceCents).toBe(prices.at(-1));
    expect(quoted.totalCents).toBe(quoted.notionalCents + quoted.feeCents);
    expect(quoted.averagePriceCents).toBeCloseTo(quoted.notionalCents / 40, 4);
    // Nothing was placed: the book is as it was.
    const again = await quote(null, optionId, { side: 'YES', action: 'BUY', quantity: 40 });
    expect(again).toEqual({ ...quoted, quotedAt: expect.any(String) });
  });

  it('states the refusal a trade would meet, and answers 400 and 404 for bad questions', async () => {
    const empty = await createMarket(t.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 0 }] });
    const optionId = empty.options[0]?.id as string;
    const none = await quote(null, optionId, { side: 'YES', action: 'BUY', quantity: 5 });
    expect(none).toMatchObject({ filledQuantity: 0, totalCents: 0, averagePriceCents: null, levels: [] });
    expect(none.refusal).toMatchObject({ status: 409, code: 'NO_LIQUIDITY' });

    const house = await createMarket(t.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const houseOption = house.options[0]?.id as string;
    const poor = await newUser(t.app);
    const rich = await quote(null, houseOption, { side: 'YES', action: 'BUY', quantity: 5_000 });
    expect(rich.refusal).toBeNull();
    const broke = await quote(poor.token, houseOption, { side: 'YES', action: 'BUY', quantity: 5_000 });
    expect(broke.refusal).toMatchObject({ status: 402, code: 'INSUFFICIENT_FUNDS' });
    const noShares = await quote(poor.token, houseOption, { side: 'NO', action: 'SELL', quantity: 3 });
    expect(noShares.refusal).toMatchObject({ status: 409, code: 'INSUFFICIENT_SHARES' });

    const closed = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${house.id}/close`,
      headers: bearer(admin.token),
    });
    expect(closed.statusCode, closed.body).toBe(200);
    const shut = await quote(null, houseOption, { side: 'YES', action: 'BUY', quantity: 5 });
    expect(shut.refusal).toMatchObject({ status: 409, code: 'MARKET_CLOSED' });

    for (const query of [
      'side=YES&action=BUY',
      'side=MAYBE&action=BUY&quantity=1',
      'side=YES&action=BUY&quantity=0',
    ])
      expect((await t.app.inject({ url: `/api/options/${optionId}/quote?${query}` })).statusCode).toBe(400);
    const tooMany = await t.app.inject({
      url: `/api/options/${optionId}/quote?side=YES&action=BUY&quantity=2000000`,
    });
    expect(tooMany.statusCode).toBe(400);
    const unknown = await t.app.inject({
      url: '/api/options/987654321/quote?side=YES&action=BUY&quantity=1',
    });
    expect(unknown.statusCode).toBe(404);
  });
});
