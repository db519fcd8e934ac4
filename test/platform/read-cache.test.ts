import { describe, expect, it } from 'vitest';
import { type Loaded, ReadCache } from '../../src/platform/read-cache.js';

const newCache = (maxSize = 1_000_000) =>
  new ReadCache<string>({ maxSize, sizeOf: (value) => value.length, maxEntries: 100 });

/** A load the test finishes by hand, counting how often it ran. */
function controlledLoad() {
  const pending: ((loaded: Loaded<string>) => void)[] = [];
  const load = {
    runs: 0,
    fn: () => {
      load.runs += 1;
      return new Promise<Loaded<string>>((resolve) => pending.push(resolve));
    },
    finish(value: string, tags: string[]) {
      const next = pending.shift();
      if (!next) throw new Error('no load is running');
      next({ value, tags });
    },
  };
  return load;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ReadCache', () => {
  it('shares one load between concurrent misses and serves the stored value afterwards', async () => {
    const cache = newCache();
    const load = controlledLoad();
    const answers = Promise.all([1, 2, 3].map(() => cache.get('k', 60_000, load.fn)));
    load.finish('v1', ['a']);
    expect(await answers).toEqual(['v1', 'v1', 'v1']);
    expect(await cache.get('k', 60_000, load.fn)).toBe('v1');
    expect(load.runs).toBe(1);
  });

  it('keeps a value for its time to live only', async () => {
    const cache = newCache();
    let runs = 0;
    const load = async () => ({ value: `v${++runs}`, tags: [] });
    expect(await cache.get('k', 40, load)).toBe('v1');
    expect(await cache.get('k', 40, load)).toBe('v1');
    await sleep(60);
    expect(await cache.get('k', 40, load)).toBe('v2');
  });

  it('drops exactly the values showing an invalidated tag', async () => {
    const cache = newCache();
    let runs = 0;
    const load = (tags: string[]) => async () => ({ value: `v${++runs}`, tags });
    await cache.get('ab', 60_000, load(['a', 'b']));
    await cache.get('b', 60_000, load(['b']));
    await cache.get('c', 60_000, load(['c']));
    cache.invalidate('b');
    expect(cache.size).toBe(1);
    expect(await cache.get('c', 60_000, load(['c']))).toBe('v3');
    expect(await cache.get('ab', 60_000, load(['a', 'b']))).toBe('v4');
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('never stores or shares a load that an invalidation overtook', async () => {
    const cache = newCache();
    const load = controlledLoad();
    const early = cache.get('k', 60_000, load.fn);
    // Unknown tags: any invalidation concerns the load in flight.
    cache.invalidate('x');
    const late = cache.get('k', 60_000, load.fn);
    expect(load.runs).toBe(2);
    load.finish('old', ['a']);
    load.finish('new', ['a']);
    expect(await early).toBe('old');
    expect(await late).toBe('new');
    expect(await cache.get('k', 60_000, load.fn)).toBe('new');
    expect(load.runs).toBe(2);
  });

  it('lets a load in flight go on through invalidations that cannot concern it', async () => {
    const cache = newCache();
    const load = controlledLoad();
    const first = cache.get('k', 60_000, load.fn, ['a']);
    cache.invalidate('b');
    const joined = cache.get('k', 60_000, load.fn, ['a']);
    load.finish('v', ['a']);
    expect([await first, await joined]).toEqual(['v', 'v']);
    expect(load.runs).toBe(1);
    cache.invalidate('a');
    const again = cache.get('k', 60_000, load.fn);
    // The key's tags are remembered from its last load, so an unrelated invalidation leaves this one alone too.
    cache.invalidate('b');
    load.finish('v2', ['a']);
    expect(await again).toBe('v2');
    expect(await cache.get('k', 60_000, load.fn)).toBe('v2');
    expect(load.runs).toBe(2);
  });

  it('does not store a load whose answer shows a tag invalidated while it ran', async () => {
    const cache = newCache();
    const load = controlledLoad();
    const first = cache.get('k', 60_000, load.fn, ['a']);
    cache.invalidate('b');
    load.finish('v', ['a', 'b']);
    expect(await first).toBe('v');
    expect(cache.size).toBe(0);
  });

  it('shares a failure with the callers waiting for it and stores nothing', async () => {
    const cache = newCache();
    let runs = 0;
    const failing = async (): Promise<Loaded<string>> => {
      runs += 1;
      await sleep(5);
      throw new Error('boom');
    };
    const results = await Promise.allSettled([
      cache.get('k', 60_000, failing),
      cache.get('k', 60_000, failing),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(runs).toBe(1);
    await expect(cache.get('k', 60_000, async () => ({ value: 'ok', tags: [] }))).resolves.toBe('ok');
    const throwing = (): Promise<Loaded<string>> => {
      throw new Error('at once');
    };
    await expect(cache.get('t', 60_000, throwing)).rejects.toThrow('at once');
    await expect(cache.get('t', 60_000, async () => ({ value: 'fine', tags: [] }))).resolves.toBe('fine');
  });

  it('keeps its total size within the bound, and never keeps a value bigger than it', async () => {
    const cache = newCache(10);
    await cache.get('a', 60_000, async () => ({ value: 'aaaaaa', tags: ['t'] }));
    await cache.get('b', 60_000, async () => ({ value: 'bbbbbb', tags: ['t'] }));
    expect(cache.size).toBe(1);
    await cache.get('huge', 60_000, async () => ({ value: 'x'.repeat(50), tags: ['t'] }));
    expect(cache.size).toBe(1);
    cache.invalidate('t');
    expect(cache.size).toBe(0);
  });
});
