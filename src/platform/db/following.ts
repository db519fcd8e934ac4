import type pg from 'pg';
import { addressOf, type DatabaseTarget, findHost } from './hosts.js';
import { databaseCondition } from './types.js';

/** The least time between two searches for the host: a failover in progress is not flooded with connections. */
const SEARCH_PAUSE_MS = 100;

/** One host's pool of connections. */
export interface HostPool {
  url: string;
  pool: pg.Pool;
}

/**
 * The pool of connections to the host of a target that has the role the target asks for (the primary, for the
 * service's writes). With one host named, that host's pool, always. With several, the host is found by asking
 * each of them (see `findHost`), and found again when a connection to it fails or finds it read-only (`suspect`):
 * when it has moved (a standby promoted), a pool to the new host takes over and the old one is ended, closing every
 * connection to the old host as soon as it is released. While a search is under way, or no host fits, connections
 * wait for the next search that finds one, up to their deadline.
 */
export class HostFollower {
  private current: HostPool | null = null;
  private search: Promise<HostPool> | null = null;
  private lastSearchAt = 0;
  private readonly retired = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly target: DatabaseTarget,
    private readonly openPool: (url: string) => pg.Pool,
    private readonly probeTimeoutMs: number,
    private readonly log: { warn(details: object, message: string): void },
  ) {
    const only = target.hosts.length === 1 ? target.hosts[0] : undefined;
    if (only !== undefined) this.current = { url: only, pool: openPool(only) };
  }

  /** True when several hosts are named and the one in use may change. */
  get following(): boolean {
    return this.target.hosts.length > 1;
  }

  /**
   * The host to connect to now: the current one, or the one the search under way finds; when no host fits, the
   * search is tried again (every 100 ms at most) until `deadline`, then its last failure is thrown.
   */
  async pool(deadline: number): Promise<HostPool> {
    let failure: unknown;
    do {
      if (this.closed) throw new Error('the database is closed');
      if (!this.search && this.current) return this.current;
      try {
        return await beforeDeadline(this.search ?? this.find(), deadline);
      } catch (error) {
        if (error instanceof DeadlinePassed) throw failure ?? error;
        // A wrong password or an unknown database will not change by waiting.
        if (databaseCondition(error) === null) throw error;
        failure = error;
      }
    } while (Date.now() < deadline);
    throw failure;
  }

  /** The connection string of the host in use; null while none is known. */
  inUse(): string | null {
    return this.current?.url ?? null;
  }

  /** A connection to `url` failed or found it taking no writes: the host is looked for again. */
  suspect(url: string): void {
    if (this.following && this.current?.url === url && !this.search) this.find().catch(() => {});
  }

  /** Ends every pool, waiting for the connections in use to be released. */
  async end(): Promise<void> {
    this.closed = true;
    await this.search?.catch(() => {});
    if (this.current) this.retire(this.current.pool);
    this.current = null;
    await Promise.all(this.retired);
  }

  private find(): Promise<HostPool> {
    this.search ??= this.searchOnce().finally(() => {
      this.search = null;
      this.lastSearchAt = Date.now();
    });
    return this.search;
  }

  private async searchOnce(): Promise<HostPool> {
    const pause = this.lastSearchAt + SEARCH_PAUSE_MS - Date.now();
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    if (this.closed) throw new Error('the database is closed');
    let url: string;
    try {
      url = await findHost(this.target, this.probeTimeoutMs);
    } catch (error) {
      if (this.current) {
        this.log.warn(
          { host: addressOf(this.current.url), err: error },
          'no host of the database takes the service now; the connections to the last one are closed',
        );
        this.retire(this.current.pool);
        this.current = null;
      }
      throw error;
    }
    if (this.closed) throw new Error('the database is closed');
    if (this.current?.url !== url) {
      const previous = this.current;
      this.current = { url, pool: this.openPool(url) };
      if (previous) {
        this.log.warn(
          { from: addressOf(previous.url), to: addressOf(url) },
          'the database moved to another host; the connections to the old one are closed',
        );
        this.retire(previous.pool);
      }
    }
    return this.current;
  }

  /** Idle connections close now, those in use as they are released. */
  private retire(pool: pg.Pool): void {
    const ended: Promise<void> = pool
      .end()
      .catch(() => {})
      .finally(() => this.retired.delete(ended));
    this.retired.add(ended);
  }
}

class DeadlinePassed extends Error {
  constructor() {
    super('timeout exceeded when trying to connect');
  }
}

/** `work`, or DeadlinePassed at `deadline` (never, when it is Infinity). */
function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  if (deadline === Number.POSITIVE_INFINITY) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlinePassed()), Math.max(0, deadline - Date.now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
