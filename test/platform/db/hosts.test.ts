import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/lib/harness.js';
import {
  hasPostgresBinaries,
  type LocalServer,
  removeFolder,
  serverFolder,
  startPrimary,
  startStandby,
} from '../../../scripts/lib/pg-servers.js';
import { loadConfig } from '../../../src/platform/config.js';
import { type Database, openDatabase } from '../../../src/platform/db/database.js';
import {
  addressOf,
  DatabaseUrlError,
  findHost,
  NoHostFitsError,
  parseDatabaseUrl,
  probeHost,
} from '../../../src/platform/db/hosts.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder } from '../../support/exchange.js';
import { bearer, newAdmin, newUser } from '../../support/factories.js';

describe("libpq's multi-host connection strings", () => {
  it('split into one connection string per host, in the order named, with every other part kept', () => {
    expect(
      parseDatabaseUrl(
        'postgres://app:s%40cret@db1:5433,db2,[::1]:5434/exchange?target_session_attrs=read-write&sslmode=disable',
      ),
    ).toEqual({
      hosts: [
        'postgres://app:s%40cret@db1:5433/exchange?sslmode=disable',
        'postgres://app:s%40cret@db2/exchange?sslmode=disable',
        'postgres://app:s%40cret@[::1]:5434/exchange?sslmode=disable',
      ],
      attrs: 'read-write',
    });
    expect(parseDatabaseUrl('postgresql://db:5432/exchange')).toEqual({
      hosts: ['postgresql://db:5432/exchange'],
      attrs: 'any',
    });
    expect(addressOf(parseDatabaseUrl('postgres://u:p@db1:5433,db2/exchange'))).toBe(
      'db1:5433,db2:5432/exchange',
    );
  });

  it.each([
    ['mysql://db/exchange', 'must be a postgres:// or postgresql:// URL'],
    ['postgres://db1,,db2/exchange', 'an empty host'],
    ['postgres://db1:x,db2/exchange', 'not a valid host[:port]: db1:x'],
    ['postgres://db/exchange?target_session_attrs=leader', 'target_session_attrs=leader'],
    ['postgres:///exchange?host=db1,db2', 'several hosts in ?host='],
  ])('refuse %s, saying why', (url, reason) => {
    expect(() => parseDatabaseUrl(url)).toThrowError(DatabaseUrlError);
    expect(() => parseDatabaseUrl(url)).toThrowError(reason);
  });

  it('are refused at start where the service could not write, or a replica has no primary', () => {
    const standbyOnly = 'postgres://db1,db2/exchange?target_session_attrs=standby';
    expect(() => loadConfig({ DATABASE_URL: standbyOnly })).toThrowError(
      /DATABASE_URL .*target_session_attrs/,
    );
    expect(
      loadConfig({ DATABASE_URL: 'postgres://db1,db2/x', DATABASE_READ_URL: standbyOnly }).database,
    ).toMatchObject({
      replica: { url: standbyOnly, waitMs: 100 },
    });
    expect(() => loadConfig({ DATABASE_READ_URL: standbyOnly })).toThrowError(
      /DATABASE_READ_URL .*DATABASE_URL/,
    );
  });
});

const TIMEOUTS = { acquireMs: 2_000, statementMs: 5_000, lockMs: 2_000, idleInTransactionMs: 10_000 };
/** How soon after the promotion orders must be placed again. */
const BACK_WITHIN_MS = 5_000;

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
  orderId: string | undefined;
}

/**
 * Two servers of the test's own: the primary, synchronously replicated (so that an order acknowledged is on the
 * standby too), and its standby; later a third, a standby of the promoted one, on the first one's port.
 */
