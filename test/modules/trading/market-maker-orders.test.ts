import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/platform/db/database.js';
import {
  closeTwoInstances,
  createTestApp,
  createTestDatabase,
  createTwoInstances,
  expectInvariants,
  TEST_REDIS_URL,
  type TestApp,
  type TestDatabase,
  type TwoInstances,
} from '../../support/app.js';
import { balanceOf, createMarket, type Market, positionsOf } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { bookOf, Follower, freshSnapshot, sorted } from '../../support/follower.js';
import { StreamTestClient, streamUrl } from '../../support/stream-client.js';

/**
 * The market maker's order API through HTTP: batches with a result per order, idempotent batches, cancel by ids and
 * cancel-all, amend (in place or cancel-and-replace), time in force and post-only, the order budget, the market data
 * these send, and bots on two instances at once. Every outcome is checked where a trader sees it: the answer, the
 * balances, the positions, the open orders and the book; and the ledger's invariants after each app's last test.
 */

type Side = 'YES' | 'NO';
type Action = 'BUY' | 'SELL';

interface OrderBody {
  optionId?: string;
  eventSlug?: string;
  optionLabel?: string;
  side: Side;
  action: Action;
  quantity: number;
  limitPriceCents: number;
  timeInForce?: 'GTC' | 'GTD' | 'IOC' | 'FOK';
  postOnly?: boolean;
  expiresAt?: string;
  expiresInHours?: number;
  clientOrderId?: string;
}

interface LevelView {
  priceCents: number;
  quantity: number;
  orders: number;
  houseQuantity: number;
}

interface OrderJson {
  id: string;
  status: string;
  quantity: number;
  filledQuantity: number;
  remainingQuantity: number;
  priceCents: number;
  reservedCents: number;
  cancelReason: string | null;
  replacesOrderId: string | null;
  timeInForce: string;
  postOnly: boolean;
  expiresAt: string | null;
  trades: { quantity: number; priceCents: number }[];
}

/** One part of a batch's or a cancel's answer: `order` when it went through, else `error` (absent or null otherwise). */
interface PartJson {
  status: number;
  order?: OrderJson | null;
  error?: { code: string } | null;
}

const UNKNOWN_ID = '987654321';

