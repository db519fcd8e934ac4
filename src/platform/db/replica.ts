import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** The longest pause between two looks at how far the replica has replayed. */
const LONGEST_PAUSE_MS = 8;
/** How long the reads go straight to the primary after the replica could not be reached. */
const REPLICA_REST_MS = 1_000;

/**
 * The connections of the reads that may go to a replica (`DATABASE_READ_URL`), which never show the past: a read
 * gets a replica's connection only once that replica has replayed everything the primary had flushed when the read
 * asked for it, so it sees every write acknowledged before it, its reader's own included, as a read on the primary
 * would. The primary is asked its position once for all the reads that arrive together (one `pg_current_wal_flush_lsn()`,
 * the cheapest of statements), the replica then in the connection the read will use. When the replica stays behind
 * past `waitMs`, or cannot be reached, the read takes a connection of the primary instead (and so do the reads of the
 * next second, when it could not be reached: a replica out of reach is not waited for on every read).
 *
 * The service commits synchronously (never `synchronous_commit = off`), so every acknowledged write is flushed,
 * hence within the position asked. With `synchronous_commit = remote_apply` on the primary, the replica has always
 * caught up already and the first look lets the read through.
 */
export class ReplicaPool implements PostgresPool {
  /** The question to the primary that has not been sent yet: reads that arrive meanwhile share its answer. */
  private unsent: Promise<string> | null = null;
  private replicaDownUntil = 0;

  constructor(
    private readonly primary: PostgresPool,
    private readonly replica: PostgresPool,
    private readonly waitMs: number,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    if (Date.now() < this.replicaDownUntil) return this.primary.connect();
    let position: string;
    try {
      position = await this.primaryPosition();
    } catch {
      // The primary's own connection meets the same failure and reports it.
      return this.primary.connect();
    }
    let client: PostgresPoolClient;
    try {
      client = await this.replica.connect();
    } catch {
      this.replicaDownUntil = Date.now() + REPLICA_REST_MS;
      return this.primary.connect();
    }
    let caughtUp = false;
    try {
      caughtUp = await this.replayed(client, position, Date.now() + this.waitMs);
    } catch {
      this.replicaDownUntil = Date.now() + REPLICA_REST_MS;
    }
    if (caughtUp) return client;
    client.release();
    return this.primary.connect();
  }

  end(): Promise<void> {
    return this.replica.end();
  }

  /** Where the primary's write-ahead log is flushed to now, asked after the caller arrived. */
  private primaryPosition(): Promise<string> {
    if (this.unsent) return this.unsent;
    const question = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.unsent = null;
      return this.askPrimary();
    });
    this.unsent = question;
    return question;
  }

  private async askPrimary(): Promise<string> {
    const client = await this.primary.connect();
    try {
      const { rows } = await client.query<{ lsn: string }>(
        'SELECT pg_current_wal_flush_lsn()::text AS lsn',
        [],
      );
      const lsn = rows[0]?.lsn;
      if (!lsn) throw new Error('the primary did not say where its log is');
      return lsn;
    } finally {
      client.release();
    }
  }

  /** Waits, until `deadline`, for the replica on `client` to have replayed up to `position`; a primary has. */
  private async replayed(client: PostgresPoolClient, position: string, deadline: number): Promise<boolean> {
    for (let pause = 1; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      const { rows } = await client.query<{ replayed: boolean }>(
        `SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() >= $1::pg_lsn ELSE true END AS replayed`,
        [position],
      );
      if (rows[0]?.replayed) return true;
      if (Date.now() + pause > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
