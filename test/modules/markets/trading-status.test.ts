import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTwoInstances,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * The trading status operators set: maintenance refuses new orders, amends and conversions (cancels still work),
 * post-only mode refuses what could take liquidity; a market may be held stricter than the exchange. Two instances
 * share one database: a change made through one holds on the other within a second.
 */
let db: TestDatabase;
let a: TestApp;
let b: TestApp;
let admin: TestUser;
let trader: TestUser;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances({ TAKER_FEE_BPS: '25' }));
  admin = await newAdmin(a.app);
  trader = await newUser(a.app);
});
afterAll(async () => {
  await expectInvariants(db.database);
  await closeTwoInstances({ db, a, b });
});

function setStatus(body: Record<string, string>, eventId?: string) {
  return a.app.inject({
    method: 'PUT',
    url: eventId ? `/api/admin/events/${eventId}/status` : '/api/admin/status',
    headers: bearer(admin.token),
    payload: body,
  });
}

async function statusOn(t: TestApp) {
  const res = await t.app.inject({ url: '/api/status' });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the exchange’s status and clock', () => {
  it('answers the server time and the status with the fees', async () => {
    const before = Date.now();
    const time = (await a.app.inject({ url: '/api/time' })).json();
    expect(time.epochMs).toBeGreaterThanOrEqual(before);
    expect(Date.parse(time.serverTime)).toBe(time.epochMs);
    expect(await statusOn(a)).toMatchObject({
      status: 'trading',
      message: null,
      takerFeeBps: 25,
      makerFeeBps: 0,
      markets: [],
    });
  });

  it('lets only admins set it, and refuses an unknown status or event', async () => {
    const byTrader = await a.app.inject({
      method: 'PUT',
      url: '/api/admin/status',
      headers: bearer(trader.token),
      payload: { status: 'maintenance' },
    });
    expect(byTrader.statusCode).toBe(403);
    expect((await setStatus({ status: 'closed' })).statusCode).toBe(400);
    expect((await setStatus({ status: 'maintenance' }, '987654321')).statusCode).toBe(404);
    expect((await statusOn(a)).status).toBe('trading');
  });
});

