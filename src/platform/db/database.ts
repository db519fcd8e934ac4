import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from 'kysely';
import pg from 'pg';
import { type DatabaseTarget, parseDatabaseUrl } from './hosts.js';
import {
  connectionSettings,
  type DatabaseLog,
  type DatabaseTimeouts,
  GuardedPool,
  silentLog,
  UNBOUNDED,
} from './pool.js';
import { preparingRepeatedStatements, StatementNames } from './prepared.js';
import { ReplicaPool } from './replica.js';
import type { DB } from './schema.js';
import { guardedPool, TransactionMarkingKysely } from './transaction-guard.js';
import { type DatabaseCondition, databaseCondition } from './types.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  /**
   * For the public reads that may go to a replica (`DATABASE_READ_URL`): its statements see every write
   * acknowledged before they were made, as on the primary (see `ReplicaPool`). The same as `db` without a replica.
   */
  readonly reads: Kysely<DB>;
  readonly kind: DatabaseKind;
  /**
   * What stops the database from serving reads and writes now, or null when nothing does: out of reach, a
   * read-only session or a standby, or a condition a statement met within the last half second (disk full, out of memory
   * or connections).
   */
  check(): Promise<DatabaseCondition | null>;
  /** The condition the last failed statement met, if it failed within the last half second. */
  recentCondition(): DatabaseCondition | null;
  /**
   * Calls `handler` with the payload of every NOTIFY on `channel`, delivered after the notifying transaction
   * commits, from any process on the same database. Returns a function that stops listening.
   * `onGap` is told when notifications may go missing (`false`: the listening connection was lost) and when
   * they flow again (`true`: listening anew), so a listener holding state can drop it and resynchronise.
   */
  listen(
    channel: string,
    handler: (payload: string) => void,
    onGap?: (listening: boolean) => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

async function ping(db: Kysely<DB>): Promise<DatabaseCondition | null> {
  try {
    await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    return null;
  } catch (error) {
    return databaseCondition(error) ?? 'unavailable';
  }
}

/**
 * A read-only session or a standby is not ready: it would refuse every order. A lock or statement timeout a
 * request met (`unavailable` with the database answering) is that request's, not the database's.
 */
async function checkPostgres(db: Kysely<DB>, pool: GuardedPool): Promise<DatabaseCondition | null> {
  try {
    const { rows } = await sql<{ read_only: boolean }>`
      SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`.execute(db);
    if (rows[0]?.read_only) return 'read_only';
  } catch (error) {
    return databaseCondition(error) ?? 'unavailable';
  }
  const recent = pool.recentCondition();
  return recent === 'unavailable' ? null : recent;
}

const INT8_OID = 20;
const DATE_OID = 1082;

function int8ToNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`bigint ${value} is beyond the safe integer range`);
  return parsed;
}

pg.types.setTypeParser(INT8_OID, int8ToNumber);
// Calendar dates stay 'YYYY-MM-DD' strings: a Date would shift them into the process time zone.
pg.types.setTypeParser(DATE_OID, (value: string) => value);

/**
 * PGlite is a single Postgres session, so it is exposed to Kysely as a pool of exactly one connection:
 * a transaction holds it until commit, and every other query waits its turn. That keeps transactions
 * from interleaving on the shared session.
 */
class PGlitePool implements PostgresPool {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly pglite: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.queue;
    this.queue = previous.then(() => released);
    await previous;
    const pglite = this.pglite;
    let done = false;
    const client = {
      async query(sql: string, parameters: readonly unknown[]) {
        if (parameters.length === 0) {
          const results = await pglite.exec(sql);
          const last = results[results.length - 1];
          return { command: commandOf(sql), rowCount: last?.affectedRows ?? 0, rows: last?.rows ?? [] };
        }
        const result = await pglite.query(sql, parameters as unknown[]);
        return { command: commandOf(sql), rowCount: result.affectedRows ?? 0, rows: result.rows };
      },
      release() {
        if (done) return;
        done = true;
        release();
      },
    };
    return client as unknown as PostgresPoolClient;
  }

  async end(): Promise<void> {
    await this.queue;
    await this.pglite.close();
  }

  /** LISTEN takes the session lock like any query, so it never lands inside someone's transaction. */
  async listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    const client = await this.connect();
    try {
      const unsubscribe = await this.pglite.listen(channel, handler);
      return async () => {
        const session = await this.connect();
        try {
          await unsubscribe();
        } finally {
          session.release();
        }
      };
    } finally {
      client.release();
    }
  }
}

