import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { generate } from 'otplib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { keyIdOf } from '../../src/platform/secrets.js';
import {
  createTestDatabase,
  expectInvariants,
  TEST_DATABASE_URL,
  TEST_SECRETS_KEY,
  testConfig,
} from '../support/app.js';
import { enforceContract } from '../support/contract.js';
import { createMarket, limitOrder, marketTrade } from '../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../support/factories.js';

const run = promisify(execFile);

/**
 * The admin CLI runs on the same composition root as the app: closing and settling a market from the shell tells
 * traders (feed and webhooks) exactly what the admin API does.
 */

/** A database a second process can open too: PostgreSQL, or embedded PGlite in a folder (one process at a time). */
async function sharedDatabase() {
  if (TEST_DATABASE_URL) {
    const test = await createTestDatabase();
    return {
      open: async () => test.database,
      close: async () => {},
      env: { DATABASE_URL: test.url as string },
      drop: () => test.drop(),
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'pmx-cli-'));
  let database: Database | null = null;
  return {
    async open() {
      database = await openDatabase({ url: null, dataDir });
      await migrateToLatest(database.db);
      return database;
    },
    async close() {
      await database?.close();
      database = null;
    },
    env: { DATA_DIR: dataDir },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

const env = { WEBHOOK_ALLOW_PRIVATE: 'true', SECRETS_KEY: TEST_SECRETS_KEY };

/** `npm run admin` as a process of its own, on the shared database (`databaseEnv`) with the tests' settings. */
function adminCli(databaseEnv: Record<string, string | undefined>) {
  return (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'error', ...env, ...databaseEnv },
    });
}

async function appOn(database: Database): Promise<FastifyInstance> {
  const app = await buildApp({ config: testConfig(env), database, redis: null });
  enforceContract(app);
  await app.ready();
  return app;
}

/** A market the trader holds YES in and has a resting order on. */
async function tradedMarket(app: FastifyInstance, admin: TestUser, trader: TestUser, title: string) {
  const market = await createMarket(app, admin.token, {
    title,
    options: [{ label: 'Home', liquidityCents: 2_000 }],
  });
  const optionId = market.options[0]?.id as string;
  const bought = await marketTrade(app, trader.token, {
    optionId,
    side: 'YES',
    action: 'BUY',
    quantity: 5,
    price: 90,
  });
  expect(bought.statusCode).toBe(201);
  const resting = await limitOrder(app, trader.token, {
    optionId,
    side: 'YES',
    action: 'BUY',
    quantity: 3,
    price: 10,
  });
  expect(resting.json().status).toBe('open');
  return market;
}

/** What the trader was told about one market since a point: feed items and webhook events, with its names blanked. */
async function toldAbout(
  database: Database,
  userId: string,
  since: { notification: number; event: number },
  market: { id: string; slug: string },
  title: string,
) {
  const blank = (text: string) =>
    text
      .replaceAll(title, '<market>')
      .replaceAll(market.slug, '<slug>')
      .replace(/"(\w*[iI]d)":"\d+"/g, '"$1":"<id>"')
      .replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"');
  const feed = await sql<{ type: string; title: string; body: string }>`
    SELECT type, title, body FROM notifications WHERE user_id = ${Number(userId)} AND id > ${since.notification}
      AND (title LIKE ${`%${title}%`} OR body LIKE ${`%${title}%`}) ORDER BY id`.execute(database.db);
  const hooks = await sql<{ type: string; body: string; deliveries: number }>`
    SELECT e.type, e.body, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
    FROM webhook_events e WHERE e.user_id = ${Number(userId)} AND e.id > ${since.event}
      AND e.body LIKE ${`%${market.slug}%`} ORDER BY e.id`.execute(database.db);
  return {
    feed: feed.rows.map((row) => ({ type: row.type, title: blank(row.title), body: blank(row.body) })),
    webhooks: hooks.rows.map((row) => {
      const body = JSON.parse(row.body) as { type: string; data: unknown };
      return {
        type: row.type,
        deliveries: row.deliveries,
        data: JSON.parse(blank(JSON.stringify(body.data))),
      };
    }),
  };
}

async function checkpoint(database: Database) {
  const { rows } = await sql<{ notification: number; event: number }>`
    SELECT (SELECT coalesce(max(id), 0) FROM notifications)::int AS notification,
      (SELECT coalesce(max(id), 0) FROM webhook_events)::int AS event`.execute(database.db);
  return rows[0] as { notification: number; event: number };
}