async function redisAvailable(): Promise<boolean> {
  const probe = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A limit order's body on an option. */
function order(
  optionId: string,
  side: Side,
  action: Action,
  quantity: number,
  limitPriceCents: number,
  extra: Partial<OrderBody> = {},
): OrderBody {
  return { optionId, side, action, quantity, limitPriceCents, ...extra };
}

function post(
  app: FastifyInstance,
  token: string,
  url: string,
  payload: object,
  headers: Record<string, string> = {},
) {
  return app.inject({ method: 'POST', url, headers: { ...bearer(token), ...headers }, payload });
}

async function place(app: FastifyInstance, token: string, body: OrderBody): Promise<OrderJson> {
  const res = await post(app, token, '/api/limit-orders', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function batch(
  app: FastifyInstance,
  token: string,
  orders: OrderBody[],
  headers: Record<string, string> = {},
) {
  return post(app, token, '/api/limit-orders/batch', { orders }, headers);
}

function amend(
  app: FastifyInstance,
  token: string,
  orderId: string,
  changes: { remainingQuantity?: number; limitPriceCents?: number; clientOrderId?: string },
  headers: Record<string, string> = {},
) {
  return post(app, token, `/api/limit-orders/${orderId}/amend`, changes, headers);
}

function cancelAll(app: FastifyInstance, token: string, filter: Record<string, string> = {}) {
  return post(app, token, '/api/limit-orders/cancel-all', filter);
}

/** The YES ladder of an option as GET /api/orderbook shows it. */
async function ladder(
  app: FastifyInstance,
  optionId: string,
): Promise<{ bids: LevelView[]; asks: LevelView[] }> {
  const res = await app.inject({ url: `/api/orderbook/${optionId}` });
  expect(res.statusCode).toBe(200);
  return res.json().yes;
}

const level = (priceCents: number, quantity: number, orders = 1): LevelView => ({
  priceCents,
  quantity,
  orders,
  houseQuantity: 0,
});

/** The ids of a user's open (and partially filled) orders, ascending. */
async function openIds(app: FastifyInstance, token: string): Promise<string[]> {
  const res = await app.inject({ url: '/api/limit-orders?status=open&limit=200', headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res
    .json()
    .data.map((o: { id: string }) => o.id)
    .sort((x: string, y: string) => Number(x) - Number(y));
}

/** A user's order as their lists show it (open or history). */
async function orderOf(app: FastifyInstance, token: string, id: string): Promise<OrderJson> {
  for (const status of ['open', 'history']) {
    const res = await app.inject({
      url: `/api/limit-orders?status=${status}&limit=200`,
      headers: bearer(token),
    });
    const found = res.json().data.find((o: { id: string }) => o.id === id);
    if (found) return found;
  }
  throw new Error(`order ${id} is in neither list`);
}

async function orderCount(database: Database, user: TestUser): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM orders WHERE user_id = ${Number(user.id)}`.execute(database.db);
  return Number(rows[0]?.n);
}

/** A user holding `quantity` shares of `side` in the option, bought at 50 from a counterparty that gets the other side. */
async function holder(
  app: FastifyInstance,
  optionId: string,
  side: Side,
  quantity: number,
): Promise<TestUser> {
  const user = await newUser(app);
  const counterparty = await newUser(app);
  await place(app, user.token, order(optionId, side, 'BUY', quantity, 50));
  const fill = await place(
    app,
    counterparty.token,
    order(optionId, side === 'YES' ? 'NO' : 'YES', 'BUY', quantity, 50),
  );
  expect(fill.status).toBe('filled');
  return user;
}

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

const newMarket = (
  options: { label: string; liquidityCents?: number }[] = [{ label: 'Yes' }],
): Promise<Market> => createMarket(t.app, admin.token, { options });

describe('a batch of limit orders', () => {
  it('answers each order in the order given: placed, refused for its own reason, filled at once or not at all', async () => {
    const market = await newMarket([{ label: 'A' }, { label: 'B' }]);
    const [a, b] = [market.options[0]!.id, market.options[1]!.id];
    const [maker, other] = [await newUser(t.app), await newUser(t.app)];
    // 10 YES offered at 60 (a NO bid at 40).
    await place(t.app, other.token, order(a, 'NO', 'BUY', 10, 40));

    const res = await batch(t.app, maker.token, [
      order(a, 'YES', 'BUY', 5, 45, { postOnly: true }),
      order(UNKNOWN_ID, 'YES', 'BUY', 1, 50),
      order(b, 'YES', 'BUY', 2000, 60),
      order(a, 'YES', 'SELL', 5, 70),
      order(a, 'YES', 'BUY', 5, 60, { postOnly: true }),
      order(a, 'YES', 'BUY', 20, 60, { timeInForce: 'FOK' }),
      order(a, 'YES', 'BUY', 4, 60, { timeInForce: 'FOK' }),
      order(a, 'YES', 'BUY', 10, 62, { timeInForce: 'IOC' }),
      {
        eventSlug: market.slug,
        optionLabel: 'b',
        side: 'NO',
        action: 'BUY',
        quantity: 10,
        limitPriceCents: 30,
      },
      order(a, 'YES', 'BUY', 1, 10, { timeInForce: 'GTD' }),
      {
        eventSlug: market.slug,
        optionLabel: 'nothing',
        side: 'NO',
        action: 'BUY',
        quantity: 1,
        limitPriceCents: 30,
      },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const parts: PartJson[] = res.json().data;
    expect(parts.map((p) => [p.status, p.error?.code ?? null])).toEqual([
      [201, null],
      [404, 'NOT_FOUND'],
      [402, 'INSUFFICIENT_FUNDS'],
      [409, 'INSUFFICIENT_SHARES'],
      [409, 'POST_ONLY_WOULD_TAKE'],
      [409, 'FOK_NOT_FILLED'],
      [201, null],
      [201, null],
      [201, null],
      [400, 'VALIDATION_FAILED'],
      [404, 'NOT_FOUND'],
    ]);
    for (const part of parts) {
      expect(Boolean(part.order)).toBe(part.status === 201);
      expect(Boolean(part.error)).toBe(part.status !== 201);
    }
    const [rests, , , , , , fok, ioc, onB] = parts.map((p) => p.order);
    expect(rests).toMatchObject({ status: 'open', postOnly: true, reservedCents: 225, timeInForce: 'GTC' });
    expect(fok).toMatchObject({ status: 'filled', filledQuantity: 4, timeInForce: 'FOK', reservedCents: 0 });
    expect(fok?.trades).toEqual([expect.objectContaining({ quantity: 4, priceCents: 60 })]);
    // IOC: the 6 left at 60 fill, the other 4 are cancelled rather than rest.
    expect(ioc).toMatchObject({
      status: 'cancelled',
      cancelReason: 'unfilled_remainder',
      filledQuantity: 6,
      reservedCents: 0,
      timeInForce: 'IOC',
    });
    expect(ioc?.trades).toEqual([expect.objectContaining({ quantity: 6, priceCents: 60 })]);
    expect(onB).toMatchObject({ status: 'open', reservedCents: 300, optionId: b });

    // 225 + 300 reserved, 10 × 60 paid; nothing of the refused orders.
    expect(await balanceOf(t.app, maker.token)).toEqual({
      cashCents: 100_000 - 525 - 600,
      reservedCents: 525,
    });
    expect(await balanceOf(t.app, other.token)).toEqual({ cashCents: 99_600, reservedCents: 0 });
    const positions = await positionsOf(t.app, maker.token);
    expect(positions.data).toEqual([
      expect.objectContaining({
        optionId: a,
        side: 'YES',
        quantity: 10,
        costCents: 600,
        reservedQuantity: 0,
      }),
    ]);
    expect(await orderCount(t.database, maker)).toBe(4);
    expect(await openIds(t.app, maker.token)).toEqual([rests?.id, onB?.id]);
    expect(await ladder(t.app, a)).toEqual({ bids: [level(45, 5)], asks: [] });
    expect(await ladder(t.app, b)).toEqual({ bids: [], asks: [level(70, 10)] });
  });

  it('refuses the whole request when an order breaks the schema, or when it carries more than MAX_BATCH_ORDERS', async () => {
    const market = await newMarket();
    const optionId = market.options[0]!.id;
    const user = await newUser(t.app);
    const good = order(optionId, 'YES', 'BUY', 1, 20);

    const invalid = await batch(t.app, user.token, [good, { ...good, limitPriceCents: 100 }]);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().code).toBe('VALIDATION_FAILED');
    const unknownField = await batch(t.app, user.token, [good, { ...good, colour: 'red' } as OrderBody]);
    expect(unknownField.statusCode).toBe(400);
    const empty = await batch(t.app, user.token, []);
    expect(empty.statusCode).toBe(400);
    expect(t.config.maxBatchOrders).toBe(20);
    const tooMany = await batch(
      t.app,
      user.token,
      Array.from({ length: 21 }, (_, i) => order(optionId, 'YES', 'BUY', 1, 10 + i)),
    );
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().code).toBe('VALIDATION_FAILED');
    expect(await orderCount(t.database, user)).toBe(0);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });

    const full = await batch(
      t.app,
      user.token,
      Array.from({ length: 20 }, (_, i) => order(optionId, 'YES', 'BUY', 1, 10 + i)),
    );
    expect(full.statusCode).toBe(200);
    expect(full.json().data.map((p: PartJson) => p.status)).toEqual(Array(20).fill(201));
    // 10 + 11 + … + 29.
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 390, reservedCents: 390 });
    expect((await ladder(t.app, optionId)).bids).toHaveLength(20);
  });
});

describe('an idempotent batch', () => {
  it('replays a retry with the same key and body, and places nothing twice', async () => {
    const market = await newMarket();
    const optionId = market.options[0]!.id;
    const user = await newUser(t.app);
    const orders = [
      order(optionId, 'YES', 'BUY', 5, 40),
      order(optionId, 'NO', 'BUY', 5, 40),
      order(optionId, 'YES', 'BUY', 3, 41, { postOnly: true }),
    ];
    const first = await batch(t.app, user.token, orders, { 'idempotency-key': 'quotes-1' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.json().data.map((p: PartJson) => p.status)).toEqual([201, 201, 201]);
    const after = await balanceOf(t.app, user.token);

    const retry = await batch(t.app, user.token, orders, { 'idempotency-key': 'quotes-1' });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(await orderCount(t.database, user)).toBe(3);
    expect(await balanceOf(t.app, user.token)).toEqual(after);
    expect(await ladder(t.app, optionId)).toEqual({
      bids: [level(41, 3), level(40, 5)],
      asks: [level(60, 5)],
    });

    const other = await batch(
      t.app,
      user.token,
      [...orders.slice(0, 2), order(optionId, 'YES', 'BUY', 3, 42)],
      {
        'idempotency-key': 'quotes-1',
      },
    );
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('IDEMPOTENCY_MISMATCH');
    const shorter = await batch(t.app, user.token, orders.slice(0, 2), { 'idempotency-key': 'quotes-1' });
    expect(shorter.statusCode).toBe(409);
    expect(await orderCount(t.database, user)).toBe(3);

    // A key is the user's own: another user's batch under the same key is a batch of its own.
    const stranger = await newUser(t.app);
    const theirs = await batch(t.app, stranger.token, orders.slice(0, 1), { 'idempotency-key': 'quotes-1' });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data[0].status).toBe(201);
  });

  it('answers a retry of a batch with refused orders with the same results, placing the placed ones once', async () => {
    const market = await newMarket();
    const optionId = market.options[0]!.id;
    const user = await newUser(t.app);
    const orders = [order(optionId, 'YES', 'BUY', 5, 40), order(optionId, 'YES', 'BUY', 100_000, 50)];
    const first = await batch(t.app, user.token, orders, { 'idempotency-key': 'mixed' });
    expect(first.json().data.map((p: PartJson) => p.status)).toEqual([201, 402]);
    const retry = await batch(t.app, user.token, orders, { 'idempotency-key': 'mixed' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(await orderCount(t.database, user)).toBe(1);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 99_800, reservedCents: 200 });
  });

  it('answers a retry with each order’s first result, a refusal included, even when the book has moved since', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    const offer = await place(t.app, other.token, order(optionId, 'NO', 'BUY', 5, 55));
    const orders = [
      order(optionId, 'YES', 'BUY', 2, 40, { postOnly: true }),
      order(optionId, 'YES', 'BUY', 2, 45, { postOnly: true }),
    ];
    const first = await batch(t.app, user.token, orders, { 'idempotency-key': 'refused-once' });
    expect(first.json().data.map((p: PartJson) => [p.status, p.error?.code ?? null])).toEqual([
      [201, null],
      [409, 'POST_ONLY_WOULD_TAKE'],
    ]);
    // What the post-only order would have taken goes away; the retry still answers what the first request got.
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${offer.id}`,
      headers: bearer(other.token),
    });
    expect(del.statusCode).toBe(200);
    const retry = await batch(t.app, user.token, orders, { 'idempotency-key': 'refused-once' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data.map((p: PartJson) => [p.status, p.error?.code ?? null])).toEqual([
      [201, null],
      [409, 'POST_ONLY_WOULD_TAKE'],
    ]);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await orderCount(t.database, user)).toBe(1);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 99_920, reservedCents: 80 });
  });

  it('keeps the keys of single orders apart from the keys a batch uses for its orders', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const user = await newUser(t.app);
    const quote = order(optionId, 'YES', 'BUY', 1, 30);
    const batched = await batch(t.app, user.token, [quote], { 'idempotency-key': 'ladder' });
    expect(batched.json().data[0].status).toBe(201);
    // A single order under a key of its own is a new order, whatever its key looks like.
    const single = await post(t.app, user.token, '/api/limit-orders', quote, {
      'idempotency-key': 'batch:ladder:0',
    });
    expect(single.statusCode).toBe(201);
    expect(single.headers['idempotent-replayed']).toBeUndefined();
    expect(single.json().id).not.toBe(batched.json().data[0].order.id);
    // And a batch under a key never used for a batch is a new batch.
    const named = await post(t.app, user.token, '/api/limit-orders', quote, {
      'idempotency-key': 'batch:fresh',
    });
    expect(named.statusCode).toBe(201);
    const fresh = await batch(t.app, user.token, [quote], { 'idempotency-key': 'fresh' });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(await orderCount(t.database, user)).toBe(4);
  });

  it('places each order once when the same keyed batch is sent several times at once', async () => {
    const market = await newMarket([{ label: 'A' }, { label: 'B' }]);
    const [a, b] = [market.options[0]!.id, market.options[1]!.id];
    const user = await newUser(t.app);
    const orders = [
      order(a, 'YES', 'BUY', 5, 40),
      order(b, 'NO', 'BUY', 4, 30),
      order(a, 'NO', 'BUY', 3, 45),
      order(b, 'YES', 'BUY', 2, 20, { postOnly: true }),
    ];
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => batch(t.app, user.token, orders, { 'idempotency-key': 'storm' })),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const ids = answers.map((answer) => answer.json().data.map((p: PartJson) => p.order?.id ?? p.status));
    for (const seen of ids) expect(seen).toEqual(ids[0]);
    expect(ids[0]?.every((id: unknown) => typeof id === 'string')).toBe(true);
    expect(await orderCount(t.database, user)).toBe(4);
    expect(await balanceOf(t.app, user.token)).toEqual({
      cashCents: 100_000 - 200 - 120 - 135 - 40,
      reservedCents: 495,
    });
    expect(await ladder(t.app, a)).toEqual({ bids: [level(40, 5)], asks: [level(55, 3)] });
    expect(await ladder(t.app, b)).toEqual({ bids: [level(20, 2)], asks: [level(70, 4)] });
  });
});

