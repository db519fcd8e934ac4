import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config.js';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError } from '../../platform/errors.js';
import type { FlagRow, FlagsRepository } from './repository.js';

/** A flag that only makes sense when something outside the database is in place, such as a provider. */
export interface FlagPrerequisite {
  met: boolean;
  reason: string;
}

export interface FlagsOptions {
  /** How long a loaded set of flags is trusted before the next read goes back to the database. */
  refreshMs: number;
  prerequisites: Record<string, FlagPrerequisite>;
  /**
   * What the deployment is rather than what operators switch, published beside the flags (`addressesVerified`:
   * whether addresses are proven by mail).
   */
  facts?: Record<string, boolean>;
}

export interface FlagView {
  key: string;
  enabled: boolean;
  effective: boolean;
  blockedBy: string | null;
  description: string;
  updatedAt: string;
  updatedBy: string | null;
}

export function flagPrerequisites(config: Config): Record<string, FlagPrerequisite> {
  return {
    cricketLive: { met: config.cricketApiUrl !== null, reason: 'CRICKET_API_URL is not configured' },
    newsSummary: { met: config.ai !== null, reason: 'AI_BASE_URL and AI_MODEL are not configured' },
  };
}

/**
 * Feature flags with a short-lived in-process copy. Each instance rereads the table once its copy is older
 * than `refreshMs`, so a change made through any instance takes effect everywhere within that time; the
 * instance that made the change drops its copy at once.
 */
export class FlagsService {
  private snapshot: { rows: Map<string, FlagRow>; loadedAt: number } | null = null;
  private loading: { generation: number; rows: Promise<Map<string, FlagRow>> } | null = null;
  private generation = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly flags: FlagsRepository,
    private readonly options: FlagsOptions,
  ) {}

  /** Whether the feature is on right now; an unknown key is off. */
  async isEnabled(key: string): Promise<boolean> {
    const row = (await this.rows()).get(key);
    return row !== undefined && this.effective(row);
  }

  async publicMap(): Promise<Record<string, boolean>> {
    const map: Record<string, boolean> = { ...this.options.facts };
    for (const row of (await this.rows()).values()) map[row.key] = this.effective(row);
    return map;
  }

  async list(): Promise<FlagView[]> {
    return [...(await this.rows()).values()].map((row) => this.toView(row));
  }

  async set(key: string, enabled: boolean, userId: number): Promise<FlagView> {
    const row = await this.flags.set(this.db, key, enabled, userId);
    if (!row) throw new NotFoundError(`Flag ${key}`);
    this.generation += 1;
    this.snapshot = null;
    return this.toView(row);
  }

  private effective(row: FlagRow): boolean {
    return row.enabled && (this.options.prerequisites[row.key]?.met ?? true);
  }

  private toView(row: FlagRow): FlagView {
    const prerequisite = this.options.prerequisites[row.key];
    return {
      key: row.key,
      enabled: row.enabled,
      effective: this.effective(row),
      blockedBy: prerequisite && !prerequisite.met ? prerequisite.reason : null,
      description: row.description,
      updatedAt: row.updated_at.toISOString(),
      updatedBy: row.updated_by === null ? null : String(row.updated_by),
    };
  }

  private rows(): Promise<Map<string, FlagRow>> {
    const snapshot = this.snapshot;
    if (snapshot && Date.now() - snapshot.loadedAt < this.options.refreshMs) {
      return Promise.resolve(snapshot.rows);
    }
    // Concurrent readers share one query; a load that began before a local change is not reused after it.
    if (this.loading?.generation === this.generation) return this.loading.rows;
    const generation = this.generation;
    const rows = this.flags.list(this.db).then((list) => {
      const map = new Map(list.map((row) => [row.key, row]));
      if (generation === this.generation) this.snapshot = { rows: map, loadedAt: Date.now() };
      return map;
    });
    const loading = { generation, rows };
    this.loading = loading;
    const clear = () => {
      if (this.loading === loading) this.loading = null;
    };
    rows.then(clear, clear);
    return rows;
  }
}