describe('npm run admin', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('closes, resolves and settles a market with the same feed items and webhook deliveries as the admin API', async () => {
    const shared = await sharedDatabase();
    cleanups.push(() => shared.drop());
    let database = await shared.open();
    let app = await appOn(database);
    const admin = await newAdmin(app);
    const trader = await newUser(app);
    const hook = await app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(trader.token),
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    expect(hook.statusCode).toBe(201);
    const byApi = await tradedMarket(app, admin, trader, 'Twin final, decided by the API');
    const byCli = await tradedMarket(app, admin, trader, 'Twin final, decided by the shell');
    const since = await checkpoint(database);

    for (const step of ['close', 'resolve', 'settle']) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/admin/events/${byApi.id}/${step}`,
        headers: bearer(admin.token),
        ...(step === 'resolve'
          ? { payload: { outcomes: [{ optionId: byApi.options[0]?.id, outcome: 'YES' }] } }
          : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
    }

    await app.close();
    await shared.close();
    const cli = adminCli(shared.env);
    await cli('close', byCli.slug);
    await cli('resolve', byCli.slug, 'Home=YES');
    await cli('settle', byCli.slug);

    database = await shared.open();
    app = await appOn(database);
    const api = await toldAbout(database, trader.id, since, byApi, 'Twin final, decided by the API');
    const shell = await toldAbout(database, trader.id, since, byCli, 'Twin final, decided by the shell');
    expect(api.feed.map((item) => item.type)).toEqual(
      expect.arrayContaining(['order.cancelled', 'market.resolved', 'market.settled']),
    );
    expect(api.webhooks.length).toBeGreaterThan(0);
    expect(api.webhooks.every((w) => w.deliveries === 1)).toBe(true);
    expect(shell).toEqual(api);
    await expectInvariants(database);
    await app.close();
    await shared.close();
    // Three CLI processes, each starting under tsx: minutes on a busy machine.
  }, 240_000);

  it('creates an exclusive event and resolves it only with exactly one winner', async () => {
    const shared = await sharedDatabase();
    cleanups.push(() => shared.drop());
    await shared.open();
    await shared.close();
    const cli = adminCli(shared.env);
    const body = {
      slug: 'cup-final-winner',
      title: 'Who wins the cup final?',
      category: 'cricket',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      exclusive: true,
      liquidityCents: 10_000,
      options: [{ label: 'Home' }, { label: 'Away' }, { label: 'Any other team' }],
      open: true,
    };
    const created = JSON.parse((await cli('create-event', JSON.stringify(body))).stdout);
    expect(created).toMatchObject({ exclusive: true, houseLiquidityCents: 10_000, status: 'open' });
    const refused = await cli(
      'resolve',
      'cup-final-winner',
      'Home=YES',
      'Away=YES',
      'Any other team=NO',
    ).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toContain('exactly one option YES');
    const resolved = JSON.parse(
      (await cli('resolve', 'cup-final-winner', 'Home=NO', 'Away=YES', 'Any other team=NO')).stdout,
    );
    expect(resolved.status).toBe('resolved');
  }, 240_000);

  it('loads the same living demo as the first start: markets, traders, discussion and tournament, once', async () => {
    const shared = await sharedDatabase();
    cleanups.push(() => shared.drop());
    // An empty, migrated database, as `npm run migrate` leaves it on PostgreSQL.
    await shared.open();
    await shared.close();
    const cli = adminCli(shared.env);
    expect(JSON.parse((await cli('seed-demo')).stdout)).toEqual({ loaded: 5 });
    const again = await cli('seed-demo').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(again?.code).toBe(1);
    expect(again?.stderr).toContain('the demo is already loaded');

    const database = await shared.open();
    const app = await appOn(database);
    const tournaments = (await app.inject({ url: '/api/tournaments' })).json();
    expect(tournaments.data).toEqual([
      expect.objectContaining({ slug: 'cricket-and-economy-cup', status: 'active', participants: 2 }),
    ]);
    const posts = (await app.inject({ url: '/api/posts?eventSlug=ind-vs-aus-1st-odi' })).json();
    expect(posts.data).toHaveLength(2);
    expect((await app.inject({ url: '/api/events' })).json().data).toHaveLength(5);
    await app.close();
    await shared.close();
  }, 120_000);

  it('shows and sets the trading status from the shell, for the exchange and for one market', async () => {
    const shared = await sharedDatabase();
    cleanups.push(() => shared.drop());
    await shared.open();
    await shared.close();
    const cli = adminCli(shared.env);
    const body = {
      slug: 'rain-at-lords',
      title: 'Will it rain at Lords?',
      category: 'weather',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: [{ label: 'Yes' }],
      open: true,
    };
    await cli('create-event', JSON.stringify(body));
    expect(JSON.parse((await cli('status')).stdout)).toMatchObject({ status: 'trading', markets: [] });
    await cli('status', 'post_only', '--message', 'opening auction');
    const held = JSON.parse((await cli('status', 'maintenance', '--event', 'rain-at-lords')).stdout);
    expect(held).toMatchObject({
      status: 'post_only',
      message: 'opening auction',
      markets: [{ eventSlug: 'rain-at-lords', status: 'maintenance' }],
    });
    const refused = await cli('status', 'closed').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);

    const database = await shared.open();
    const app = await appOn(database);
    expect((await app.inject({ url: '/api/status' })).json()).toMatchObject({
      status: 'post_only',
      markets: [{ eventSlug: 'rain-at-lords', status: 'maintenance', message: null }],
    });
    await app.close();
    await shared.close();
  }, 240_000);

  it('rotates the key of the sealed secrets from the shell: shows them by key, reseals, makes a key', async () => {
    const shared = await sharedDatabase();
    cleanups.push(() => shared.drop());
    const database = await shared.open();
    const app = await appOn(database);
    const owner = await newUser(app);
    for (let i = 0; i < 2; i++) {
      const hook = await app.inject({
        method: 'POST',
        url: '/api/me/webhooks',
        headers: bearer(owner.token),
        payload: { url: 'http://127.0.0.1:9/hooks' },
      });
      expect(hook.statusCode).toBe(201);
    }
    // And an authenticator app, whose secret is sealed with the same keyring.
    const started = await app.inject({
      method: 'POST',
      url: '/api/me/second-factors/totp',
      headers: bearer(owner.token),
    });
    const confirmed = await app.inject({
      method: 'POST',
      url: '/api/me/second-factors/totp/confirm',
      headers: bearer(owner.token),
      payload: { code: await generate({ secret: started.json().secret }), password: owner.password },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    await app.close();
    await shared.close();
    const cliWith = (extra: Record<string, string>) => adminCli({ ...shared.env, ...extra });

    const next = JSON.parse((await cliWith({})('secrets', 'new-key')).stdout).key as string;
    expect(Buffer.from(next, 'base64')).toHaveLength(32);
    const [oldId, newId] = [TEST_SECRETS_KEY, next].map((k) => keyIdOf(Buffer.from(k, 'base64')));
    const rotating = cliWith({ SECRETS_KEY: `${next},${TEST_SECRETS_KEY}` });
    expect(JSON.parse((await rotating('secrets')).stdout)).toEqual({
      currentKeyId: newId,
      byKey: [{ keyId: oldId, count: 3, known: true }],
      columns: {
        'webhook_subscriptions.secret': [{ keyId: oldId, count: 2, known: true }],
        'second_factors.secret': [{ keyId: oldId, count: 1, known: true }],
      },
    });
    expect(JSON.parse((await rotating('secrets', 'reseal')).stdout)).toEqual({
      sealed: 0,
      resealed: 3,
      columns: {
        'webhook_subscriptions.secret': { sealed: 0, resealed: 2 },
        'second_factors.secret': { sealed: 0, resealed: 1 },
      },
    });
    // The old key can go now; without the new one nothing starts.
    expect(JSON.parse((await cliWith({ SECRETS_KEY: next })('secrets')).stdout)).toEqual({
      currentKeyId: newId,
      byKey: [{ keyId: newId, count: 3, known: true }],
      columns: {
        'webhook_subscriptions.secret': [{ keyId: newId, count: 2, known: true }],
        'second_factors.secret': [{ keyId: newId, count: 1, known: true }],
      },
    });
    const refused = await cliWith({ SECRETS_KEY: TEST_SECRETS_KEY })('secrets', 'reseal').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toContain(`(2 with key ${newId})`);
  }, 240_000);
});