describe('cancelling several orders', () => {
  it('cancels by ids with a result per id: own open 200, no longer open 409, another user’s or unknown 404', async () => {
    const market = await newMarket();
    const optionId = market.options[0]!.id;
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    const open = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 10, 30));
    const cancelled = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 5, 20));
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${cancelled.id}`,
      headers: bearer(user.token),
    });
    expect(del.statusCode).toBe(200);
    const partly = await place(t.app, user.token, order(optionId, 'NO', 'BUY', 10, 40));
    await place(t.app, other.token, order(optionId, 'YES', 'BUY', 4, 60));
    const theirs = await place(t.app, other.token, order(optionId, 'YES', 'BUY', 5, 25));
    expect(await balanceOf(t.app, user.token)).toEqual({
      cashCents: 100_000 - 300 - 400,
      reservedCents: 300 + 240,
    });

    const res = await post(t.app, user.token, '/api/limit-orders/cancel', {
      orderIds: [open.id, cancelled.id, theirs.id, UNKNOWN_ID, partly.id, open.id],
    });
    expect(res.statusCode, res.body).toBe(200);
    const parts: (PartJson & { orderId: string })[] = res.json().data;
    expect(parts.map((p) => [p.orderId, p.status, p.error?.code ?? null])).toEqual([
      [open.id, 200, null],
      [cancelled.id, 409, 'ORDER_NOT_OPEN'],
      [theirs.id, 404, 'NOT_FOUND'],
      [UNKNOWN_ID, 404, 'NOT_FOUND'],
      [partly.id, 200, null],
      [open.id, 409, 'ORDER_NOT_OPEN'],
    ]);
    expect(parts[0]?.order).toMatchObject({
      id: open.id,
      status: 'cancelled',
      cancelReason: 'cancelled_by_user',
      reservedCents: 0,
    });
    expect(parts[4]?.order).toMatchObject({ status: 'cancelled', filledQuantity: 4, reservedCents: 0 });
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 160, reservedCents: 0 });
    expect(await openIds(t.app, user.token)).toEqual([]);
    expect(await openIds(t.app, other.token)).toEqual([theirs.id]);
    expect(await ladder(t.app, optionId)).toEqual({ bids: [level(25, 5)], asks: [] });
  });

  it('names each id in its answer as it was sent, one past what a double holds exactly included', async () => {
    const user = await newUser(t.app);
    const sent = ['9999999999999999', '9007199254740993'];
    const res = await post(t.app, user.token, '/api/limit-orders/cancel', { orderIds: sent });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((p: PartJson & { orderId: string }) => [p.orderId, p.status])).toEqual([
      [sent[0], 404],
      [sent[1], 404],
    ]);
  });

  it('cancel-all takes each filter (optionId, eventSlug, side, action, none) and releases what the orders held', async () => {
    const x = await newMarket([{ label: 'X1' }, { label: 'X2' }]);
    const y = await newMarket([{ label: 'Y1' }]);
    const [x1, x2, y1] = [x.options[0]!.id, x.options[1]!.id, y.options[0]!.id];
    const user = await newUser(t.app);
    const other = await newUser(t.app);
    // 20 YES of X1 and 20 NO of Y1, bought at 50.
    await place(t.app, user.token, order(x1, 'YES', 'BUY', 20, 50));
    await place(t.app, other.token, order(x1, 'NO', 'BUY', 20, 50));
    await place(t.app, user.token, order(y1, 'NO', 'BUY', 20, 50));
    await place(t.app, other.token, order(y1, 'YES', 'BUY', 20, 50));
    const theirs = await place(t.app, other.token, order(x1, 'YES', 'BUY', 5, 25));

    const a = await place(t.app, user.token, order(x1, 'YES', 'BUY', 5, 30));
    const b = await place(t.app, user.token, order(x1, 'YES', 'SELL', 5, 80));
    const c = await place(t.app, user.token, order(x1, 'NO', 'BUY', 5, 20));
    const d = await place(t.app, user.token, order(x2, 'YES', 'BUY', 5, 30));
    const e = await place(t.app, user.token, order(y1, 'YES', 'BUY', 5, 30));
    const f = await place(t.app, user.token, order(y1, 'NO', 'SELL', 5, 80));
    const g = await place(t.app, user.token, order(y1, 'NO', 'BUY', 5, 40));
    let reserved = 150 + 100 + 150 + 150 + 200;
    const cash = 100_000 - 2000;
    expect(await balanceOf(t.app, user.token)).toEqual({
      cashCents: cash - reserved,
      reservedCents: reserved,
    });
    const reservedShares = async () =>
      (await positionsOf(t.app, user.token)).data.map(
        (p: { reservedQuantity: number }) => p.reservedQuantity,
      );
    expect(await reservedShares()).toEqual([5, 5]);

    const steps: [Record<string, string>, OrderJson[], number][] = [
      [{ optionId: x2 }, [d], 150],
      [{ action: 'SELL' }, [b, f], 0],
      [{ eventSlug: x.slug, side: 'NO', action: 'BUY' }, [c], 100],
      [{ side: 'NO' }, [g], 200],
      [{ eventSlug: 'no-such-event' }, [], 0],
      [{ optionId: UNKNOWN_ID }, [], 0],
      [{ eventSlug: y.slug }, [e], 150],
      [{}, [a], 150],
      [{}, [], 0],
    ];
    let left = [a, b, c, d, e, f, g];
    for (const [filter, expected, released] of steps) {
      const res = await cancelAll(t.app, user.token, filter);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.cancelledCount).toBe(expected.length);
      expect(body.data.map((o: OrderJson) => o.id)).toEqual(expected.map((o) => o.id));
      for (const cancelledOrder of body.data)
        expect(cancelledOrder).toMatchObject({ status: 'cancelled', reservedCents: 0 });
      left = left.filter((o) => !expected.includes(o));
      expect(await openIds(t.app, user.token)).toEqual(left.map((o) => o.id));
      reserved -= released;
      expect(await balanceOf(t.app, user.token)).toEqual({
        cashCents: cash - reserved,
        reservedCents: reserved,
      });
      if (filter.action === 'SELL') expect(await reservedShares()).toEqual([0, 0]);
    }
    expect(await openIds(t.app, other.token)).toEqual([theirs.id]);
    expect(await ladder(t.app, x1)).toEqual({ bids: [level(25, 5)], asks: [] });
    expect(await ladder(t.app, x2)).toEqual({ bids: [], asks: [] });
    expect(await ladder(t.app, y1)).toEqual({ bids: [], asks: [] });
  });
});

describe('amending an order', () => {
  it('keeps its time priority when it shrinks at the same price, and frees what it no longer needs', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const [first, second, taker] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const o1 = await place(t.app, first.token, order(optionId, 'YES', 'BUY', 10, 40));
    const o2 = await place(t.app, second.token, order(optionId, 'YES', 'BUY', 10, 40));

    const res = await amend(t.app, first.token, o1.id, { remainingQuantity: 6 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      priorityKept: true,
      replacedOrder: null,
      order: { id: o1.id, status: 'open', quantity: 6, remainingQuantity: 6, reservedCents: 240, trades: [] },
    });
    expect(await balanceOf(t.app, first.token)).toEqual({ cashCents: 99_760, reservedCents: 240 });
    expect(await ladder(t.app, optionId)).toEqual({ bids: [level(40, 16, 2)], asks: [] });

    // 8 NO at 60 take the YES bids at 40: the first order, shrunk but still first, then 2 of the second.
    const take = await place(t.app, taker.token, order(optionId, 'NO', 'BUY', 8, 60));
    expect(take.trades.map((trade) => trade.quantity)).toEqual([6, 2]);
    expect(await orderOf(t.app, first.token, o1.id)).toMatchObject({ status: 'filled', filledQuantity: 6 });
    expect(await orderOf(t.app, second.token, o2.id)).toMatchObject({
      status: 'partially_filled',
      filledQuantity: 2,
    });
    expect(await balanceOf(t.app, first.token)).toEqual({ cashCents: 99_760, reservedCents: 0 });

    // A partly filled order shrinks too: what is left to fill is what is named.
    const shrunk = await amend(t.app, second.token, o2.id, { remainingQuantity: 3 });
    expect(shrunk.json().order).toMatchObject({
      id: o2.id,
      quantity: 5,
      filledQuantity: 2,
      remainingQuantity: 3,
      reservedCents: 120,
    });
    expect(await balanceOf(t.app, second.token)).toEqual({
      cashCents: 100_000 - 80 - 120,
      reservedCents: 120,
    });
    expect(await ladder(t.app, optionId)).toEqual({ bids: [level(40, 3)], asks: [] });
  });

  it('loses its time priority on a new price or more shares: cancel-and-replace', async () => {
    const market = await newMarket([{ label: 'Price' }, { label: 'Size' }]);
    const [byPrice, bySize] = [market.options[0]!.id, market.options[1]!.id];
    const [first, second, taker] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];

    const o1 = await place(t.app, first.token, order(byPrice, 'YES', 'BUY', 10, 40));
    const o2 = await place(t.app, second.token, order(byPrice, 'YES', 'BUY', 10, 40));
    const up = await amend(t.app, first.token, o1.id, { limitPriceCents: 41 });
    expect(up.statusCode, up.body).toBe(200);
    const r1 = up.json().order as OrderJson;
    expect(up.json()).toMatchObject({
      priorityKept: false,
      replacedOrder: { id: o1.id, status: 'cancelled', cancelReason: 'replaced', reservedCents: 0 },
      order: { status: 'open', priceCents: 41, quantity: 10, replacesOrderId: o1.id, reservedCents: 410 },
    });
    expect(r1.id).not.toBe(o1.id);
    const back = await amend(t.app, first.token, r1.id, { limitPriceCents: 40 });
    const r2 = back.json().order as OrderJson;
    expect(r2).toMatchObject({ priceCents: 40, replacesOrderId: r1.id, reservedCents: 400 });
    expect(await orderOf(t.app, first.token, r1.id)).toMatchObject({
      status: 'cancelled',
      cancelReason: 'replaced',
    });
    expect(await openIds(t.app, first.token)).toEqual([r2.id]);
    expect(await balanceOf(t.app, first.token)).toEqual({ cashCents: 99_600, reservedCents: 400 });
    // Back at 40, behind the second user's order.
    const take = await place(t.app, taker.token, order(byPrice, 'NO', 'BUY', 10, 60));
    expect(take.status).toBe('filled');
    expect(await orderOf(t.app, second.token, o2.id)).toMatchObject({ status: 'filled' });
    expect(await orderOf(t.app, first.token, r2.id)).toMatchObject({ status: 'open', filledQuantity: 0 });

    const s1 = await place(t.app, first.token, order(bySize, 'YES', 'BUY', 5, 40));
    const s2 = await place(t.app, second.token, order(bySize, 'YES', 'BUY', 5, 40));
    const more = await amend(t.app, first.token, s1.id, { remainingQuantity: 8 });
    expect(more.json()).toMatchObject({
      priorityKept: false,
      replacedOrder: { id: s1.id, cancelReason: 'replaced' },
      order: { quantity: 8, priceCents: 40, replacesOrderId: s1.id, reservedCents: 320 },
    });
    const sized = await place(t.app, taker.token, order(bySize, 'NO', 'BUY', 5, 60));
    expect(sized.status).toBe('filled');
    expect(await orderOf(t.app, second.token, s2.id)).toMatchObject({ status: 'filled' });
    expect(await orderOf(t.app, first.token, more.json().order.id)).toMatchObject({ filledQuantity: 0 });
    expect(await balanceOf(t.app, first.token)).toEqual({ cashCents: 100_000 - 720, reservedCents: 720 });
    expect(await ladder(t.app, bySize)).toEqual({ bids: [level(40, 8)], asks: [] });
  });

  it('is refused with nothing changed when the replacement cannot be placed', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const buyer = await newUser(t.app);
    const big = await place(t.app, buyer.token, order(optionId, 'YES', 'BUY', 1000, 50));
    const book = await ladder(t.app, optionId);

    // 2500 at 50 needs 125,000; the order's 50,000 and the 50,000 cash left make 100,000.
    for (const changes of [{ remainingQuantity: 2500 }, { remainingQuantity: 1500, limitPriceCents: 99 }]) {
      const res = await amend(t.app, buyer.token, big.id, changes);
      expect(res.statusCode).toBe(402);
      expect(res.json().code).toBe('INSUFFICIENT_FUNDS');
    }
    expect(await openIds(t.app, buyer.token)).toEqual([big.id]);
    expect(await orderOf(t.app, buyer.token, big.id)).toMatchObject({ quantity: 1000, priceCents: 50 });
    expect(await balanceOf(t.app, buyer.token)).toEqual({ cashCents: 50_000, reservedCents: 50_000 });
    expect(await ladder(t.app, optionId)).toEqual(book);
    expect(await orderCount(t.database, buyer)).toBe(1);
    // Exactly what it has, counting what the old order frees: placed.
    const all = await amend(t.app, buyer.token, big.id, { remainingQuantity: 2000 });
    expect(all.statusCode, all.body).toBe(200);
    expect(await balanceOf(t.app, buyer.token)).toEqual({ cashCents: 0, reservedCents: 100_000 });

    const held = (await newMarket()).options[0]!.id;
    const seller = await holder(t.app, held, 'NO', 10);
    const ask = await place(t.app, seller.token, order(held, 'NO', 'SELL', 10, 70));
    const short = await amend(t.app, seller.token, ask.id, { remainingQuantity: 11 });
    expect(short.statusCode).toBe(409);
    expect(short.json().code).toBe('INSUFFICIENT_SHARES');
    expect(await orderOf(t.app, seller.token, ask.id)).toMatchObject({ status: 'open', quantity: 10 });
    expect((await positionsOf(t.app, seller.token)).data[0]).toMatchObject({
      quantity: 10,
      reservedQuantity: 10,
    });

    // A post-only order's replacement that would take is refused like the order would be.
    const poster = await newUser(t.app);
    const quiet = await place(t.app, poster.token, order(optionId, 'NO', 'BUY', 5, 40, { postOnly: true }));
    const crossing = await amend(t.app, poster.token, quiet.id, { limitPriceCents: 51 });
    expect(crossing.statusCode).toBe(409);
    expect(crossing.json().code).toBe('POST_ONLY_WOULD_TAKE');
    expect(await openIds(t.app, poster.token)).toEqual([quiet.id]);
    expect(await balanceOf(t.app, poster.token)).toEqual({ cashCents: 99_800, reservedCents: 200 });
  });

  it('fills at once when the new price crosses the book, and rests the rest', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    const bid = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 10, 40));
    await place(t.app, other.token, order(optionId, 'NO', 'BUY', 5, 55));
    const res = await amend(t.app, user.token, bid.id, { limitPriceCents: 46, clientOrderId: 'lifted' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      priorityKept: false,
      replacedOrder: { id: bid.id, status: 'cancelled', cancelReason: 'replaced' },
      order: {
        status: 'partially_filled',
        filledQuantity: 5,
        remainingQuantity: 5,
        priceCents: 46,
        reservedCents: 230,
        clientOrderId: 'lifted',
        replacesOrderId: bid.id,
      },
    });
    expect(res.json().order.trades).toEqual([expect.objectContaining({ quantity: 5, priceCents: 45 })]);
    expect(await balanceOf(t.app, user.token)).toEqual({
      cashCents: 100_000 - 225 - 230,
      reservedCents: 230,
    });
    expect(await balanceOf(t.app, other.token)).toEqual({ cashCents: 100_000 - 275, reservedCents: 0 });
    expect((await positionsOf(t.app, user.token)).data[0]).toMatchObject({ side: 'YES', quantity: 5 });
    expect(await ladder(t.app, optionId)).toEqual({ bids: [level(46, 5)], asks: [] });
  });

  it('answers a retry under the same Idempotency-Key with the first result, and never replaces twice', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const user = await newUser(t.app);
    const bid = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 10, 40));
    const key = { 'idempotency-key': 'move-1' };
    const first = await amend(t.app, user.token, bid.id, { limitPriceCents: 42 }, key);
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await amend(t.app, user.token, bid.id, { limitPriceCents: 42 }, key);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    const mismatch = await amend(t.app, user.token, bid.id, { limitPriceCents: 43 }, key);
    expect(mismatch.statusCode).toBe(409);
    expect(mismatch.json().code).toBe('IDEMPOTENCY_MISMATCH');

    const replacement = first.json().order.id;
    expect(await orderCount(t.database, user)).toBe(2);
    expect(await openIds(t.app, user.token)).toEqual([replacement]);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 99_580, reservedCents: 420 });

    const concurrent = await Promise.all(
      [0, 1, 2].map(() =>
        amend(t.app, user.token, replacement, { limitPriceCents: 44 }, { 'idempotency-key': 'move-2' }),
      ),
    );
    const ids = concurrent.map((res) => res.json().order.id);
    expect(new Set(ids).size).toBe(1);
    expect(await orderCount(t.database, user)).toBe(3);
    expect(await ladder(t.app, optionId)).toEqual({ bids: [level(44, 10)], asks: [] });
  });

  it('refuses an order no longer open (409), another user’s or an unknown one (404), and an empty change (400)', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    const filled = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 5, 40));
    await place(t.app, other.token, order(optionId, 'NO', 'BUY', 5, 60));
    const cancelled = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 5, 30));
    await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${cancelled.id}`,
      headers: bearer(user.token),
    });
    const open = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 5, 35));

    for (const id of [filled.id, cancelled.id]) {
      const res = await amend(t.app, user.token, id, { limitPriceCents: 45 });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('ORDER_NOT_OPEN');
    }
    for (const [token, id] of [
      [other.token, open.id],
      [user.token, UNKNOWN_ID],
    ] as const) {
      const res = await amend(t.app, token, id, { remainingQuantity: 1 });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
    }
    const empty = await amend(t.app, user.token, open.id, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('VALIDATION_FAILED');
    const sameAgain = await amend(t.app, user.token, open.id, { remainingQuantity: 5, limitPriceCents: 35 });
    expect(sameAgain.json()).toMatchObject({ priorityKept: true, order: { id: open.id, quantity: 5 } });
    expect(await openIds(t.app, user.token)).toEqual([open.id]);
    expect(await balanceOf(t.app, user.token)).toEqual({
      cashCents: 100_000 - 200 - 175,
      reservedCents: 175,
    });
  });
});