function commandOf(sql: string): 'SELECT' | 'UPDATE' | 'DELETE' | 'INSERT' | 'MERGE' {
  const head = sql.trimStart().slice(0, 6).toUpperCase();
  if (head === 'UPDATE' || head === 'DELETE' || head === 'INSERT') return head;
  return 'SELECT';
}

export interface OpenDatabaseOptions {
  /**
   * PostgreSQL connection string, libpq's multi-host form included (the service then writes to the host that takes
   * writes, and follows it through a failover); null selects embedded PGlite.
   */
  url: string | null;
  /** A replica for the public reads (PostgreSQL only), and how long a read waits for it to catch up. */
  replica?: { url: string; waitMs: number } | undefined;
  /** PGlite data directory; null keeps the embedded database in memory. */
  dataDir: string | null;
  poolSize?: number;
  /** Bounds of every wait on PostgreSQL; unset fields have no bound but the acquire default. */
  timeouts?: Partial<DatabaseTimeouts>;
  /** Told of connection failures the service survives (a lost pool or listening connection). */
  log?: DatabaseLog;
  /** Runs of one statement text after which it is prepared (see prepared.ts); 0 never prepares. Default 5. */
  prepareThreshold?: number;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres({ ...options, url: options.url });
  // The database gets a folder of its own in DATA_DIR: PGlite refuses a non-empty folder that holds no database,
  // and DATA_DIR also holds the avatars.
  const pgliteDir = options.dataDir ? join(options.dataDir, 'pglite') : null;
  if (pgliteDir) mkdirSync(pgliteDir, { recursive: true });
  const pglite = await PGlite.create({
    ...(pgliteDir ? { dataDir: pgliteDir } : {}),
    parsers: { [INT8_OID]: (value: string) => int8ToNumber(value), [DATE_OID]: (value: string) => value },
  });
  const pool = new PGlitePool(pglite);
  const db = new TransactionMarkingKysely({ dialect: new PostgresDialect({ pool: guardedPool(pool) }) });
  return {
    db,
    reads: db,
    kind: 'pglite',
    check: () => ping(db),
    recentCondition: () => null,
    listen: (channel, handler) => pool.listen(channel, handler),
    close: () => db.destroy(),
  };
}

/**
 * The service writes to the host of `url` that takes writes: with several hosts named and no
 * `target_session_attrs`, that is what is looked for (libpq's default, `any`, would take a standby as readily).
 */
function writeTarget(url: string): DatabaseTarget {
  const target = parseDatabaseUrl(url);
  return target.attrs === 'any' && target.hosts.length > 1 ? { ...target, attrs: 'read-write' } : target;
}

async function openPostgres(options: OpenDatabaseOptions & { url: string }): Promise<Database> {
  const log = options.log ?? silentLog;
  const timeouts = { ...UNBOUNDED, ...options.timeouts };
  const poolSize = options.poolSize ?? 10;
  // One registry of names for both pools: the reads fall back to the primary's connections.
  const names = new StatementNames({ threshold: options.prepareThreshold ?? 5, maxStatements: 500 });
  const kysely = (pool: PostgresPool) =>
    new TransactionMarkingKysely({
      dialect: new PostgresDialect({ pool: guardedPool(preparingRepeatedStatements(pool, names)) }),
    });
  const pool = new GuardedPool(writeTarget(options.url), poolSize, timeouts, log);
  const db = kysely(pool);
  const replica = options.replica;
  const reads = replica
    ? kysely(
        new ReplicaPool(
          pool,
          new GuardedPool(parseDatabaseUrl(replica.url), poolSize, timeouts, log),
          replica.waitMs,
        ),
      )
    : db;
  try {
    await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
  } catch (error) {
    if (reads !== db) await reads.destroy().catch(() => {});
    await db.destroy().catch(() => {});
    throw error;
  }
  return {
    db,
    reads,
    kind: 'postgres',
    check: () => checkPostgres(db, pool),
    recentCondition: () => pool.recentCondition(),
    listen: (channel, handler, onGap) => listenOnPostgres({ pool, timeouts, log }, channel, handler, onGap),
    close: async () => {
      if (reads !== db) await reads.destroy();
      await db.destroy();
    },
  };
}

