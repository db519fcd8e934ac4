import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/platform/db/database.js';
import {
  createTestApp,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TwoInstances,
} from '../../support/app.js';
import { balanceOf, createMarket } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { StreamTestClient, streamUrl } from '../../support/stream-client.js';

/**
 * The dead man's switch through HTTP: a credential arms it with a timeout and keeps it alive with heartbeats; once it
 * is silent past the timeout, every resting order that credential placed is cancelled (and nothing of any other
 * credential), on whichever instance looks first.
 */

type Side = 'YES' | 'NO';

interface OrderJson {
  id: string;
  status: string;
  filledQuantity: number;
  cancelReason: string | null;
}

interface HeartbeatJson {
  armed: boolean;
  timeoutSeconds: number | null;
  lastBeatAt: string | null;
  expiresAt: string | null;
  firedAt: string | null;
  cancelledOrders: number;
}

interface ApiKey {
  id: string;
  key: string;
}

async function createKey(app: FastifyInstance, user: TestUser, name = 'bot'): Promise<ApiKey> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(user.token),
    payload: { name },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function place(
  app: FastifyInstance,
  token: string,
  optionId: string,
  side: Side,
  quantity: number,
  limitPriceCents: number,
): Promise<OrderJson> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/limit-orders',
    headers: bearer(token),
    payload: { optionId, side, action: 'BUY', quantity, limitPriceCents },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function beat(app: FastifyInstance, token: string, timeoutSeconds: number): Promise<HeartbeatJson> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/heartbeat',
    headers: bearer(token),
    payload: { timeoutSeconds },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function heartbeatOf(app: FastifyInstance, token: string): Promise<HeartbeatJson> {
  const res = await app.inject({ url: '/api/heartbeat', headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/**
 * Makes a credential's switch due now, as if its timeout had passed in silence just now: after every order the
 * test placed with it (the switch cancels what was placed before its time ran out).
 */
async function lapse(database: Database, credential: string): Promise<void> {
  const { numAffectedRows } = await sql`
    UPDATE heartbeats SET expires_at = now()
    WHERE credential = ${credential} AND expires_at IS NOT NULL`.execute(database.db);
  expect(Number(numAffectedRows)).toBe(1);
}

/** Each of a user's orders by id, whatever its state. */
async function ordersOf(app: FastifyInstance, token: string): Promise<Map<string, OrderJson>> {
  const found = new Map<string, OrderJson>();
  for (const status of ['open', 'history']) {
    const res = await app.inject({
      url: `/api/limit-orders?status=${status}&limit=200`,
      headers: bearer(token),
    });
    for (const order of res.json().data as OrderJson[]) found.set(order.id, order);
  }
  return found;
}

async function openIds(app: FastifyInstance, token: string): Promise<string[]> {
  const res = await app.inject({ url: '/api/limit-orders?status=open&limit=200', headers: bearer(token) });
  return res
    .json()
    .data.map((o: { id: string }) => o.id)
    .sort((x: string, y: string) => Number(x) - Number(y));
}

const byId = (...orders: OrderJson[]) => orders.map((o) => o.id).sort((x, y) => Number(x) - Number(y));

describe('the dead man’s switch on one instance', () => {
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

  const newOption = async () => (await createMarket(t.app, admin.token)).options[0]!.id;

  it('cancels every resting order of a silent API key once its timeout passes, and nothing of other credentials', async () => {
    const optionId = await newOption();
    const user = await newUser(t.app);
    const [bot, other] = [await createKey(t.app, user, 'quoter'), await createKey(t.app, user, 'hedger')];
    const counterparty = await newUser(t.app);

    const b1 = await place(t.app, bot.key, optionId, 'YES', 10, 40);
    const batch = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders/batch',
      headers: bearer(bot.key),
      payload: { orders: [{ optionId, side: 'NO', action: 'BUY', quantity: 5, limitPriceCents: 30 }] },
    });
    const b2 = batch.json().data[0].order as OrderJson;
    await place(t.app, counterparty.token, optionId, 'NO', 3, 45);
    const b3 = await place(t.app, bot.key, optionId, 'YES', 5, 55);
    expect(b3).toMatchObject({ status: 'partially_filled', filledQuantity: 3 });
    await place(t.app, counterparty.token, optionId, 'NO', 2, 42);
    const b4 = await place(t.app, bot.key, optionId, 'YES', 2, 58);
    expect(b4.status).toBe('filled');
    const bySession = await place(t.app, user.token, optionId, 'YES', 5, 35);
    const byOther = await place(t.app, other.key, optionId, 'YES', 2, 33);

    const armed = await beat(t.app, bot.key, 30);
    expect(armed).toMatchObject({ armed: true, timeoutSeconds: 30, firedAt: null, cancelledOrders: 0 });
    expect(Date.parse(armed.expiresAt ?? '') - Date.parse(armed.lastBeatAt ?? '')).toBe(30_000);
    expect(await heartbeatOf(t.app, bot.key)).toEqual(armed);
    // Each credential has a switch of its own.
    expect(await heartbeatOf(t.app, user.token)).toEqual({
      armed: false,
      timeoutSeconds: null,
      lastBeatAt: null,
      expiresAt: null,
      firedAt: null,
      cancelledOrders: 0,
    });
    expect(await t.app.jobs.runNow('heartbeats')).toBe(0);
    expect(await openIds(t.app, user.token)).toEqual(byId(b1, b2, b3, bySession, byOther));

    // The owner hears of each cancel on their own channel, as of any other.
    const own = await StreamTestClient.open(`${await streamUrl(t)}?token=${user.token}`);
    own.send({ op: 'subscribe', channel: 'user' });
    await own.next((m) => m.type === 'subscribed');
    await lapse(t.database, `apiKey:${bot.id}`);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(1);
    try {
      for (const order of [b1, b2, b3])
        await own.next(
          (m) =>
            m.type === 'order' &&
            (m.order as OrderJson).id === order.id &&
            (m.order as OrderJson).cancelReason === 'heartbeat_lapsed',
        );
    } finally {
      own.close();
    }
    const orders = await ordersOf(t.app, user.token);
    for (const order of [b1, b2, b3])
      expect(orders.get(order.id)).toMatchObject({ status: 'cancelled', cancelReason: 'heartbeat_lapsed' });
    expect(orders.get(b3.id)?.filledQuantity).toBe(3);
    expect(orders.get(b4.id)).toMatchObject({ status: 'filled', cancelReason: null });
    expect(await openIds(t.app, user.token)).toEqual(byId(bySession, byOther));
    const paid = 3 * 55 + 2 * 58;
    expect(await balanceOf(t.app, user.token)).toEqual({
      cashCents: 100_000 - paid - 175 - 66,
      reservedCents: 175 + 66,
    });
    const book = (await t.app.inject({ url: `/api/orderbook/${optionId}` })).json();
    expect(book.yes.bids.map((l: { priceCents: number }) => l.priceCents)).toEqual([35, 33]);
    expect(book.yes.asks).toEqual([]);

    const fired = await heartbeatOf(t.app, bot.key);
    expect(fired).toMatchObject({ armed: false, expiresAt: null, timeoutSeconds: 30, cancelledOrders: 3 });
    expect(Date.parse(fired.firedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(0);

    // A new heartbeat arms it again; the orders placed since are covered, and nothing goes before the timeout.
    const again = await beat(t.app, bot.key, 10);
    expect(again).toMatchObject({
      armed: true,
      timeoutSeconds: 10,
      firedAt: fired.firedAt,
      cancelledOrders: 3,
    });
    expect(Date.parse(again.expiresAt ?? '')).toBeGreaterThan(Date.now());
    const b5 = await place(t.app, bot.key, optionId, 'YES', 1, 20);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(0);
    expect(await openIds(t.app, user.token)).toEqual(byId(bySession, byOther, b5));
    await lapse(t.database, `apiKey:${bot.id}`);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(1);
    expect(await openIds(t.app, user.token)).toEqual(byId(bySession, byOther));
    expect(await heartbeatOf(t.app, bot.key)).toMatchObject({ armed: false, cancelledOrders: 1 });
  });

  it('keeps the orders of a credential whose heartbeats keep coming, or whose switch was disarmed', async () => {
    const optionId = await newOption();
    const user = await newUser(t.app);
    const bot = await createKey(t.app, user);
    const order = await place(t.app, bot.key, optionId, 'YES', 4, 40);

    const first = await beat(t.app, bot.key, 5);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await beat(t.app, bot.key, 5);
    expect(Date.parse(second.expiresAt ?? '')).toBeGreaterThan(Date.parse(first.expiresAt ?? ''));
    expect(await t.app.jobs.runNow('heartbeats')).toBe(0);

    const off = await t.app.inject({ method: 'DELETE', url: '/api/heartbeat', headers: bearer(bot.key) });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ armed: false, expiresAt: null, firedAt: null });
    await sql`UPDATE heartbeats SET last_beat_at = now() - interval '1 hour'`.execute(t.database.db);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(0);
    expect(await openIds(t.app, user.token)).toEqual([order.id]);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 99_840, reservedCents: 160 });
  });

  it('a heartbeat that comes after the timeout, before any job looked, cancels first and then arms again', async () => {
    const optionId = await newOption();
    const user = await newUser(t.app);
    const bot = await createKey(t.app, user);
    const stale = await place(t.app, bot.key, optionId, 'YES', 4, 40);
    await beat(t.app, bot.key, 5);
    await lapse(t.database, `apiKey:${bot.id}`);

    const late = await beat(t.app, bot.key, 5);
    expect(late).toMatchObject({ armed: true, cancelledOrders: 1 });
    expect(late.firedAt).not.toBeNull();
    expect((await ordersOf(t.app, user.token)).get(stale.id)).toMatchObject({
      status: 'cancelled',
      cancelReason: 'heartbeat_lapsed',
    });
    const fresh = await place(t.app, bot.key, optionId, 'YES', 4, 40);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(0);
    expect(await openIds(t.app, user.token)).toEqual([fresh.id]);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 99_840, reservedCents: 160 });
  });

  it('cancels only what was placed before its time ran out, whoever looks at it later', async () => {
    const optionId = await newOption();
    const user = await newUser(t.app);
    const bot = await createKey(t.app, user);
    const before = await place(t.app, bot.key, optionId, 'YES', 2, 30);
    await beat(t.app, bot.key, 5);
    await lapse(t.database, `apiKey:${bot.id}`);
    // Placed after the time ran out and before any job looked: not the switch's to cancel.
    const after = await place(t.app, bot.key, optionId, 'YES', 3, 31);
    expect(await t.app.jobs.runNow('heartbeats')).toBe(1);
    const orders = await ordersOf(t.app, user.token);
    expect(orders.get(before.id)).toMatchObject({ status: 'cancelled', cancelReason: 'heartbeat_lapsed' });
    expect(orders.get(after.id)).toMatchObject({ status: 'open', cancelReason: null });
    expect(await heartbeatOf(t.app, bot.key)).toMatchObject({ armed: false, cancelledOrders: 1 });
  });

  it('covers a session’s orders when the session arms it, and no other user’s', async () => {
    const optionId = await newOption();
    const [user, neighbour] = [await newUser(t.app), await newUser(t.app)];
    const bot = await createKey(t.app, user);
    const bySession = await place(t.app, user.token, optionId, 'YES', 3, 40);
    const byKey = await place(t.app, bot.key, optionId, 'YES', 3, 41);
    const theirs = await place(t.app, neighbour.token, optionId, 'YES', 3, 42);
    await beat(t.app, user.token, 60);
    await beat(t.app, neighbour.token, 60);
    const { rows } = await sql<{ credential: string }>`
      SELECT credential FROM heartbeats WHERE user_id = ${Number(user.id)}`.execute(t.database.db);
    expect(rows.map((row) => row.credential)).toEqual([expect.stringMatching(/^session:\d+$/)]);
    await lapse(t.database, rows[0]!.credential);

    expect(await t.app.jobs.runNow('heartbeats')).toBe(1);
    expect(await openIds(t.app, user.token)).toEqual([byKey.id]);
    expect((await ordersOf(t.app, user.token)).get(bySession.id)?.cancelReason).toBe('heartbeat_lapsed');
    expect(await openIds(t.app, neighbour.token)).toEqual([theirs.id]);
    expect(await heartbeatOf(t.app, neighbour.token)).toMatchObject({ armed: true, cancelledOrders: 0 });
  });

  it('refuses a timeout outside 5..3600 seconds and a request without a credential', async () => {
    const user = await newUser(t.app);
    for (const timeoutSeconds of [4, 3601, 0]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/heartbeat',
        headers: bearer(user.token),
        payload: { timeoutSeconds },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/heartbeat',
      payload: { timeoutSeconds: 5 },
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await heartbeatOf(t.app, user.token)).armed).toBe(false);
  });
});

