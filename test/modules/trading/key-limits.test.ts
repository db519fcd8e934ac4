import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, type Market } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * An API key's risk limits, held by the order decision to single orders, batches and amends: the largest order,
 * orders resting at once (across markets, and under concurrent requests), the position per option and the loss per
 * day. Each refusal is a 409 with its own code, and places nothing.
 */

let t: TestApp;
let app: FastifyInstance;
let admin: TestUser;
let markets: Market[];

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  admin = await newAdmin(app);
});
// Every test trades in markets of its own, so that no other test's orders meet its orders.
beforeEach(async () => {
  markets = [];
  for (let i = 0; i < 3; i++) markets.push(await createMarket(app, admin.token));
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

type Limits = Partial<
  Record<'maxOrderCents' | 'maxOpenOrders' | 'maxPositionShares' | 'maxDailyLossCents', number>
>;

async function keyWith(limits: Limits): Promise<{ user: TestUser; key: string }> {
  const user = await newUser(app);
  const res = await app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(user.token),
    payload: { name: 'limited', limits },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { user, key: res.json().key };
}

function optionOf(index = 0): string {
  return markets[index]?.options[0]?.id as string;
}

const buy = (quantity: number, limitPriceCents: number, market = 0, extra: object = {}) => ({
  optionId: optionOf(market),
  side: 'YES',
  action: 'BUY',
  quantity,
  limitPriceCents,
  ...extra,
});

function post(token: string, url: string, payload: object) {
  return app.inject({ method: 'POST', url, headers: bearer(token), payload });
}

const place = (token: string, order: object) => post(token, '/api/limit-orders', order);
const batch = (token: string, orders: object[]) => post(token, '/api/limit-orders/batch', { orders });
const amend = (token: string, id: string, changes: object) =>
  post(token, `/api/limit-orders/${id}/amend`, changes);

async function placed(token: string, order: object): Promise<{ id: string }> {
  const res = await place(token, order);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function codes(res: { json(): { data: { status: number; error?: { code: string } | null }[] } }) {
  return res.json().data.map((part) => part.error?.code ?? part.status);
}

async function openOrders(token: string): Promise<number> {
  const res = await app.inject({ url: '/api/limit-orders?status=open', headers: bearer(token) });
  return res.json().data.length;
}

describe('largest order', () => {
  it('refuses a single order, a batch item and an amend worth more than the limit', async () => {
    const { key } = await keyWith({ maxOrderCents: 500 });
    const over = await place(key, buy(11, 50));
    expect(over.statusCode).toBe(409);
    expect(over.json()).toMatchObject({
      code: 'KEY_ORDER_TOO_LARGE',
      details: { limitCents: 500, orderCents: 550 },
    });
    const ok = await placed(key, buy(10, 5));
    expect(codes(await batch(key, [buy(10, 50), buy(10, 51), buy(2, 5)]))).toEqual([
      201,
      'KEY_ORDER_TOO_LARGE',
      201,
    ]);
    const raised = await amend(key, ok.id, { remainingQuantity: 200 });
    expect(raised.json().code).toBe('KEY_ORDER_TOO_LARGE');
    expect((await amend(key, ok.id, { limitPriceCents: 40 })).statusCode).toBe(200);
  });
});

describe('open orders', () => {
  it('counts resting orders across markets, in single orders, batches and amends', async () => {
    const { key } = await keyWith({ maxOpenOrders: 3 });
    const first = await placed(key, buy(1, 5, 0));
    await placed(key, buy(1, 5, 1));
    const res = await batch(key, [buy(1, 5, 2), buy(1, 5, 0), buy(1, 5, 1)]);
    expect(codes(res)).toEqual([201, 'KEY_OPEN_ORDERS_LIMIT', 'KEY_OPEN_ORDERS_LIMIT']);
    const single = await place(key, buy(1, 5, 2));
    expect(single.json()).toMatchObject({ code: 'KEY_OPEN_ORDERS_LIMIT', details: { limit: 3, open: 3 } });
    // An amend replaces one of the key's orders: the count stays.
    const moved = await amend(key, first.id, { limitPriceCents: 6 });
    expect(moved.statusCode, moved.body).toBe(200);
    // An order that cannot rest (immediate-or-cancel) adds none.
    expect((await place(key, buy(1, 5, 0, { timeInForce: 'IOC' }))).statusCode).not.toBe(409);
    const cancelled = await app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${moved.json().order.id}`,
      headers: bearer(key),
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect((await place(key, buy(1, 5, 2))).statusCode).toBe(201);
    expect(await openOrders(key)).toBe(3);
  });

  it('lets through no more than the limit when many orders arrive at once in many markets', async () => {
    const { key } = await keyWith({ maxOpenOrders: 4 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => place(key, buy(1, 3 + (i % 3), i % 3))),
    );
    const statuses = results.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(4);
    expect(statuses.filter((status) => status === 409)).toHaveLength(8);
    expect(await openOrders(key)).toBe(4);
  });
});

describe('position per option', () => {
  it('counts the holding with every share resting purchases could still buy', async () => {
    const { key } = await keyWith({ maxPositionShares: 10 });
    const seller = await newUser(app);
    const resting = await placed(key, buy(6, 20));
    const over = await place(key, buy(5, 20));
    expect(over.json()).toMatchObject({
      code: 'KEY_POSITION_LIMIT',
      details: { limitShares: 10, wouldHold: 11 },
    });
    // A NO buyer at 80 fills the resting YES purchase: the position now holds what was resting.
    expect((await place(seller.token, { ...buy(6, 80), side: 'NO' })).statusCode).toBe(201);
    expect(codes(await batch(key, [buy(4, 20), buy(1, 20)]))).toEqual([201, 'KEY_POSITION_LIMIT']);
    const other = await placed(key, buy(3, 5, 1));
    expect((await amend(key, other.id, { remainingQuantity: 11 })).json().code).toBe('KEY_POSITION_LIMIT');
    expect((await amend(key, other.id, { remainingQuantity: 10 })).statusCode).toBe(200);
    // Selling is never held back.
    const sale = await place(key, { ...buy(2, 99), action: 'SELL' });
    expect(sale.statusCode, sale.body).toBe(201);
    expect(resting.id).toBeTruthy();
  });
});

describe('loss per day', () => {
  it('counts the day’s purchases and resting purchases at what they hold', async () => {
    const { key } = await keyWith({ maxDailyLossCents: 1000 });
    const counterparty = await newUser(app);
    const first = await placed(key, buy(10, 50));
    const over = await place(key, buy(11, 50, 1));
    expect(over.json()).toMatchObject({
      code: 'KEY_DAILY_LOSS_LIMIT',
      details: { limitCents: 1000, wouldRiskCents: 1050 },
    });
    // 500 resting, then 250 more: 750; 300 more would make 1050.
    expect(codes(await batch(key, [buy(5, 50, 1), buy(6, 50, 2)]))).toEqual([201, 'KEY_DAILY_LOSS_LIMIT']);
    // An amend frees what its order holds first: 750 - 500 + 760 is over, 750 - 500 + 400 is not.
    expect((await amend(key, first.id, { limitPriceCents: 76 })).json().code).toBe('KEY_DAILY_LOSS_LIMIT');
    const amended = await amend(key, first.id, { limitPriceCents: 40 });
    expect(amended.statusCode, amended.body).toBe(200);
    // The purchase at 40 fills: what it paid stays counted once it no longer rests (400 + 250 = 650).
    expect((await place(counterparty.token, { ...buy(10, 60), side: 'NO' })).statusCode).toBe(201);
    expect((await place(key, buy(8, 45, 2))).json().code).toBe('KEY_DAILY_LOSS_LIMIT');
    expect((await place(key, buy(7, 50, 2))).statusCode).toBe(201);
    // A sale brings cash back in (10 at 45: 450), and makes room again: 1000 - 450 + 400, then 50 more is the
    // limit itself, and 100 more is past it.
    expect((await place(counterparty.token, { ...buy(10, 45), side: 'YES' })).statusCode).toBe(201);
    const sold = await place(key, { ...buy(10, 45), action: 'SELL' });
    expect(sold.statusCode, sold.body).toBe(201);
    expect((await place(key, buy(8, 50, 2))).statusCode).toBe(201);
    expect((await place(key, buy(2, 50, 2))).json().code).toBe('KEY_DAILY_LOSS_LIMIT');
    expect((await place(key, buy(1, 50, 2))).statusCode).toBe(201);
  });
});