describe.skipIf(!hasPostgresBinaries)('a multi-host DATABASE_URL on servers of the test’s own', () => {
  let dir: string;
  const ports: number[] = [];
  const servers: LocalServer[] = [];
  let first: LocalServer;
  let second: LocalServer;
  let multiHost: string;
  let database: Database;
  let t: TestApp;
  let token: string;
  let optionId: string;
  const acknowledged: string[] = [];

  beforeAll(async () => {
    dir = await serverFolder('pmx-hosts-');
    ports.push(await freePort(), await freePort());
    first = await startPrimary(dir, 'first', ports[0] as number, { synchronous_standby_names: "'*'" });
    second = await startStandby(first, dir, 'second', ports[1] as number);
    servers.push(first, second);
    // The standby named first: the service must ask, not take the first host that answers.
    multiHost = `postgres://postgres@127.0.0.1:${second.port},127.0.0.1:${first.port}/postgres?target_session_attrs=read-write`;
    database = await openDatabase({ url: multiHost, dataDir: null, timeouts: TIMEOUTS });
    await migrateToLatest(database.db);
    t = await createTestApp({
      database: { database, url: multiHost, drop: async () => {} },
      env: { LOG_LEVEL: 'silent' },
    });
    const operator = await newAdmin(t.app);
    const market = await createMarket(t.app, operator.token, {
      options: [{ label: 'Home', liquidityCents: 10_000 }],
    });
    optionId = market.options[0]?.id as string;
    token = (await newUser(t.app)).token;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await database?.close();
    for (const server of servers) await server.stop();
    if (dir) await removeFolder(dir);
  });

  const order = async (): Promise<Answer> => {
    const response = await limitOrder(t.app, token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 20,
    });
    const body = response.json() as { id?: string; code?: string };
    const answer = {
      status: response.statusCode,
      code: body.code,
      retryAfter: response.headers['retry-after'] as string | undefined,
      orderId: response.statusCode === 201 ? body.id : undefined,
    };
    if (answer.orderId) acknowledged.push(answer.orderId);
    return answer;
  };

  /** Orders one after another until one is placed or `ms` have passed. */
  const orderUntilPlaced = async (
    ms: number,
  ): Promise<{ answers: Answer[]; placedAfterMs: number | null }> => {
    const started = Date.now();
    const answers: Answer[] = [];
    while (Date.now() - started < ms) {
      const answer = await order();
      answers.push(answer);
      if (answer.status === 201) return { answers, placedAfterMs: Date.now() - started };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { answers, placedAfterMs: null };
  };

  const onlyRetryable = (answers: Answer[], codes: string[]) => {
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expect(answer.status).toBe(503);
      expect(codes).toContain(answer.code);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
  };

  const serverPort = async () =>
    Number(
      (await database.db.selectNoFrom((eb) => eb.fn<number>('inet_server_port').as('port')).execute())[0]
        ?.port,
    );

  const missingOn = async (server: LocalServer) => {
    const rows = await server.query<{ id: string }>(
      'SELECT id::text FROM orders WHERE id = ANY($1::bigint[])',
      [acknowledged],
    );
    const found = new Set(rows.map((row) => row.id));
    return acknowledged.filter((id) => !found.has(id));
  };

  it('asks each host its role, as libpq does, and finds the one each target_session_attrs asks for', async () => {
    expect(await probeHost(first.url(), 2_000)).toEqual({ inRecovery: false, readOnly: false });
    expect(await probeHost(second.url(), 2_000)).toEqual({ inRecovery: true, readOnly: true });
    const both = [second.url(), first.url()];
    expect(await findHost({ hosts: both, attrs: 'read-write' }, 2_000)).toBe(first.url());
    expect(await findHost({ hosts: both, attrs: 'primary' }, 2_000)).toBe(first.url());
    expect(await findHost({ hosts: both, attrs: 'standby' }, 2_000)).toBe(second.url());
    expect(await findHost({ hosts: both, attrs: 'read-only' }, 2_000)).toBe(second.url());
    expect(await findHost({ hosts: [first.url(), second.url()], attrs: 'prefer-standby' }, 2_000)).toBe(
      second.url(),
    );
    const nobody = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    expect(await findHost({ hosts: [nobody, first.url()], attrs: 'prefer-standby' }, 2_000)).toBe(
      first.url(),
    );
    await expect(
      findHost({ hosts: [nobody, second.url()], attrs: 'read-write' }, 2_000),
    ).rejects.toMatchObject({
      constructor: NoHostFitsError,
      code: '25006',
    });
    await expect(findHost({ hosts: [nobody], attrs: 'read-write' }, 2_000)).rejects.toMatchObject({
      code: '08001',
    });
  });

  it('writes to the primary although the standby is named first', async () => {
    for (let i = 0; i < 5; i++) expect((await order()).status).toBe(201);
    expect(await serverPort()).toBe(first.port);
    expect(await missingOn(first)).toEqual([]);
  });

  it('follows a demoted primary that answers read-only to the standby promoted: 503 with Retry-After, never 500', async () => {
    const notices: string[] = [];
    const stopListening = await database.listen('pmx_hosts_test', (payload) => notices.push(payload));
    await first.query('ALTER SYSTEM SET default_transaction_read_only = on');
    await first.query('SELECT pg_reload_conf()');
    // No host takes writes: the connections to the old primary are refused writes (25006), no other host fits.
    const demoted = await orderUntilPlaced(1_000);
    expect(demoted.placedAfterMs).toBeNull();
    onlyRetryable(demoted.answers, ['DATABASE_READ_ONLY']);
    const ready = await t.app.inject({ url: '/readyz' });
    expect([ready.statusCode, ready.json().reason]).toEqual([503, 'read_only']);

    await second.promote();
    const promoted = await orderUntilPlaced(BACK_WITHIN_MS);
    expect(promoted.placedAfterMs, JSON.stringify(promoted.answers.slice(-3))).not.toBeNull();
    onlyRetryable(promoted.answers, ['DATABASE_READ_ONLY', 'DATABASE_UNAVAILABLE']);
    expect(await serverPort()).toBe(second.port);
    expect(await missingOn(second)).toEqual([]);
    // Ready again once the refusals of the last half second are past.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);

    // The listening connection moves to the new primary too (within its 2 s heartbeat).
    const deadline = Date.now() + 10_000;
    while (!notices.includes('after the move') && Date.now() < deadline) {
      await second.query("NOTIFY pmx_hosts_test, 'after the move'");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(notices).toContain('after the move');
    await stopListening();
  }, 60_000);

  it('follows a primary that crashed to its standby promoted, and loses no acknowledged order', async () => {
    // The old primary is gone; a standby of the new one takes its port, as a rebuilt node would.
    await first.stop();
    await removeFolder(first.dataDir);
    const third = await startStandby(second, dir, 'third', first.port);
    servers.push(third);
    await second.query(`ALTER SYSTEM SET synchronous_standby_names = '*'`);
    await second.query('SELECT pg_reload_conf()');
    for (let i = 0; i < 50; i++) {
      const rows = await second.query<{ sync_state: string }>('SELECT sync_state FROM pg_stat_replication');
      if (rows[0]?.sync_state === 'sync') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let i = 0; i < 5; i++) expect((await order()).status).toBe(201);

    await second.crash();
    const crashed = await orderUntilPlaced(1_000);
    expect(crashed.placedAfterMs).toBeNull();
    onlyRetryable(crashed.answers, ['DATABASE_READ_ONLY', 'DATABASE_UNAVAILABLE']);

    await third.promote();
    const promoted = await orderUntilPlaced(BACK_WITHIN_MS);
    expect(promoted.placedAfterMs, JSON.stringify(promoted.answers.slice(-3))).not.toBeNull();
    onlyRetryable(promoted.answers, ['DATABASE_READ_ONLY', 'DATABASE_UNAVAILABLE']);
    expect(await serverPort()).toBe(third.port);
    expect(acknowledged.length).toBeGreaterThanOrEqual(12);
    expect(await missingOn(third)).toEqual([]);
    await expectInvariants(database);
    const open = await t.app.inject({ url: '/api/limit-orders', headers: bearer(token) });
    expect(open.statusCode).toBe(200);
  }, 60_000);
});
