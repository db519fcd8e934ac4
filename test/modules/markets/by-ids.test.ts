import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';

/** The reads an exchange adapter makes by lists of ids: events, options and tickers, and one order with its fills. */
let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t?.close();
});

describe('reads by lists of ids', () => {
  it('lists the events named, public ones only, unknown ids left out', async () => {
    const one = await createMarket(t.app, admin.token);
    const two = await createMarket(t.app, admin.token, { options: [{ label: 'A' }, { label: 'B' }] });
    const draft = await createMarket(t.app, admin.token, { open: false });
    const res = await t.app.inject({ url: `/api/events?ids=${one.id},${two.id},${draft.id},987654321` });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page.data.map((event: { id: string }) => event.id)).toEqual([two.id, one.id]);
    expect(page.data[0].options.map((o: { label: string }) => o.label)).toEqual(['A', 'B']);
    expect((await t.app.inject({ url: '/api/events?ids=1,,2' })).statusCode).toBe(400);
  });

  it('lists the options named with their events and prices, an exclusive event’s chances included', async () => {
    const plain = await createMarket(t.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/events',
      headers: bearer(admin.token),
      payload: {
        title: `Who wins the final ${Date.now()}`,
        category: 'cricket',
        closesAt: new Date(Date.now() + 86_400_000).toISOString(),
        options: [
          { label: 'India', initialPriceCents: 60 },
          { label: 'Australia', initialPriceCents: 30 },
          { label: 'Other', initialPriceCents: 10 },
        ],
        exclusive: true,
        liquidityCents: 10_000,
        open: true,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const exclusive = created.json();
    const draft = await createMarket(t.app, admin.token, { open: false });
    const ids = [plain.options[0]?.id, exclusive.options[1].id, draft.options[0]?.id, '987654321'];
    const res = await t.app.inject({ url: `/api/options?ids=${ids.join(',')}` });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({
      id: exclusive.options[1].id,
      label: 'Australia',
      eventId: exclusive.id,
      eventSlug: exclusive.slug,
      eventStatus: 'open',
      exclusive: true,
      probabilityBps: exclusive.options[1].probabilityBps,
    });
    expect(data[1]).toMatchObject({ id: plain.options[0]?.id, eventSlug: plain.slug, exclusive: false });
    expect((await t.app.inject({ url: '/api/options' })).statusCode).toBe(400);
  });

  it('answers tickers for 100 ids in one call, and refuses 101', async () => {
    const event = await insertEvent(t.database, {
      options: Array.from({ length: 100 }, (_, i) => `Strike ${i}`),
    });
    const ids = event.options.map((option) => option.id);
    const res = await t.app.inject({ url: `/api/tickers?optionIds=${ids.join(',')}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((ticker: { optionId: string }) => Number(ticker.optionId))).toEqual(ids);
    const all = (await t.app.inject({ url: '/api/tickers' })).json().data as { optionId: string }[];
    expect(all.filter((ticker) => ids.includes(Number(ticker.optionId)))).toHaveLength(100);
    const over = await t.app.inject({ url: `/api/tickers?optionIds=${[...ids, 987654321].join(',')}` });
    expect(over.statusCode).toBe(400);
  });
});

describe('one order and its fills', () => {
  it('answers any of your orders by id, market or limit, and 404 for another’s', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const optionId = market.options[0]?.id as string;
    const trader = await newUser(t.app);
    const other = await newUser(t.app);
    const resting = (
      await limitOrder(t.app, trader.token, { optionId, side: 'YES', action: 'BUY', quantity: 4, price: 10 })
    ).json();
    const trade = (
      await marketTrade(t.app, trader.token, { optionId, side: 'YES', action: 'BUY', quantity: 7, price: 99 })
    ).json();

    const read = (id: string, user: TestUser) =>
      t.app.inject({ url: `/api/orders/${id}`, headers: bearer(user.token) });
    const limit = await read(resting.id, trader);
    expect(limit.statusCode).toBe(200);
    expect(limit.json()).toMatchObject({
      id: resting.id,
      kind: 'limit',
      status: 'open',
      remainingQuantity: 4,
      eventSlug: market.slug,
      eventTitle: expect.any(String),
    });
    expect((await read(trade.id, trader)).json()).toMatchObject({ kind: 'market', filledQuantity: 7 });
    expect((await read(trade.id, other)).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/orders/${trade.id}` })).statusCode).toBe(401);

    const fills = await t.app.inject({
      url: `/api/me/fills?orderId=${trade.id}`,
      headers: bearer(trader.token),
    });
    const data = fills.json().data as { orderId: string; quantity: number }[];
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((fill) => fill.orderId === trade.id)).toBe(true);
    expect(data.reduce((sum, fill) => sum + fill.quantity, 0)).toBe(7);
    const none = await t.app.inject({
      url: `/api/me/fills?orderId=${resting.id}`,
      headers: bearer(trader.token),
    });
    expect(none.json().data).toEqual([]);
  });
});
