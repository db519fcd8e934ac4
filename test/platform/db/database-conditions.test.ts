import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseCondition } from '../../../src/platform/db/types.js';
import { toErrorResponse } from '../../../src/platform/errors.js';
import {
  createTestApp,
  createTestDatabase,
  expectInvariants,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket, limitOrder } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

const failure = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('database conditions', () => {
  it.each([
    ['25006', 'cannot execute INSERT in a read-only transaction', 'read_only', 'DATABASE_READ_ONLY', 2],
    ['25006', 'cannot execute LISTEN during recovery', 'read_only', 'DATABASE_READ_ONLY', 2],
    ['40001', 'canceling statement due to conflict with recovery', 'read_only', 'DATABASE_READ_ONLY', 2],
    [
      '53100',
      'could not extend file "base/1/2": No space left on device',
      'disk_full',
      'DATABASE_DISK_FULL',
      5,
    ],
    ['53200', 'out of memory', 'overloaded', 'DATABASE_OVERLOADED', 1],
    ['53300', 'sorry, too many clients already', 'overloaded', 'DATABASE_OVERLOADED', 1],
    ['53400', 'configuration limit exceeded', 'overloaded', 'DATABASE_OVERLOADED', 1],
    ['57P03', 'the database system is starting up', 'unavailable', 'DATABASE_UNAVAILABLE', 1],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432', 'unavailable', 'DATABASE_UNAVAILABLE', 1],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN db', 'unavailable', 'DATABASE_UNAVAILABLE', 1],
  ])('%s (%s) is %s: 503 %s, Retry-After %i', (code, message, condition, answer, retryAfter) => {
    const error = failure(code, message);
    expect(databaseCondition(error)).toBe(condition);
    expect(toErrorResponse(error)).toEqual({
      status: 503,
      body: { error: expect.any(String), code: answer, details: { retryAfterSeconds: retryAfter } },
    });
  });

  it.each([
    ['23505', 'a unique violation'],
    ['40001', 'a serialization failure of its own'],
    ['22P02', 'invalid input'],
    ['XX000', 'an internal error'],
  ])('%s (%s) is not a condition of the database', (code, message) => {
    expect(databaseCondition(failure(code, message))).toBeNull();
    expect(toErrorResponse(failure(code, message)).status).toBe(500);
  });
});

/**
 * The conditions made for real on a database of the test's own: switched to read-only for new sessions (as a
 * demoted primary or a standby looks to a new connection) with the open ones ended, and a stand-in for a full disk
 * (every write failing with 53100, as PostgreSQL's "could not extend file" does) or exhausted memory (53200).
 */