describe('time in force and post-only', () => {
  it('GTD rests until its expiry, then the expiry job ends it and releases its cash', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const user = await newUser(t.app);
    const expiresAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const gtd = await place(
      t.app,
      user.token,
      order(optionId, 'YES', 'BUY', 5, 40, { timeInForce: 'GTD', expiresAt }),
    );
    expect(gtd).toMatchObject({ status: 'open', timeInForce: 'GTD', expiresAt });
    const implied = await place(t.app, user.token, order(optionId, 'YES', 'BUY', 5, 39, { expiresAt }));
    expect(implied.timeInForce).toBe('GTD');
    const inHours = await place(
      t.app,
      user.token,
      order(optionId, 'YES', 'BUY', 5, 38, { expiresInHours: 3 }),
    );
    expect(inHours.timeInForce).toBe('GTD');
    expect(Math.abs(Date.parse(inHours.expiresAt ?? '') - (Date.now() + 3 * 3_600_000))).toBeLessThan(60_000);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 585, reservedCents: 585 });

    await sql`UPDATE orders SET expires_at = now() - interval '1 second' WHERE id = ${Number(gtd.id)}`.execute(
      t.database.db,
    );
    expect(await t.app.jobs.runNow('expire-orders')).toBe(1);
    expect(await orderOf(t.app, user.token, gtd.id)).toMatchObject({ status: 'expired', reservedCents: 0 });
    expect(await openIds(t.app, user.token)).toEqual([implied.id, inHours.id]);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 385, reservedCents: 385 });
    expect(await ladder(t.app, optionId)).toEqual({ bids: [level(39, 5), level(38, 5)], asks: [] });
  });

  it('IOC fills what it can at once and never rests', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    const nothing = await place(
      t.app,
      user.token,
      order(optionId, 'YES', 'BUY', 10, 40, { timeInForce: 'IOC' }),
    );
    expect(nothing).toMatchObject({
      status: 'cancelled',
      cancelReason: 'unfilled_remainder',
      filledQuantity: 0,
      reservedCents: 0,
    });
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
    await place(t.app, other.token, order(optionId, 'NO', 'BUY', 4, 55));
    const some = await place(
      t.app,
      user.token,
      order(optionId, 'YES', 'BUY', 10, 50, { timeInForce: 'IOC' }),
    );
    expect(some).toMatchObject({
      status: 'cancelled',
      filledQuantity: 4,
      remainingQuantity: 6,
      reservedCents: 0,
    });
    expect(some.trades).toEqual([expect.objectContaining({ quantity: 4, priceCents: 45 })]);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 180, reservedCents: 0 });
    expect(await openIds(t.app, user.token)).toEqual([]);
    expect(await ladder(t.app, optionId)).toEqual({ bids: [], asks: [] });
  });

  it('FOK fills whole or is refused with nothing written or charged', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    await place(t.app, other.token, order(optionId, 'NO', 'BUY', 3, 55));
    await place(t.app, other.token, order(optionId, 'NO', 'BUY', 3, 53));
    const book = await ladder(t.app, optionId);
    expect(book).toEqual({ bids: [], asks: [level(45, 3), level(47, 3)] });

    for (const [quantity, price] of [
      [7, 47],
      [6, 46],
    ] as const) {
      const res = await post(
        t.app,
        user.token,
        '/api/limit-orders',
        order(optionId, 'YES', 'BUY', quantity, price, { timeInForce: 'FOK' }),
      );
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('FOK_NOT_FILLED');
    }
    expect(await orderCount(t.database, user)).toBe(0);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
    expect(await ladder(t.app, optionId)).toEqual(book);

    const whole = await place(
      t.app,
      user.token,
      order(optionId, 'YES', 'BUY', 6, 47, { timeInForce: 'FOK' }),
    );
    expect(whole).toMatchObject({ status: 'filled', filledQuantity: 6 });
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 135 - 141, reservedCents: 0 });
    expect(await ladder(t.app, optionId)).toEqual({ bids: [], asks: [] });
  });

  it('post-only never takes, from a resting order or the house', async () => {
    const market = await newMarket([{ label: 'Users' }, { label: 'House', liquidityCents: 5_000 }]);
    const [users, house] = [market.options[0]!.id, market.options[1]!.id];
    const [user, other] = [await newUser(t.app), await newUser(t.app)];
    await place(t.app, other.token, order(users, 'NO', 'BUY', 5, 55));
    const housed = await ladder(t.app, house);
    for (const [optionId, side, price] of [
      [users, 'YES', 45],
      [users, 'YES', 60],
      [house, 'YES', housed.asks[0]!.priceCents],
      [house, 'NO', 100 - housed.bids[0]!.priceCents],
    ] as const) {
      const res = await post(
        t.app,
        user.token,
        '/api/limit-orders',
        order(optionId, side, 'BUY', 5, price, { postOnly: true }),
      );
      expect(res.statusCode, `${side} @ ${price}`).toBe(409);
      expect(res.json().code).toBe('POST_ONLY_WOULD_TAKE');
    }
    expect(await orderCount(t.database, user)).toBe(0);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
    const rests = await place(t.app, user.token, order(users, 'YES', 'BUY', 5, 44, { postOnly: true }));
    expect(rests).toMatchObject({ status: 'open', postOnly: true, filledQuantity: 0 });
    expect(await ladder(t.app, users)).toEqual({ bids: [level(44, 5)], asks: [level(45, 5)] });
    expect(await ladder(t.app, house)).toEqual(housed);
  });

  it('refuses an expiresAt that names no instant (a leap second) with 400, in a keyed batch too', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const user = await newUser(t.app);
    const body = order(optionId, 'YES', 'BUY', 1, 40, { expiresAt: '2026-12-31T23:59:60Z' });
    const single = await post(t.app, user.token, '/api/limit-orders', body, { 'idempotency-key': 'leap-1' });
    expect(single.statusCode).toBe(400);
    expect(single.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'body.expiresAt' }],
    });
    const unkeyed = await batch(t.app, user.token, [body]);
    expect(unkeyed.json().data[0]).toMatchObject({ status: 400, error: { code: 'VALIDATION_FAILED' } });
    const keyed = await batch(t.app, user.token, [body, order(optionId, 'YES', 'BUY', 1, 41)], {
      'idempotency-key': 'leap-2',
    });
    expect(keyed.statusCode, keyed.body).toBe(200);
    expect(keyed.json().data.map((p: PartJson) => p.status)).toEqual([400, 201]);
    expect(await orderCount(t.database, user)).toBe(1);
  });

  it('refuses terms that contradict each other (400), in a single order and in a batch', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const user = await newUser(t.app);
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const cases: [Partial<OrderBody>, string][] = [
      [{ timeInForce: 'GTC', expiresAt: soon }, 'timeInForce'],
      [{ timeInForce: 'GTC', expiresInHours: 2 }, 'timeInForce'],
      [{ timeInForce: 'IOC', expiresInHours: 2 }, 'timeInForce'],
      [{ timeInForce: 'GTD' }, 'expiresAt'],
      [{ expiresAt: soon, expiresInHours: 2 }, 'expiresAt'],
      [{ timeInForce: 'GTD', expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt'],
      [{ expiresAt: new Date(Date.now() + 721 * 3_600_000).toISOString() }, 'expiresAt'],
      [{ timeInForce: 'IOC', postOnly: true }, 'postOnly'],
      [{ timeInForce: 'FOK', postOnly: true }, 'postOnly'],
    ];
    for (const [terms, field] of cases) {
      const body = order(optionId, 'YES', 'BUY', 1, 40, terms);
      const res = await post(t.app, user.token, '/api/limit-orders', body);
      expect(res.statusCode, JSON.stringify(terms)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: `body.${field}` }] });
      const part = (await batch(t.app, user.token, [body])).json().data[0];
      expect(part).toMatchObject({ status: 400, error: { code: 'VALIDATION_FAILED' } });
      expect(part.order ?? null).toBeNull();
    }
    expect(await orderCount(t.database, user)).toBe(0);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
  });
});

