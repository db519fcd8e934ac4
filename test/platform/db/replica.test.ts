import { sql } from 'kysely';
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
import { type Database, openDatabase } from '../../../src/platform/db/database.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket, marketTrade } from '../../support/exchange.js';
import { newAdmin, newUser } from '../../support/factories.js';

/** How far behind the replica applies every commit: a read it serves at once cannot see a write just made. */
const APPLY_DELAY_MS = 400;

const portOf = async (db: Database['reads']) =>
  Number((await db.selectNoFrom((eb) => eb.fn<number>('inet_server_port').as('port')).execute())[0]?.port);

/**
 * A primary and a replica of the test's own that applies every commit 400 ms late, and the service on both: the
 * public reads go to the replica, and never show less than the primary.
 */
describe.skipIf(!hasPostgresBinaries)('public reads on a replica (DATABASE_READ_URL)', () => {
  let dir: string;
  let primary: LocalServer;
  let replica: LocalServer;
  /** Waits up to 3 s for the replica: long enough for it to catch up. */
  let patient: Database;
  /** Waits 20 ms at most: the replica is still behind, so the read goes to the primary. */
  let impatient: Database;
  let t: TestApp;

  beforeAll(async () => {
    dir = await serverFolder('pmx-replica-');
    primary = await startPrimary(dir, 'primary', await freePort());
    replica = await startStandby(primary, dir, 'replica', await freePort(), {
      recovery_min_apply_delay: `'${APPLY_DELAY_MS}ms'`,
    });
    const open = (waitMs: number) =>
      openDatabase({ url: primary.url(), replica: { url: replica.url(), waitMs }, dataDir: null });
    patient = await open(3_000);
    impatient = await open(20);
    await migrateToLatest(patient.db);
    await sql`CREATE TABLE replica_probe (n int)`.execute(patient.db);
    t = await createTestApp({
      database: { database: patient, url: primary.url(), drop: async () => {} },
      env: {},
    });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await patient?.close();
    await impatient?.close();
    await replica?.stop();
    await primary?.stop();
    if (dir) await removeFolder(dir);
  });

  it('are served by the replica once it has replayed what the primary had when the read came', async () => {
    await sql`INSERT INTO replica_probe VALUES (1)`.execute(patient.db);
    const started = Date.now();
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM replica_probe`.execute(
      patient.reads,
    );
    expect(rows[0]?.n).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(APPLY_DELAY_MS / 2);
    expect(await portOf(patient.reads)).toBe(replica.port);
    expect(await portOf(patient.db)).toBe(primary.port);
  });

  it('go to the primary when the replica stays behind longer than DATABASE_READ_WAIT_MS', async () => {
    await sql`INSERT INTO replica_probe VALUES (2)`.execute(impatient.db);
    const started = Date.now();
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM replica_probe`.execute(
      impatient.reads,
    );
    expect(rows[0]?.n).toBe(2);
    // Sooner than the replica could have applied it: the primary answered.
    expect(Date.now() - started).toBeLessThan(APPLY_DELAY_MS);
  });

  it('show a trader their trade on the tape, the tickers and the event page as soon as it is acknowledged', async () => {
    const operator = await newAdmin(t.app);
    const market = await createMarket(t.app, operator.token, {
      options: [{ label: 'Home', liquidityCents: 10_000 }],
    });
    const optionId = market.options[0]?.id as string;
    const trader = await newUser(t.app);
    const trade = await marketTrade(t.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 3,
      price: 90,
    });
    expect(trade.statusCode).toBe(201);
    const tape = await t.app.inject({ url: `/api/options/${optionId}/trades` });
    expect(tape.statusCode).toBe(200);
    expect(tape.json().data.map((row: { quantity: number }) => row.quantity)).toEqual([3]);
    const tickers = await t.app.inject({ url: `/api/tickers?optionIds=${optionId}` });
    expect(tickers.json().data[0].volume24hShares).toBe(3);
    const event = await t.app.inject({ url: `/api/events/${market.slug}` });
    expect(event.statusCode).toBe(200);
    expect(event.json().options[0].volumeShares).toBe(3);
  });

  it('go to the primary while the replica is down', async () => {
    await replica.stop();
    expect(await portOf(patient.reads)).toBe(primary.port);
    const list = await t.app.inject({ url: '/api/events' });
    expect(list.statusCode).toBe(200);
  });
});