describe.skipIf(!TEST_DATABASE_URL)('database conditions on PostgreSQL', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let admin: pg.Client;
  let trader: TestUser;
  let optionId: string;
  /** API keys never used yet: their first use is recorded, a write, during each condition. */
  const unusedKeys: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const name = () => new URL(t.testDatabase.url as string).pathname.slice(1);

  beforeAll(async () => {
    t = await createTestApp({
      env: { LOG_LEVEL: 'warn' },
      logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL as string });
    await admin.connect();
    const operator = await newAdmin(t.app);
    const market = await createMarket(t.app, operator.token, {
      options: [{ label: 'Home', liquidityCents: 10_000 }],
    });
    optionId = market.options[0]?.id as string;
    trader = await newUser(t.app);
    for (let i = 0; i < 3; i++) {
      const key = await t.app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(trader.token),
        payload: { name: `key ${i}` },
      });
      unusedKeys.push(key.json().key);
    }
  });
  afterAll(async () => {
    await admin.end();
    await expectInvariants(t.database);
    await t.close();
  });

  const order = (price = 20) =>
    limitOrder(t.app, trader.token, { optionId, side: 'YES', action: 'BUY', quantity: 1, price });
  const ready = () => t.app.inject({ url: '/readyz' });

  /** Writes answered with `code`, reads going on, /readyz naming `reason`; afterwards writes work within 2 s. */
  async function expectCondition(code: string, reason: string, clear: () => Promise<void>) {
    // Connections ended by the fault fail once each (DATABASE_UNAVAILABLE) before the pool has replaced them.
    let refused = await order();
    for (let i = 0; i < 20 && refused.json().code === 'DATABASE_UNAVAILABLE'; i++) refused = await order();
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ code, details: { retryAfterSeconds: expect.any(Number) } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const register = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: `during-${reason}@example.com`, password: 'a long password' },
    });
    expect(register.statusCode).toBe(503);
    expect(register.json().code).toBe(code);
    expect((await t.app.inject({ url: `/api/orderbook/${optionId}` })).statusCode).toBe(200);
    // Reads of a signed-in trader go on too: recording a credential's first use is not worth failing them.
    const key = unusedKeys.pop() as string;
    const positions = await t.app.inject({ url: '/api/positions', headers: bearer(key) });
    expect(positions.statusCode).toBe(200);
    const notReady = await ready();
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toMatchObject({ status: 'unavailable', database: 'postgres', reason });

    await clear();
    const started = Date.now();
    let placed = await order();
    while (placed.statusCode !== 201 && Date.now() - started < 2_000) placed = await order();
    expect(placed.statusCode).toBe(201);
    // Every connection the pool holds now writes: none opened under the condition was kept.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => order(10 + (i % 20))));
    expect(burst.map((res) => res.statusCode)).toEqual(burst.map(() => 201));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await ready()).statusCode).toBe(200);
  }

  it('read-only: writes 503 DATABASE_READ_ONLY, reads go on, not ready; writable again, no read-only session kept', async () => {
    // Several connections in the pool first, so that the pool has sessions to lose and replace.
    await Promise.all(Array.from({ length: 10 }, () => t.app.inject({ url: '/api/events' })));
    const writable = async () => {
      await admin.query(`ALTER DATABASE ${name()} RESET default_transaction_read_only`);
    };
    try {
      await admin.query(`ALTER DATABASE ${name()} SET default_transaction_read_only = on`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name()],
      );
      await expectCondition('DATABASE_READ_ONLY', 'read_only', writable);
    } finally {
      await writable();
    }
  });

  it.each([
    ['disk_full', 'DATABASE_DISK_FULL', 'disk_full', 'could not extend file: No space left on device'],
    ['out_of_memory', 'DATABASE_OVERLOADED', 'overloaded', 'out of memory'],
  ])(
    '%s: writes 503 %s, not ready while it lasts, service back once it clears',
    async (errcode, code, reason, message) => {
      const db = new pg.Client({ connectionString: t.testDatabase.url as string });
      await db.connect();
      const tables = (
        await db.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
      ).rows.map((row) => row.tablename);
      try {
        await db.query(`CREATE FUNCTION fault_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${errcode}'; END $$`);
        for (const table of tables)
          await db.query(
            `CREATE TRIGGER fault_write BEFORE INSERT OR UPDATE OR DELETE ON "${table}" EXECUTE FUNCTION fault_write()`,
          );
        await expectCondition(code, reason, async () => {
          await db.query('DROP FUNCTION fault_write() CASCADE');
        });
      } finally {
        await db.query('DROP FUNCTION IF EXISTS fault_write() CASCADE');
        await db.end();
      }
    },
  );

  it('logs the expected refusals as warnings without a stack', () => {
    const refusals = lines.filter((line) => line.msg === 'service unavailable');
    expect(refusals.length).toBeGreaterThan(0);
    for (const line of refusals) {
      expect(line.level).toBe(40);
      expect(JSON.stringify(line)).not.toContain('"stack"');
    }
    expect(refusals.map((line) => line.code)).toEqual(
      expect.arrayContaining(['DATABASE_READ_ONLY', 'DATABASE_DISK_FULL', 'DATABASE_OVERLOADED']),
    );
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('an option row others queue on, on PostgreSQL', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let db: TestDatabase;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    // Waits on one lock end at 1 s, the statement at 1.5 s: queued behind a second waiter, both bounds are met.
    db = await createTestDatabase({ lockMs: 1_000, statementMs: 1_500 });
    t = await createTestApp({ database: db });
  });
  afterAll(async () => {
    for (const client of clients) await client.end();
    await expectInvariants(t.database);
    await t.close();
    await db.drop();
  });

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: db.url as string });
    await client.connect();
    clients.push(client);
    return client;
  }

  it('an order queued behind another waiter past statement_timeout is 503 OPTION_BUSY, then placed', async () => {
    const operator = await newAdmin(t.app);
    const market = await createMarket(t.app, operator.token);
    const optionId = market.options[0]?.id as string;
    const trader = await newUser(t.app);
    const order = () =>
      limitOrder(t.app, trader.token, { optionId, side: 'YES', action: 'BUY', quantity: 1, price: 20 });
    const [holder, waiter] = [await connect(), await connect()];
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM options WHERE id = $1 FOR UPDATE', [optionId]);
    // The waiter holds the row's tuple lock while it waits (0.8 s); the order's wait then starts over behind the
    // holder, and its statement reaches 1.5 s before its second lock_timeout does.
    await waiter.query("SET lock_timeout = '800ms'");
    const waited = waiter
      .query('SELECT id FROM options WHERE id = $1 FOR UPDATE', [optionId])
      .catch((e) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const refused = await order();
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.json()).toMatchObject({ code: 'OPTION_BUSY', details: { retryAfterSeconds: 1 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect((await waited).code).toBe('55P03');
    await holder.query('ROLLBACK');
    expect((await order()).statusCode).toBe(201);
    const orders = await t.database.db.selectFrom('orders').select('id').execute();
    expect(orders).toHaveLength(1);
  });
});