describe('the order budget', () => {
  let small: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    small = await createTestApp({
      env: { ORDER_RATE_LIMIT: '5', ORDER_RATE_WINDOW_MS: '60000' },
    });
    owner = await newAdmin(small.app);
  });
  afterAll(async () => {
    vi.useRealTimers();
    await expectInvariants(small.database);
    await small.close();
  });

  it('counts each order of a batch, refuses what passes it whole (429), and never refuses a cancel', async () => {
    const optionId = (await createMarket(small.app, owner.token)).options[0]!.id;
    const [user, neighbour] = [await newUser(small.app), await newUser(small.app)];
    const four = Array.from({ length: 4 }, (_, i) => order(optionId, 'YES', 'BUY', 1, 30 + i));

    const probe = await small.app.inject({ url: '/api/auth/me', headers: bearer(user.token) });
    const first = await batch(small.app, user.token, four);
    expect(first.statusCode).toBe(200);
    // One request against the request budget, four orders against the order budget.
    expect(Number(first.headers['ratelimit-remaining'])).toBe(
      Number(probe.headers['ratelimit-remaining']) - 1,
    );
    expect(first.headers['order-ratelimit-limit']).toBe('5');
    expect(first.headers['order-ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['order-ratelimit-reset'])).toBeGreaterThan(0);

    const second = await batch(small.app, user.token, [
      order(optionId, 'YES', 'BUY', 1, 20),
      order(optionId, 'YES', 'BUY', 1, 21),
    ]);
    expect(second.statusCode).toBe(429);
    expect(second.json().code).toBe('ORDER_RATE_LIMITED');
    const retryAfter = Number(second.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(second.headers['order-ratelimit-limit']).toBe('5');
    expect(second.headers['order-ratelimit-remaining']).toBe('1');
    expect(second.headers['order-ratelimit-reset']).toBeDefined();
    expect(await orderCount(small.database, user)).toBe(4);

    // More orders than any window allows: a request that can never pass.
    const six = await batch(
      small.app,
      user.token,
      Array.from({ length: 6 }, (_, i) => order(optionId, 'YES', 'BUY', 1, 10 + i)),
    );
    expect(six.statusCode).toBe(400);

    // Pulling quotes always works, however spent the budget.
    const pulled = await cancelAll(small.app, user.token);
    expect(pulled.statusCode).toBe(200);
    expect(pulled.json().cancelledCount).toBe(4);
    expect(await balanceOf(small.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });

    // Single orders draw on the same budget, and so does an amend.
    const single = await post(
      small.app,
      user.token,
      '/api/limit-orders',
      order(optionId, 'YES', 'BUY', 1, 40),
    );
    expect(single.statusCode).toBe(201);
    expect(single.headers['order-ratelimit-remaining']).toBe('0');
    const over = await post(small.app, user.token, '/api/limit-orders', order(optionId, 'YES', 'BUY', 1, 41));
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('ORDER_RATE_LIMITED');
    expect(over.headers['retry-after']).toBeDefined();
    const amended = await amend(small.app, user.token, single.json().id, { limitPriceCents: 42 });
    expect(amended.statusCode).toBe(429);
    const cancelled = await post(small.app, user.token, '/api/limit-orders/cancel', {
      orderIds: [single.json().id],
    });
    expect(cancelled.json().data[0].status).toBe(200);
    expect(await orderCount(small.database, user)).toBe(5);

    // The budget is each user's own.
    const theirs = await batch(
      small.app,
      neighbour.token,
      Array.from({ length: 5 }, (_, i) => order(optionId, 'NO', 'BUY', 1, 30 + i)),
    );
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['order-ratelimit-remaining']).toBe('0');

    // A new window: the budget is whole again.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    const later = await batch(small.app, user.token, four.slice(0, 2));
    vi.useRealTimers();
    expect(later.statusCode).toBe(200);
    expect(later.headers['order-ratelimit-remaining']).toBe('3');
  });
});

