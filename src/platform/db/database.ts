import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  readonly kind: DatabaseKind;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
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

async function ping(db: Kysely<DB>): Promise<boolean> {
  try {
    await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    return true;
  } catch {
    return false;
  }
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
  /** PostgreSQL connection string; null selects embedded PGlite. */
  url: string | null;
  /** PGlite data directory; null keeps the embedded database in memory. */
  dataDir: string | null;
  poolSize?: number;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    const url = options.url;
    return {
      db,
      kind: 'postgres',
      ping: () => ping(db),
      listen: (channel, handler, onGap) => listenOnPostgres(url, channel, handler, onGap),
      close: () => db.destroy(),
    };
  }
  // The database gets a folder of its own in DATA_DIR: PGlite refuses a non-empty folder that holds no database,
  // and DATA_DIR also holds the avatars.
  const pgliteDir = options.dataDir ? join(options.dataDir, 'pglite') : null;
  if (pgliteDir) mkdirSync(pgliteDir, { recursive: true });
  const pglite = await PGlite.create({
    ...(pgliteDir ? { dataDir: pgliteDir } : {}),
    parsers: { [INT8_OID]: (value: string) => int8ToNumber(value), [DATE_OID]: (value: string) => value },
  });
  const pool = new PGlitePool(pglite);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'pglite',
    ping: () => ping(db),
    listen: (channel, handler) => pool.listen(channel, handler),
    close: () => db.destroy(),
  };
}

/**
 * LISTEN needs a connection of its own, outside the pool. It reconnects after a failure, every second until it is
 * back; notifications sent while it was away are lost, which is why every listener can resynchronise from the
 * database (and is told of the gap through `onGap`).
 */
async function listenOnPostgres(
  url: string,
  channel: string,
  handler: (payload: string) => void,
  onGap?: (listening: boolean) => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  let client: pg.Client | null = null;
  let stopped = false;
  const retry = (): void => {
    if (stopped) return;
    setTimeout(() => {
      connect().then(() => {
        if (client) onGap?.(true);
      }, retry);
    }, 1000).unref();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) handler(message.payload);
    });
    next.on('error', () => {
      next.end().catch(() => {});
      // Only a connection that was listening starts a retry; a failed attempt is retried by `retry` itself.
      if (client !== next) return;
      client = null;
      onGap?.(false);
      retry();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
  };
  await connect();
  return async () => {
    stopped = true;
    await client?.end().catch(() => {});
  };
}