/** How often an idle listening connection proves it is alive, and how long it has to answer. */
const LISTEN_HEARTBEAT_MS = 2_000;
const LISTEN_HEARTBEAT_DEADLINE_MS = 2_000;
/** Pause between attempts to listen again. */
const LISTEN_RETRY_MS = 250;

interface ListenTarget {
  /** The pool whose host the listening connection follows. */
  pool: GuardedPool;
  timeouts: DatabaseTimeouts;
  log: DatabaseLog;
}

/**
 * LISTEN needs a connection of its own, outside the pool. A lost connection (an error, or no answer to the
 * heartbeat: a stalled network says nothing) is closed and replaced, retrying until it is back; notifications sent
 * while it was away are lost, which is why every listener can resynchronise from the database (and is told of the
 * gap through `onGap`). It listens on the pool's host, the primary, and when the pool has found the primary on
 * another host (a failover), it is replaced there at its next heartbeat: notifications come from the primary's
 * transactions.
 */
async function listenOnPostgres(
  target: ListenTarget,
  channel: string,
  handler: (payload: string) => void,
  onGap?: (listening: boolean) => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  let client: pg.Client | null = null;
  let stopped = false;
  let heartbeat: NodeJS.Timeout | null = null;
  const retry = (): void => {
    if (stopped) return;
    setTimeout(() => {
      connect().then(() => {
        if (client) onGap?.(true);
      }, retry);
    }, LISTEN_RETRY_MS).unref();
  };
  const lost = (next: pg.Client, url: string, err: unknown): void => {
    next.connection.stream.destroy();
    next.end().catch(() => {});
    target.pool.suspect(url);
    // Only a connection that was listening starts a retry; a failed attempt is retried by `retry` itself.
    if (client !== next) return;
    client = null;
    if (heartbeat) clearInterval(heartbeat);
    target.log.warn({ err, channel }, 'the listening connection was lost; listening again');
    onGap?.(false);
    retry();
  };
  const connect = async (): Promise<void> => {
    const url = await target.pool.currentHost();
    const next = new pg.Client({
      ...connectionSettings(url, target.timeouts),
      connectionTimeoutMillis: target.timeouts.acquireMs || 5_000,
    });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) handler(message.payload);
    });
    next.on('error', (err) => lost(next, url, err));
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      next.connection.stream.destroy();
      next.end().catch(() => {});
      target.pool.suspect(url);
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    heartbeat = setInterval(() => {
      // The pool found the database on another host (a failover): notifications are sent there now.
      const moved = target.pool.hostInUse();
      if (moved !== null && moved !== url)
        return lost(next, url, new Error('the database moved to another host'));
      const deadline = setTimeout(
        () => lost(next, url, new Error('no answer to the heartbeat')),
        LISTEN_HEARTBEAT_DEADLINE_MS,
      );
      // LISTEN again is a no-op that proves the connection alive (and keeps it named by its channel in pg_stat_activity).
      next.query(`LISTEN ${channel}`).then(
        () => clearTimeout(deadline),
        (err: unknown) => {
          clearTimeout(deadline);
          lost(next, url, err);
        },
      );
    }, LISTEN_HEARTBEAT_MS);
    heartbeat.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    if (heartbeat) clearInterval(heartbeat);
    await client?.end().catch(() => {});
  };
}