describe.skipIf(!(await redisAvailable()))('the order budget on two instances sharing Redis', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      ORDER_RATE_LIMIT: '5',
      ORDER_RATE_WINDOW_MS: '60000',
      REDIS_KEY_PREFIX: `pmx-test-${randomBytes(4).toString('hex')}:`,
    };
    a = await createTestApp({ database: db, env, redis: true });
    b = await createTestApp({ database: db, env, redis: true });
  });
  afterAll(async () => {
    await expectInvariants(db.database);
    await a.close();
    await b.close();
    await db.drop();
  });

  it('draws both instances from one budget per user', async () => {
    const owner = await newAdmin(a.app);
    const optionId = (await createMarket(a.app, owner.token)).options[0]!.id;
    const user = await newUser(a.app);
    const four = await batch(
      a.app,
      user.token,
      Array.from({ length: 4 }, (_, i) => order(optionId, 'YES', 'BUY', 1, 30 + i)),
    );
    expect(four.statusCode).toBe(200);
    const two = await batch(b.app, user.token, [
      order(optionId, 'YES', 'BUY', 1, 20),
      order(optionId, 'YES', 'BUY', 1, 21),
    ]);
    expect(two.statusCode).toBe(429);
    expect(two.json().code).toBe('ORDER_RATE_LIMITED');
    expect(two.headers['order-ratelimit-remaining']).toBe('1');
    const one = await post(b.app, user.token, '/api/limit-orders', order(optionId, 'YES', 'BUY', 1, 22));
    expect(one.statusCode).toBe(201);
    expect(await orderCount(db.database, user)).toBe(5);
  });
});

