import { LRUCache } from 'lru-cache';

/** A loaded value and the tags of what it shows: invalidating any of them drops it. */
export interface Loaded<V> {
  value: V;
  tags: readonly string[];
}

interface Entry<V> {
  value: V;
  tags: readonly string[];
}

interface Load<V> {
  promise: Promise<V>;
  /** The tags the key had when it was last loaded, or null when unknown (then any invalidation concerns it). */
  expected: ReadonlySet<string> | null;
  /** Something the load may show changed while it ran: its answer is neither stored nor handed to later callers. */
  stale: boolean;
}

export interface ReadCacheOptions<V> {
  /** Bound of the stored values' total size, in the units of `sizeOf`. */
  maxSize: number;
  sizeOf(value: V): number;
  maxEntries: number;
}

/**
 * Values kept in this process's memory, each for its own time to live, dropped at once when one of its tags is
 * invalidated. Concurrent misses of one key share a single load. A load that something it may show changed under
 * (an invalidation while it ran) still answers the callers that were waiting for it, but it is not stored and no
 * caller arriving after the invalidation joins it: they start a fresh load.
 */
export class ReadCache<V extends {}> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly keysByTag = new Map<string, Set<string>>();
  /** The tags each key had at its last load, so that a load in flight knows which invalidations concern it. */
  private readonly tagsByKey: LRUCache<string, ReadonlySet<string>>;
  private readonly loads = new Map<string, Load<V>>();
  private invalidations = 0;

  constructor(options: ReadCacheOptions<V>) {
    this.entries = new LRUCache<string, Entry<V>>({
      max: options.maxEntries,
      maxSize: options.maxSize,
      sizeCalculation: (entry) => Math.max(1, options.sizeOf(entry.value)),
      dispose: (entry, key) => this.unindex(key, entry.tags),
    });
    this.tagsByKey = new LRUCache({ max: options.maxEntries });
  }

  /**
   * The stored value of `key`, else the answer of the load in flight for it, else a new load, stored for `ttlMs`.
   * `expectedTags` names the tags of the answer when the caller knows them before loading.
   */
  get(
    key: string,
    ttlMs: number,
    load: () => Promise<Loaded<V>>,
    expectedTags?: readonly string[],
  ): Promise<V> {
    const entry = this.entries.get(key);
    if (entry) return Promise.resolve(entry.value);
    const running = this.loads.get(key);
    if (running) return running.promise;
    return this.start(key, ttlMs, load, expectedTags);
  }

  /** Loads without storing or sharing anything (when invalidations cannot be trusted to arrive). */
  async bypass(load: () => Promise<Loaded<V>>): Promise<V> {
    return (await load()).value;
  }

  /** Drops every value showing `tag`, and detaches the loads in flight that may show it. */
  invalidate(tag: string): void {
    this.invalidations += 1;
    const keys = this.keysByTag.get(tag);
    if (keys) {
      this.keysByTag.delete(tag);
      for (const key of keys) this.entries.delete(key);
    }
    for (const [key, load] of this.loads) {
      if (load.expected === null || load.expected.has(tag)) {
        load.stale = true;
        this.loads.delete(key);
      }
    }
  }

  /** Drops everything, and detaches every load in flight. */
  clear(): void {
    this.invalidations += 1;
    this.entries.clear();
    this.keysByTag.clear();
    this.tagsByKey.clear();
    for (const load of this.loads.values()) load.stale = true;
    this.loads.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private start(
    key: string,
    ttlMs: number,
    load: () => Promise<Loaded<V>>,
    expectedTags: readonly string[] | undefined,
  ): Promise<V> {
    const record: Load<V> = {
      promise: undefined as unknown as Promise<V>,
      expected: expectedTags ? new Set(expectedTags) : (this.tagsByKey.get(key) ?? null),
      stale: false,
    };
    this.loads.set(key, record);
    record.promise = this.run(key, ttlMs, load, record);
    return record.promise;
  }

  private async run(key: string, ttlMs: number, load: () => Promise<Loaded<V>>, record: Load<V>): Promise<V> {
    const startedAt = this.invalidations;
    try {
      const loaded = await load();
      this.tagsByKey.set(key, new Set(loaded.tags));
      // Stored only when no invalidation since the start can concern it: none at all, or none of its tags.
      if (!record.stale && (startedAt === this.invalidations || covers(record.expected, loaded.tags))) {
        this.store(key, loaded, ttlMs);
      }
      return loaded.value;
    } finally {
      if (this.loads.get(key) === record) this.loads.delete(key);
    }
  }

  private store(key: string, loaded: Loaded<V>, ttlMs: number): void {
    this.entries.delete(key);
    const entry: Entry<V> = { value: loaded.value, tags: loaded.tags };
    this.entries.set(key, entry, { ttl: ttlMs });
    if (this.entries.peek(key) !== entry) return; // too big to keep
    for (const tag of loaded.tags) {
      let keys = this.keysByTag.get(tag);
      if (!keys) {
        keys = new Set();
        this.keysByTag.set(tag, keys);
      }
      keys.add(key);
    }
  }

  private unindex(key: string, tags: readonly string[]): void {
    for (const tag of tags) {
      const keys = this.keysByTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.keysByTag.delete(tag);
    }
  }
}

function covers(expected: ReadonlySet<string> | null, tags: readonly string[]): boolean {
  return expected !== null && tags.every((tag) => expected.has(tag));
}
