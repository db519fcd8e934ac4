import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTwoInstances, createTwoInstances, type TwoInstances } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { bookOf, Follower, type Level, sorted } from '../../support/follower.js';
import { streamUrl } from '../../support/stream-client.js';

const RUN_MS = Number(process.env.STREAM_FAILOVER_MS ?? 5_000);
/** At least this many drops, however slow the machine (the embedded database shares the test's thread). */
const DROPS = 12;
/** Small enough that a follower kept away long enough may fall beyond it. */
const WINDOW = 40;

let two: TwoInstances;
beforeAll(async () => {
  two = await createTwoInstances({ STREAM_WINDOW_MESSAGES: String(WINDOW) });
});
afterAll(async () => {
  await closeTwoInstances(two);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('followers dropped under load', () => {
  it('resume on the other instance with exactly what they missed and hold what GET /api/orderbook shows', async () => {
    const { a, b } = two;
    const apps = [a.app, b.app];
    const urls = [await streamUrl(a), await streamUrl(b)];
    const admin = await newAdmin(a.app);
    const options: string[] = [];
    for (let i = 0; i < 3; i++) {
      const market = await createMarket(a.app, admin.token, {
        options: [{ label: `F${i}`, liquidityCents: 20_000 }],
      });
      options.push(market.options[0]!.id);
    }
    const traders = await Promise.all(
      Array.from({ length: 6 }, (_, i) => newUser(apps[i % 2] as FastifyInstance)),
    );
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
    const followers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => Follower.open(urls[i % 2] as string, `book:${options[i % 3]}`)),
    );
    while (followers.some((f) => !f.settled)) await sleep(20);
    const at = followers.map((_, i) => i % 2);
    const until = Date.now() + RUN_MS;
    let running = true;
    const refused: string[] = [];

    const trade = async (trader: TestUser, app: FastifyInstance) => {
      while (running) {
        const optionId = pick(options);
        const side = random() < 0.5 ? ('YES' as const) : ('NO' as const);
        const quantity = 1 + Math.floor(random() * 2);
        const res =
          random() < 0.3
            ? await marketTrade(app, trader.token, { optionId, side, action: 'BUY', quantity, price: 99 })
            : await limitOrder(app, trader.token, {
                optionId,
                side,
                action: 'BUY',
                quantity,
                price: 30 + Math.floor(random() * 30),
              });
        if (res.statusCode !== 201) refused.push(`${res.statusCode} ${res.body}`);
      }
    };
    let drops = 0;
    const dropAndResume = async () => {
      while (drops < DROPS || Date.now() < until) {
        await sleep(50 + random() * 150);
        const i = Math.floor(random() * followers.length);
        const follower = followers[i] as Follower;
        // Dropped again only once its last reconnection was answered, so that every one is counted.
        if (!follower.settled) continue;
        follower.drop();
        drops += 1;
        // Away for a moment, or long enough to miss more than the window now and then.
        await sleep(random() < 0.9 ? random() * 600 : 3000);
        at[i] = 1 - (at[i] as number);
        await follower.resume(urls[at[i] as number] as string);
      }
      running = false;
    };
    await Promise.all([...traders.map((t, i) => trade(t, apps[i % 2] as FastifyInstance)), dropAndResume()]);

    expect(refused.slice(0, 5)).toEqual([]);
    for (const follower of followers) {
      const optionId = follower.channel.split(':')[1];
      const read = (await b.app.inject({ url: `/api/orderbook/${optionId}` })).json();
      for (let i = 0; i < 200 && (!follower.settled || follower.seq < read.bookVersion); i++) await sleep(50);
      expect(follower.gaps).toBe(0);
      expect(follower.seq).toBe(read.bookVersion);
      const levels = [
        ...read.yes.bids.map((l: Level) => ({ ...l, side: 'bid' })),
        ...read.yes.asks.map((l: Level) => ({ ...l, side: 'ask' })),
      ];
      expect(sorted(follower.book)).toEqual(sorted(bookOf(levels)));
      // A fresh start only when more than the window was missed (the snapshot is read after the window was; a
      // follower dropped again before its snapshot came has none).
      for (const restart of follower.restarts) {
        if (restart.snapshotSeq !== null)
          expect(restart.snapshotSeq - restart.lastSeq).toBeGreaterThan(WINDOW);
      }
      follower.close();
    }
    const resumed = followers.reduce((sum, f) => sum + f.resumed, 0);
    const restarted = followers.reduce((sum, f) => sum + f.restarts.length, 0);
    expect(resumed + restarted).toBe(drops);
    expect(resumed).toBeGreaterThan(restarted);
    // They resumed with messages missed, not only with nothing to catch up.
    expect(followers.reduce((sum, f) => sum + f.replayed, 0)).toBeGreaterThan(0);
  }, 300_000);
});