describe('maintenance', () => {
  it('refuses orders, amends and batches with 503 and Retry-After on every instance, and lets cancels through', async () => {
    const market = await createMarket(a.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const optionId = market.options[0]?.id as string;
    const resting = await limitOrder(a.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      price: 20,
    });
    expect(resting.statusCode).toBe(201);

    const set = await setStatus({ status: 'maintenance', message: 'database upgrade' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ status: 'maintenance', message: 'database upgrade' });
    const seen = await eventually(
      () => statusOn(b),
      (s) => s.status === 'maintenance',
    );
    expect(seen.status).toBe('maintenance');

    for (const t of [a, b]) {
      const trade = await marketTrade(t.app, trader.token, {
        optionId,
        side: 'YES',
        action: 'BUY',
        quantity: 1,
        price: 99,
      });
      expect(trade.statusCode).toBe(503);
      expect(trade.json()).toMatchObject({ code: 'MAINTENANCE' });
      expect(trade.json().error).toContain('database upgrade');
      expect(Number(trade.headers['retry-after'])).toBeGreaterThan(0);
    }
    const postOnly = await a.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: bearer(trader.token),
      payload: { optionId, side: 'YES', action: 'BUY', quantity: 1, limitPriceCents: 10, postOnly: true },
    });
    expect(postOnly.json()).toMatchObject({ code: 'MAINTENANCE' });
    const batch = await a.app.inject({
      method: 'POST',
      url: '/api/limit-orders/batch',
      headers: bearer(trader.token),
      payload: { orders: [{ optionId, side: 'YES', action: 'BUY', quantity: 1, limitPriceCents: 10 }] },
    });
    expect(batch.statusCode).toBe(503);
    const amend = await a.app.inject({
      method: 'POST',
      url: `/api/limit-orders/${resting.json().id}/amend`,
      headers: bearer(trader.token),
      payload: { remainingQuantity: 3 },
    });
    expect(amend.json()).toMatchObject({ code: 'MAINTENANCE' });
    // An unknown option is still a 404, not a refusal that would hide the mistake.
    const unknown = await marketTrade(a.app, trader.token, {
      optionId: '987654321',
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 50,
    });
    expect(unknown.statusCode).toBe(404);

    const cancel = await a.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${resting.json().id}`,
      headers: bearer(trader.token),
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().status).toBe('cancelled');

    expect((await setStatus({ status: 'trading' })).statusCode).toBe(200);
    const again = await marketTrade(a.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 99,
    });
    expect(again.statusCode).toBe(201);
  });
});

describe('post-only mode', () => {
  it('takes only orders that cannot take liquidity, and amends that cannot', async () => {
    const market = await createMarket(a.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 0 }] });
    const optionId = market.options[0]?.id as string;
    const plain = await limitOrder(a.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 30,
    });
    expect((await setStatus({ status: 'post_only' })).statusCode).toBe(200);

    const trade = await marketTrade(a.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 99,
    });
    expect(trade.statusCode).toBe(409);
    expect(trade.json()).toMatchObject({ code: 'POST_ONLY_MODE' });
    const limit = await limitOrder(a.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 31,
    });
    expect(limit.json()).toMatchObject({ code: 'POST_ONLY_MODE' });
    const maker = await a.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: bearer(trader.token),
      payload: { optionId, side: 'YES', action: 'BUY', quantity: 2, limitPriceCents: 31, postOnly: true },
    });
    expect(maker.statusCode, maker.body).toBe(201);
    const batch = await a.app.inject({
      method: 'POST',
      url: '/api/limit-orders/batch',
      headers: bearer(trader.token),
      payload: {
        orders: [
          { optionId, side: 'NO', action: 'BUY', quantity: 1, limitPriceCents: 20, postOnly: true },
          { optionId, side: 'NO', action: 'BUY', quantity: 1, limitPriceCents: 21 },
        ],
      },
    });
    expect(batch.statusCode).toBe(409);
    expect(batch.json()).toMatchObject({ code: 'POST_ONLY_MODE' });

    const amend = (payload: Record<string, number>) =>
      a.app.inject({
        method: 'POST',
        url: `/api/limit-orders/${plain.json().id}/amend`,
        headers: bearer(trader.token),
        payload,
      });
    // Shrinking keeps the order where it stands: it cannot take. A new price replaces it: it could.
    expect((await amend({ remainingQuantity: 6 })).statusCode).toBe(200);
    expect((await amend({ limitPriceCents: 32 })).json()).toMatchObject({ code: 'POST_ONLY_MODE' });
    expect((await setStatus({ status: 'trading' })).statusCode).toBe(200);
  });
});

describe('a market held stricter than the exchange', () => {
  it('is listed in the status and refuses orders while the other markets trade', async () => {
    const held = await createMarket(a.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const free = await createMarket(a.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const set = await setStatus({ status: 'maintenance', message: 'disputed source' }, held.id);
    expect(set.statusCode).toBe(200);
    expect(set.json().markets).toEqual([
      {
        eventId: held.id,
        eventSlug: held.slug,
        status: 'maintenance',
        message: 'disputed source',
        updatedAt: expect.any(String),
      },
    ]);
    const byLabel = await a.app.inject({
      method: 'POST',
      url: '/api/trades',
      headers: bearer(trader.token),
      payload: {
        eventSlug: held.slug,
        optionLabel: 'Yes',
        side: 'YES',
        action: 'BUY',
        quantity: 1,
        priceCents: 99,
      },
    });
    expect(byLabel.json()).toMatchObject({ code: 'MAINTENANCE' });
    const elsewhere = await marketTrade(a.app, trader.token, {
      optionId: free.options[0]?.id as string,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 99,
    });
    expect(elsewhere.statusCode).toBe(201);

    // The exchange in maintenance shadows the market's own status: nothing differs, nothing is listed.
    expect((await setStatus({ status: 'maintenance' })).json().markets).toEqual([]);
    expect((await setStatus({ status: 'trading' })).json().markets).toHaveLength(1);
    const released = await setStatus({ status: 'trading' }, held.id);
    expect(released.json().markets).toEqual([]);
    const trade = await marketTrade(a.app, trader.token, {
      optionId: held.options[0]?.id as string,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 99,
    });
    expect(trade.statusCode).toBe(201);
  });
});
