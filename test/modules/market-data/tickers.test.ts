import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/** Tickers and shown chances come from the one read the order book uses, for every kind of market and state. */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

interface Level {
  priceCents: number;
  quantity: number;
}
interface EventRead {
  id: string;
  slug: string;
  status: string;
  options: { id: string; label: string; probabilityBps: number; yesPriceCents: number }[];
}

async function createExclusive(app: FastifyInstance, prices: number[]): Promise<EventRead> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(admin.token),
    payload: {
      title: `Who wins the final ${Date.now()} ${Math.random()}`,
      category: 'cricket',
      closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      exclusive: true,
      liquidityCents: 50_000,
      options: prices.map((initialPriceCents, i) => ({ label: `Team ${i}`, initialPriceCents })),
      open: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function bestOf(optionId: string) {
  const book = (await t.app.inject({ url: `/api/orderbook/${optionId}` })).json() as {
    yes: { bids: Level[]; asks: Level[] };
  };
  const [bid, ask] = [book.yes.bids[0], book.yes.asks[0]];
  return {
    bestBidCents: bid?.priceCents ?? null,
    bestBidQuantity: bid?.quantity ?? 0,
    bestAskCents: ask?.priceCents ?? null,
    bestAskQuantity: ask?.quantity ?? 0,
  };
}

async function tickers(query: string) {
  const res = await t.app.inject({ url: `/api/tickers?${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: { optionId: string; status: string }[] }).data;
}

const readEvent = async (slug: string): Promise<EventRead> =>
  (await t.app.inject({ url: `/api/events/${slug}` })).json();

describe('GET /api/tickers', () => {
  it('quotes the house maker of an exclusive event as the order book does, in every option', async () => {
    const event = await createExclusive(t.app, [55, 35, 10]);
    const trader = await newUser(t.app);
    const [first] = event.options;
    await marketTrade(t.app, trader.token, {
      optionId: first!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 40,
      price: 90,
    });
    // A user's order far behind the house price: the best bid is still the house's.
    await limitOrder(t.app, trader.token, {
      optionId: first!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      price: 20,
    });
    const read = await tickers(`eventSlug=${event.slug}`);
    expect(read).toHaveLength(3);
    for (const ticker of read) {
      const best = await bestOf(ticker.optionId);
      expect(best.bestBidCents).not.toBeNull();
      expect(best.bestAskCents).not.toBeNull();
      expect(ticker).toMatchObject(best);
    }
  });

  it('quotes an independent market with its own maker as the order book does', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 20_000 }],
    });
    const [ticker] = await tickers(`optionIds=${market.options[0]!.id}`);
    expect(ticker).toMatchObject(await bestOf(market.options[0]!.id));
  });
});

describe('a settled exclusive event', () => {
  it('shows the chances it was settled at, not its opening odds, with no quotes', async () => {
    const event = await createExclusive(t.app, [55, 35, 10]);
    const trader = await newUser(t.app);
    await marketTrade(t.app, trader.token, {
      optionId: event.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 150,
      price: 95,
    });
    const before = await readEvent(event.slug);
    expect(before.options[0]!.probabilityBps).toBeGreaterThan(event.options[0]!.probabilityBps + 200);
    const resolved = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/resolve`,
      headers: bearer(admin.token),
      payload: {
        outcomes: event.options.map((o, i) => ({ optionId: o.id, outcome: i === 0 ? 'YES' : 'NO' })),
      },
    });
    expect(resolved.statusCode, resolved.body).toBe(200);
    const settled = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/settle`,
      headers: bearer(admin.token),
    });
    expect(settled.statusCode, settled.body).toBe(200);

    const after = await readEvent(event.slug);
    expect(after.status).toBe('settled');
    expect(after.options.map((o) => [o.probabilityBps, o.yesPriceCents])).toEqual(
      before.options.map((o) => [o.probabilityBps, o.yesPriceCents]),
    );
    for (const ticker of await tickers(`eventSlug=${event.slug}`)) {
      expect(ticker).toMatchObject({ status: 'settled', bestBidCents: null, bestAskCents: null });
      expect(ticker).toMatchObject(await bestOf(ticker.optionId));
    }
  });
});