describe('the dead man’s switch across two instances', () => {
  let two: TwoInstances;
  let admin: TestUser;
  let aOpen = true;

  beforeAll(async () => {
    two = await createTwoInstances();
    admin = await newAdmin(two.a.app);
  });
  afterAll(async () => {
    await expectInvariants(two.db.database);
    if (aOpen) await two.a.close();
    await two.b.close();
    await two.db.drop();
  });

  it('armed through instance A, which then stops: instance B’s job cancels the orders once the timeout passes', async () => {
    const optionId = (await createMarket(two.a.app, admin.token)).options[0]!.id;
    const user = await newUser(two.a.app);
    const bot = await createKey(two.a.app, user);
    const viaA = await place(two.a.app, bot.key, optionId, 'YES', 5, 40);
    const viaB = await place(two.b.app, bot.key, optionId, 'NO', 5, 40);
    const bySession = await place(two.b.app, user.token, optionId, 'YES', 1, 30);
    const armed = await beat(two.a.app, bot.key, 5);
    expect(await heartbeatOf(two.b.app, bot.key)).toEqual(armed);
    await two.a.close();
    aOpen = false;

    expect(await two.b.app.jobs.runNow('heartbeats')).toBe(0);
    expect(await openIds(two.b.app, user.token)).toEqual(byId(viaA, viaB, bySession));
    // The database's clock decides: B fires once the five seconds have passed, and not before.
    const deadline = Date.now() + 15_000;
    let fired = 0;
    while (fired === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      fired = await two.b.app.jobs.runNow('heartbeats');
    }
    expect(fired).toBe(1);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(armed.expiresAt ?? ''));
    expect(await openIds(two.b.app, user.token)).toEqual([bySession.id]);
    const orders = await ordersOf(two.b.app, user.token);
    for (const order of [viaA, viaB]) expect(orders.get(order.id)?.cancelReason).toBe('heartbeat_lapsed');
    expect(await heartbeatOf(two.b.app, bot.key)).toMatchObject({ armed: false, cancelledOrders: 2 });
    expect(await balanceOf(two.b.app, user.token)).toEqual({ cashCents: 99_970, reservedCents: 30 });
  });

  it('fires once when both instances look at the same lapsed switch at once', async () => {
    const b = two.b.app;
    const optionId = (await createMarket(b, admin.token)).options[0]!.id;
    const user = await newUser(b);
    const bot = await createKey(b, user);
    const orders = await Promise.all(
      [30, 31, 32, 33].map((price) => place(b, bot.key, optionId, 'YES', 2, price)),
    );
    await beat(b, bot.key, 30);
    await lapse(two.db.database, `apiKey:${bot.id}`);
    // A second instance on the same database, looking at the same moment as B.
    const c = await createTestApp({ database: two.db, env: {} });
    try {
      await Promise.all([b.jobs.runNow('heartbeats'), c.app.jobs.runNow('heartbeats')]);
    } finally {
      await c.close();
    }
    expect(await openIds(b, user.token)).toEqual([]);
    const all = await ordersOf(b, user.token);
    for (const order of orders) expect(all.get(order.id)?.cancelReason).toBe('heartbeat_lapsed');
    expect(await heartbeatOf(b, bot.key)).toMatchObject({ armed: false, cancelledOrders: 4 });
    expect(await balanceOf(b, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
  });
});
