import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * Requests of many orders or cancels met by a passing fault (a busy option, the database read-only or full): they
 * answer what they did, never a 5xx after a part took effect, in one shape, with Retry-After, and orders refused
 * with 503 give back what they took from the order budget.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp({ env: { ORDER_RATE_LIMIT: '10', ORDER_RATE_WINDOW_MS: '60000' } });
  admin = await newAdmin(t.app);
});
afterEach(async () => {
  await calm();
});

async function calm(): Promise<void> {
  for (const name of ['test_fault', 'test_seen', 'test_busy'])
    await sql.raw(`DROP TRIGGER IF EXISTS ${name} ON orders`).execute(t.database.db);
}

/**
 * The option's book stays locked elsewhere (55P03, as past lock_timeout) whenever a transaction of its own writes to
 * its orders; a transaction over several markets fails otherwise, so that the pipeline runs each request alone.
 */
async function busy(optionId: string): Promise<void> {
  await sql
    .raw(`CREATE OR REPLACE FUNCTION test_seen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM set_config('test.options', coalesce(current_setting('test.options', true), '') || ' ' || NEW.option_id, true);
        RETURN NEW;
      END $$`)
    .execute(t.database.db);
  await sql
    .raw(`CREATE OR REPLACE FUNCTION test_busy() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM unnest(string_to_array(trim(current_setting('test.options', true)), ' ')) AS o(id)
                   WHERE o.id::bigint <> NEW.option_id) THEN
          RAISE EXCEPTION 'a transaction over several markets';
        END IF;
        RAISE EXCEPTION 'the book is locked elsewhere' USING ERRCODE = '55P03';
      END $$`)
    .execute(t.database.db);
  await sql
    .raw('CREATE TRIGGER test_seen AFTER UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION test_seen()')
    .execute(t.database.db);
  await sql
    .raw(`CREATE CONSTRAINT TRIGGER test_busy AFTER UPDATE ON orders DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (NEW.option_id = ${Number(optionId)}) EXECUTE FUNCTION test_busy()`)
    .execute(t.database.db);
}
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

/** Every change of `event` to an order of `optionId` (any option: null) fails with SQLSTATE `code`. */
async function fault(event: 'INSERT', code: string, optionId: string | null): Promise<void> {
  const when = optionId === null ? '' : `WHEN (NEW.option_id = ${Number(optionId)})`;
  await sql
    .raw(`CREATE OR REPLACE FUNCTION test_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'a fault of the test' USING ERRCODE = '${code}'; END $$`)
    .execute(t.database.db);
  await sql
    .raw(
      `CREATE TRIGGER test_fault BEFORE ${event} ON orders FOR EACH ROW ${when} EXECUTE FUNCTION test_fault()`,
    )
    .execute(t.database.db);
}

function post(app: FastifyInstance, token: string, url: string, payload: object) {
  return app.inject({ method: 'POST', url, headers: bearer(token), payload });
}

const order = (optionId: string, limitPriceCents: number) => ({
  optionId,
  side: 'YES',
  action: 'BUY',
  quantity: 1,
  limitPriceCents,
});

/** A trader with one resting order in each of three new markets. */
async function restingInThree() {
  const markets = await Promise.all([1, 2, 3].map(() => createMarket(t.app, admin.token)));
  const optionIds = markets.map((market) => market.options[0]!.id);
  const user = await newUser(t.app);
  const orderIds: string[] = [];
  for (const optionId of optionIds) {
    const res = await post(t.app, user.token, '/api/limit-orders', order(optionId, 30));
    expect(res.statusCode, res.body).toBe(201);
    orderIds.push(res.json().id);
  }
  return { user, optionIds, orderIds };
}

describe('cancel-all', () => {
  it('cancels the markets it can and names the one it could not, with its code, in a 200 with Retry-After', async () => {
    const { user, optionIds } = await restingInThree();
    await busy(optionIds[1]!);
    const res = await post(t.app, user.token, '/api/limit-orders/cancel-all', {});
    expect(res.statusCode, res.body).toBe(200);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const body = res.json();
    expect(body.cancelledCount).toBe(2);
    expect(body.data.map((o: { optionId: string }) => o.optionId).sort()).toEqual(
      [optionIds[0], optionIds[2]].sort(),
    );
    const byOption = new Map(body.markets.map((m: { optionId: string }) => [m.optionId, m]));
    expect(byOption.get(optionIds[0])).toEqual({
      optionId: optionIds[0],
      status: 200,
      cancelledCount: 1,
      refusedCount: 0,
    });
    expect(byOption.get(optionIds[1])).toMatchObject({
      status: 503,
      cancelledCount: 0,
      refusedCount: 1,
      error: { code: 'OPTION_BUSY' },
    });
    // Nothing done: the whole request is refused, as a single cancel would be.
    const again = await post(t.app, user.token, '/api/limit-orders/cancel-all', {});
    expect(again.statusCode, again.body).toBe(503);
    expect(again.json().code).toBe('OPTION_BUSY');
    expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    await calm();
    const rest = await post(t.app, user.token, '/api/limit-orders/cancel-all', {});
    expect(rest.json()).toMatchObject({
      cancelledCount: 1,
      markets: [{ optionId: optionIds[1], status: 200 }],
    });
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
  });

  it('cancel by ids answers each id, with Retry-After for those refused with 503, or one 503 when none was', async () => {
    const { user, optionIds, orderIds } = await restingInThree();
    await busy(optionIds[2]!);
    const res = await post(t.app, user.token, '/api/limit-orders/cancel', { orderIds });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((item: { status: number }) => item.status)).toEqual([200, 200, 503]);
    expect(res.headers['retry-after']).toBeDefined();
    const again = await post(t.app, user.token, '/api/limit-orders/cancel', { orderIds: [orderIds[2]] });
    expect(again.statusCode).toBe(503);
    expect(again.headers['retry-after']).toBeDefined();
  });
});

describe('a batch refused by the database', () => {
  for (const [name, code, errorCode] of [
    ['read-only', '25006', 'DATABASE_READ_ONLY'],
    ['disk full', '53100', 'DATABASE_DISK_FULL'],
  ] as const) {
    it(`${name}: is refused whole with ${errorCode} and Retry-After, keyed or not, and gives back its order budget`, async () => {
      const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
      const user = await newUser(t.app);
      await fault('INSERT', code, null);
      for (const headers of [{}, { 'idempotency-key': `key-${code}` }]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/limit-orders/batch',
          headers: { ...bearer(user.token), ...headers },
          payload: { orders: [order(optionId, 30), order(optionId, 31), order(optionId, 32)] },
        });
        expect(res.statusCode, res.body).toBe(503);
        expect(res.json().code).toBe(errorCode);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      const single = await post(t.app, user.token, '/api/limit-orders', order(optionId, 30));
      expect(single.statusCode).toBe(503);
      await sql`DROP TRIGGER test_fault ON orders`.execute(t.database.db);
      // Nothing refused with 503 was counted: the whole budget of 10 is still there.
      const placed = await post(t.app, user.token, '/api/limit-orders/batch', {
        orders: Array.from({ length: 10 }, (_, i) => order(optionId, 10 + i)),
      });
      expect(placed.statusCode, placed.body).toBe(200);
      expect(placed.headers['order-ratelimit-remaining']).toBe('0');
    });
  }
});
