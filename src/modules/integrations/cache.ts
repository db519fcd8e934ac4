import { LRUCache } from 'lru-cache';
import { ProviderFailure } from './providers/http.js';

export type ProviderStatus = 'ok' | 'cached' | 'timeout' | 'error';

export interface CachedAnswer<T> {
  status: ProviderStatus;
  /** The freshest answer there is: null only when the provider has never answered. */
  value: T | null;
  fetchedAt: Date | null;
  message?: string;
}

interface Entry<T> {
  value: T | null;
  fetchedAt: Date | null;
  failure: { kind: 'timeout' | 'error'; message: string; until: number } | null;
}

export interface ProviderCacheOptions {
  ttlMs: number;
  /** How long an answer may still be served while the provider is failing. */
  maxStaleMs: number;
  maxEntries?: number;
  onUnexpected?: (error: unknown) => void;
}

// A failing provider is left alone for this long (at most), so a dead one does not slow every request.
const MAX_FAILURE_HOLD_MS = 30_000;

/**
 * Provider answers kept in this process's memory (per instance, lost on restart): fresh for `ttlMs`, then
 * refetched; one fetch per key at a time; on failure the last answer is served with the failure reported.
 */
export class ProviderCache<T> {
  private readonly entries: LRUCache<string, Entry<T>>;
  private readonly inflight = new Map<string, Promise<CachedAnswer<T>>>();

  constructor(private readonly options: ProviderCacheOptions) {
    this.entries = new LRUCache({ max: options.maxEntries ?? 500 });
  }

  get(key: string, load: () => Promise<T>): Promise<CachedAnswer<T>> {
    const entry = this.entries.get(key);
    const now = Date.now();
    if (entry?.fetchedAt && entry.failure === null && now - entry.fetchedAt.getTime() < this.options.ttlMs) {
      return Promise.resolve({ status: 'cached', value: entry.value, fetchedAt: entry.fetchedAt });
    }
    if (entry?.failure && now < entry.failure.until) return Promise.resolve(this.failed(entry));
    const running = this.inflight.get(key);
    if (running) return running;
    const fetching = this.fetch(key, load, entry).finally(() => this.inflight.delete(key));
    this.inflight.set(key, fetching);
    return fetching;
  }

  private async fetch(key: string, load: () => Promise<T>, previous: Entry<T> | undefined) {
    try {
      const value = await load();
      const fetchedAt = new Date();
      this.entries.set(key, { value, fetchedAt, failure: null });
      return { status: 'ok', value, fetchedAt } satisfies CachedAnswer<T>;
    } catch (error) {
      if (!(error instanceof ProviderFailure)) this.options.onUnexpected?.(error);
      const failure = {
        kind: error instanceof ProviderFailure ? error.kind : 'error',
        message: error instanceof ProviderFailure ? error.message : 'unexpected answer',
        until: Date.now() + Math.min(this.options.ttlMs, MAX_FAILURE_HOLD_MS),
      } as const;
      const usable =
        previous?.fetchedAt && Date.now() - previous.fetchedAt.getTime() < this.options.maxStaleMs
          ? previous
          : { value: null, fetchedAt: null };
      const entry: Entry<T> = { value: usable.value, fetchedAt: usable.fetchedAt, failure };
      this.entries.set(key, entry);
      return this.failed(entry);
    }
  }

  private failed(entry: Entry<T>): CachedAnswer<T> {
    const failure = entry.failure!;
    const served = entry.fetchedAt ? `; showing the answer from ${entry.fetchedAt.toISOString()}` : '';
    return {
      status: failure.kind,
      value: entry.value,
      fetchedAt: entry.fetchedAt,
      message: failure.message + served,
    };
  }
}