describe('market data through batches, cancel-all and amends', () => {
  let url: string;

  beforeAll(async () => {
    url = await streamUrl(t);
  });

  it('a follower of the stream holds what GET /api/orderbook and a fresh snapshot show, after every step', async () => {
    const optionId = (await newMarket([{ label: 'Followed', liquidityCents: 2_000 }])).options[0]!.id;
    const channel = `book:${optionId}`;
    const [u1, u2] = [await newUser(t.app), await newUser(t.app)];
    const follower = await Follower.open(url, channel);
    const agree = async () => {
      const { rows } = await sql<{ book_version: number }>`
        SELECT book_version FROM options WHERE id = ${Number(optionId)}`.execute(t.database.db);
      const version = Number(rows[0]?.book_version);
      const deadline = Date.now() + 5_000;
      while (follower.seq < version) {
        if (Date.now() > deadline)
          throw new Error(`the follower is at seq ${follower.seq}, the book at ${version}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const fresh = await freshSnapshot(url, channel);
      expect(fresh.seq).toBe(follower.seq);
      expect(sorted(follower.book)).toEqual(fresh.levels);
      const read = (await t.app.inject({ url: `/api/orderbook/${optionId}` })).json();
      expect(read.bookVersion).toBe(follower.seq);
      const levels = [
        ...read.yes.bids.map((l: LevelView) => ({ side: 'bid', ...l })),
        ...read.yes.asks.map((l: LevelView) => ({ side: 'ask', ...l })),
      ];
      expect(sorted(bookOf(levels))).toEqual(fresh.levels);
    };
    try {
      await agree();
      const quotes = await batch(t.app, u1.token, [
        order(optionId, 'YES', 'BUY', 5, 40),
        order(optionId, 'YES', 'BUY', 3, 41, { postOnly: true }),
        order(optionId, 'NO', 'BUY', 4, 42),
        order(optionId, 'YES', 'SELL', 2, 60),
        order(optionId, 'NO', 'BUY', 6, 38, { postOnly: true }),
      ]);
      expect(quotes.statusCode).toBe(200);
      await agree();
      const ids = (res: typeof quotes) =>
        res
          .json()
          .data.flatMap((p: PartJson) => (p.order && p.order.status !== 'filled' ? [p.order.id] : []));
      const own = ids(quotes);
      const hits = await batch(t.app, u2.token, [
        order(optionId, 'NO', 'BUY', 4, 60),
        order(optionId, 'YES', 'BUY', 5, 30),
        order(optionId, 'NO', 'BUY', 3, 35, { postOnly: true }),
        order(optionId, 'YES', 'BUY', 2, 45, { timeInForce: 'IOC' }),
      ]);
      expect(hits.statusCode).toBe(200);
      await agree();
      const theirs = ids(hits);
      const steps: [TestUser, string, { remainingQuantity?: number; limitPriceCents?: number }][] = [
        [u1, own[0], { remainingQuantity: 2 }],
        [u1, own[1], { limitPriceCents: 39 }],
        [u2, theirs[0], { remainingQuantity: 9 }],
        [u2, theirs[1], { limitPriceCents: 75 }],
      ];
      const kept: boolean[] = [];
      for (const [user, id, changes] of steps) {
        if (id === undefined) continue;
        const res = await amend(t.app, user.token, id, changes);
        expect([200, 402, 409], res.body).toContain(res.statusCode);
        if (res.statusCode === 200) kept.push(res.json().priorityKept);
        await agree();
      }
      // Both kinds of amend happened: one in place, one replaced.
      expect(kept).toContain(true);
      expect(kept).toContain(false);
      expect((await cancelAll(t.app, u1.token, { side: 'NO' })).statusCode).toBe(200);
      await agree();
      const again = await batch(t.app, u1.token, [
        order(optionId, 'YES', 'BUY', 7, 37),
        order(optionId, 'NO', 'BUY', 7, 52),
      ]);
      expect(again.statusCode).toBe(200);
      await agree();
      const cancel = await post(t.app, u1.token, '/api/limit-orders/cancel', { orderIds: ids(again) });
      expect(cancel.statusCode).toBe(200);
      await agree();
      for (const user of [u1, u2]) {
        expect((await cancelAll(t.app, user.token)).statusCode).toBe(200);
        await agree();
      }
      expect((await ladder(t.app, optionId)).bids.every((l) => l.orders === 0)).toBe(true);
      expect(follower.gaps).toBe(0);
    } finally {
      follower.close();
    }
  });

  it('tells the owner on their own channel the state each batch, amend and cancel-all left their orders in', async () => {
    const optionId = (await newMarket()).options[0]!.id;
    const user = await newUser(t.app);
    const own = await StreamTestClient.open(`${url}?token=${user.token}`);
    own.send({ op: 'subscribe', channel: 'user' });
    await own.next((m) => m.type === 'subscribed');
    const told = (id: string, fields: Record<string, unknown>) =>
      own.next(
        (m) => m.type === 'order' && (m.order as { id: string }).id === id && matches(m.order, fields),
      );
    try {
      const placed = await batch(t.app, user.token, [
        order(optionId, 'YES', 'BUY', 5, 40),
        order(optionId, 'YES', 'BUY', 5, 41),
      ]);
      const [o1, o2] = placed.json().data.map((p: PartJson) => p.order?.id as string);
      await told(o1, { status: 'open', quantity: 5 });
      await told(o2, { status: 'open', quantity: 5 });

      await amend(t.app, user.token, o1, { remainingQuantity: 3 });
      await told(o1, { status: 'open', quantity: 3 });
      const replaced = await amend(t.app, user.token, o2, { limitPriceCents: 39 });
      const r2 = replaced.json().order.id as string;
      await told(o2, { status: 'cancelled', cancelReason: 'replaced' });
      await told(r2, { status: 'open', priceCents: 39, quantity: 5 });

      expect((await cancelAll(t.app, user.token)).json().cancelledCount).toBe(2);
      await told(o1, { status: 'cancelled', cancelReason: 'cancelled_by_user' });
      await told(r2, { status: 'cancelled', cancelReason: 'cancelled_by_user' });
    } finally {
      own.close();
    }
  });
});

describe('bots on two instances at once', () => {
  let two: TwoInstances;
  let owner: TestUser;

  beforeAll(async () => {
    two = await createTwoInstances();
    owner = await newAdmin(two.a.app);
  });
  afterAll(async () => {
    await expectInvariants(two.db.database);
    await closeTwoInstances(two);
  });

  it('keeps time priority when an order shrinks on one instance and a taker comes through the other', async () => {
    const optionId = (await createMarket(two.a.app, owner.token)).options[0]!.id;
    const [first, second, taker] = [
      await newUser(two.a.app),
      await newUser(two.a.app),
      await newUser(two.a.app),
    ];
    // Instance A reads the book into memory, then B changes it.
    const o1 = await place(two.a.app, first.token, order(optionId, 'YES', 'BUY', 10, 40));
    const o2 = await place(two.a.app, second.token, order(optionId, 'YES', 'BUY', 10, 40));
    expect((await amend(two.b.app, first.token, o1.id, { remainingQuantity: 5 })).statusCode).toBe(200);
    const take = await place(two.a.app, taker.token, order(optionId, 'NO', 'BUY', 5, 60));
    expect(take.status).toBe('filled');
    expect(await orderOf(two.a.app, first.token, o1.id)).toMatchObject({
      status: 'filled',
      filledQuantity: 5,
    });

    const o3 = await place(two.a.app, first.token, order(optionId, 'YES', 'BUY', 10, 40));
    const more = await amend(two.b.app, second.token, o2.id, { remainingQuantity: 12 });
    expect(more.json().priorityKept).toBe(false);
    const again = await place(two.a.app, taker.token, order(optionId, 'NO', 'BUY', 10, 60));
    expect(again.status).toBe('filled');
    expect(await orderOf(two.a.app, first.token, o3.id)).toMatchObject({ status: 'filled' });
    expect(await orderOf(two.b.app, second.token, more.json().order.id)).toMatchObject({ filledQuantity: 0 });
    expect(await ladder(two.a.app, optionId)).toEqual({ bids: [level(40, 12)], asks: [] });
    expect(await ladder(two.b.app, optionId)).toEqual({ bids: [level(40, 12)], asks: [] });
  });

  it('batches, retries, amends and cancel-alls on one option at once: every answer is in the database, the book is its orders', async () => {
    const market = await createMarket(two.a.app, owner.token, {
      options: [{ label: 'Busy', liquidityCents: 3_000 }],
    });
    const optionId = market.options[0]!.id;
    const bots = await Promise.all([0, 1, 2, 3].map(() => botOf(two.a.app)));
    // Some shares to sell: each bot starts holding 20 YES and 20 NO.
    for (const bot of bots) {
      await place(two.a.app, bot.token, order(optionId, 'YES', 'BUY', 20, 50));
      await place(two.b.app, bot.token, order(optionId, 'NO', 'BUY', 20, 50));
    }
    await Promise.all(bots.map((bot) => cancelAll(two.a.app, bot.token)));
    const before = await botOrderIds(two.db.database, bots);

    const acknowledged = new Map<string, string>();
    const replaced = new Set<string>();
    const instance = (n: number) => (n % 2 === 0 ? two.a.app : two.b.app);
    const acknowledge = (bot: TestUser, open: string[], placed: OrderJson) => {
      acknowledged.set(placed.id, bot.id);
      if (placed.status === 'open' || placed.status === 'partially_filled') open.push(placed.id);
    };
    /** Quotes in keyed batches, each sent to both instances at once (a retry racing its original), and amends. */
    const quote = async (bot: TestUser, index: number, open: string[]) => {
      const random = seeded(index + 1);
      for (let round = 0; round < 8; round++) {
        const orders = Array.from({ length: 3 + Math.floor(random() * 4) }, () => {
          const extra: Partial<OrderBody> = {};
          const kind = random();
          if (kind < 0.2) extra.postOnly = true;
          else if (kind < 0.3) extra.timeInForce = 'IOC';
          else if (kind < 0.35) extra.timeInForce = 'FOK';
          return order(
            optionId,
            random() < 0.5 ? 'YES' : 'NO',
            random() < 0.75 ? 'BUY' : 'SELL',
            1 + Math.floor(random() * 8),
            38 + Math.floor(random() * 25),
            extra,
          );
        });
        const key = { 'idempotency-key': `round-${round}` };
        const [sent, retried] = await Promise.all([
          batch(instance(round + index), bot.token, orders, key),
          batch(instance(round + index + 1), bot.token, orders, key),
        ]);
        expect(sent.statusCode, sent.body).toBe(200);
        expect(retried.statusCode, retried.body).toBe(200);
        const parts = sent.json().data as PartJson[];
        // Whichever of the two came first placed an order; the other answers that same order.
        (retried.json().data as PartJson[]).forEach((part, at) => {
          const placed = parts[at]?.order;
          if (part.order && placed) expect(part.order.id).toBe(placed.id);
          if (part.order && !placed) acknowledge(bot, open, part.order);
        });
        for (const part of parts) {
          expect([201, 402, 409], JSON.stringify(part)).toContain(part.status);
          if (part.order) acknowledge(bot, open, part.order);
        }
        if (open.length === 0) continue;
        const id = open.splice(Math.floor(random() * open.length), 1)[0] as string;
        const changes =
          random() < 0.5
            ? { remainingQuantity: 1 + Math.floor(random() * 6) }
            : { limitPriceCents: 38 + Math.floor(random() * 25) };
        const res = await amend(instance(round + index), bot.token, id, changes);
        expect([200, 402, 409], res.body).toContain(res.statusCode);
        if (res.statusCode !== 200) continue;
        const body = res.json();
        acknowledge(bot, open, body.order);
        if (body.replacedOrder) replaced.add(body.replacedOrder.id);
      }
    };
    /** Pulls quotes meanwhile: cancel-alls (some for one side) and cancels by id. */
    const pull = async (bot: TestUser, index: number, open: string[]) => {
      const random = seeded(100 + index);
      for (let round = 0; round < 6; round++) {
        const app = instance(round + index + 1);
        if (round % 2 === 0) {
          const res = await cancelAll(app, bot.token, random() < 0.5 ? { side: 'YES' } : {});
          expect(res.statusCode, res.body).toBe(200);
        } else if (open.length > 0) {
          const res = await post(app, bot.token, '/api/limit-orders/cancel', { orderIds: open.slice(0, 3) });
          expect(res.statusCode, res.body).toBe(200);
          for (const part of res.json().data as PartJson[]) expect([200, 409]).toContain(part.status);
        }
      }
    };
    await Promise.all(
      bots.map(async (bot, index) => {
        const open: string[] = [];
        await Promise.all([quote(bot, index, open), pull(bot, index, open)]);
      }),
    );

    const rows = await sql<{ id: string; user_id: string; status: string; cancel_reason: string | null }>`
      SELECT id::text, user_id::text, status, cancel_reason FROM orders
      WHERE user_id = ANY(${bots.map((bot) => Number(bot.id))}::bigint[])`.execute(two.db.database.db);
    const written = new Map(rows.rows.map((row) => [row.id, row]));
    for (const [id, userId] of acknowledged) expect(written.get(id)?.user_id, `order ${id}`).toBe(userId);
    // And nothing was written that was not answered.
    expect([...written.keys()].filter((id) => !before.has(id) && !acknowledged.has(id))).toEqual([]);
    for (const id of replaced)
      expect(written.get(id)).toMatchObject({ status: 'cancelled', cancel_reason: 'replaced' });
    expect(acknowledged.size).toBeGreaterThan(20);

    // Both instances show the book the resting orders make.
    const { rows: resting } = await sql<{
      book_side: string;
      book_price: number;
      quantity: number;
      orders: number;
    }>`
      SELECT book_side, book_price, sum(quantity - filled_quantity)::int AS quantity, count(*)::int AS orders
      FROM orders WHERE option_id = ${Number(optionId)} AND status IN ('open', 'partially_filled')
      GROUP BY book_side, book_price`.execute(two.db.database.db);
    const expected = resting.map((r) => `${r.book_side}:${r.book_price}:${r.quantity}:${r.orders}`).sort();
    for (const app of [two.a.app, two.b.app]) {
      const book = (await app.inject({ url: `/api/orderbook/${optionId}` })).json();
      const shown = [
        ...book.yes.bids.map((l: LevelView) => ({ side: 'bid', ...l })),
        ...book.yes.asks.map((l: LevelView) => ({ side: 'ask', ...l })),
      ]
        .filter((l) => l.orders > 0)
        .map((l) => `${l.side}:${l.priceCents}:${l.quantity - l.houseQuantity}:${l.orders}`)
        .sort();
      expect(shown).toEqual(expected);
    }
  });
});

/** A user trading through an API key of their own, as a bot does. */
async function botOf(app: FastifyInstance): Promise<TestUser> {
  const user = await newUser(app);
  const res = await post(app, user.token, '/api/me/api-keys', { name: 'quoter' });
  expect(res.statusCode).toBe(201);
  return { ...user, token: res.json().key };
}

async function botOrderIds(database: Database, bots: TestUser[]): Promise<Set<string>> {
  const { rows } = await sql<{ id: string }>`
    SELECT id::text FROM orders WHERE user_id = ANY(${bots.map((bot) => Number(bot.id))}::bigint[])`.execute(
    database.db,
  );
  return new Set(rows.map((row) => row.id));
}

/** Whether an object has each of these fields with these values. */
function matches(value: unknown, fields: Record<string, unknown>): boolean {
  const object = value as Record<string, unknown>;
  return Object.entries(fields).every(([key, expected]) => object[key] === expected);
}

/** A small deterministic source of numbers in [0, 1), so that a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed * 2_654_435_761;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 4_294_967_296;
  };
}
