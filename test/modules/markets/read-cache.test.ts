import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_READ_TTL_MS } from '../../../src/modules/markets/read-cache.js';
import {
  closeTwoInstances,
  createTestApp,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';

// Two instances on one database, as in production behind a load balancer.
let db: TestDatabase;
let a: TestApp;
let b: TestApp;
let admin: TestUser;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances());
  admin = await newAdmin(a.app);
});
afterAll(async () => {
  await expectInvariants(db.database);
  await closeTwoInstances({ db, a, b });
});

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}x${Date.now().toString(36)}`;

const get = (t: TestApp, url: string) => t.app.inject({ url });
const json = async (t: TestApp, url: string) => (await get(t, url)).json();

/** Polls until `check` holds; fails after `withinMs`. Returns how long it took. */
async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`not seen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The resting user orders at a YES bid price of an option's book. */
const bidOrders = (book: { yes: { bids: { priceCents: number; orders: number }[] } }, price: number) =>
  book.yes.bids.find((level) => level.priceCents === price)?.orders ?? 0;

describe('the read cache of the public market reads', () => {
  it('serves a repeated read from memory, byte for byte, for at most its time to live', async () => {
    const category = unique('cached');
    const market = await createMarket(a.app, admin.token, {
      category,
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const list = `/api/events?category=${category}`;
    const urls = [list, `/api/events/${market.slug}?range=1w`, `/api/events/by-slug/${market.slug}`];
    const first = await Promise.all(urls.map((url) => get(a, url)));

    // Changes made behind the service's back announce nothing: the cached answers stand...
    await insertEvent(db.database, { category });
    await db.database.db
      .updateTable('events')
      .set({ title: 'Renamed behind the cache' })
      .where('id', '=', Number(market.id))
      .execute();
    const second = await Promise.all(urls.map((url) => get(a, url)));
    for (const [index, response] of second.entries()) {
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['content-type']).toBe(first[index]?.headers['content-type']);
      expect(response.body).toBe(first[index]?.body);
    }
    expect(second[0]?.json().data).toHaveLength(1);

    // ...until their time to live runs out.
    await eventually(async () => (await json(a, list)).data.length === 2, MARKET_READ_TTL_MS + 3000);
    const lookup = `/api/events/by-slug/${market.slug}`;
    await eventually(async () => (await json(a, lookup)).title === 'Renamed behind the cache', 1000);
  });

  it('shows an admin change at once on the instance that made it, and within moments on another', async () => {
    const category = unique('admin');
    const slug = unique('cache-admin-');
    const lookup = `/api/events/by-slug/${slug}`;
    // A miss is not remembered: the event exists the moment it is created.
    expect((await get(a, lookup)).statusCode).toBe(404);
    expect((await get(b, lookup)).statusCode).toBe(404);
    const created = await a.app.inject({
      method: 'POST',
      url: '/api/admin/events',
      headers: bearer(admin.token),
      payload: {
        slug,
        title: 'Will the cache keep up?',
        category,
        closesAt: new Date(Date.now() + 86_400_000).toISOString(),
        options: [{ label: 'Yes', liquidityCents: 5_000 }],
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const optionId = created.json().options[0].id as string;
    expect((await get(a, lookup)).statusCode).toBe(404); // a draft is not public
    expect((await get(a, `/api/orderbook/${optionId}`)).statusCode).toBe(404);

    const open = await a.app.inject({
      method: 'POST',
      url: `/api/admin/events/${id}/open`,
      headers: bearer(admin.token),
    });
    expect(open.statusCode).toBe(200);
    expect((await json(a, lookup)).status).toBe('open');
    expect((await get(a, `/api/orderbook/${optionId}`)).statusCode).toBe(200);
    await eventually(async () => (await get(b, lookup)).statusCode === 200, 1500);

    // Both instances now hold the list, the detail and the lookup.
    const urls = [`/api/events?category=${category}`, `/api/events/${slug}`, lookup];
    for (const t of [a, b]) for (const url of urls) await get(t, url);
    const cachedAt = Date.now();
    const patch = await a.app.inject({
      method: 'PATCH',
      url: `/api/admin/events/${id}`,
      headers: bearer(admin.token),
      payload: { title: 'Renamed by an operator', featured: true },
    });
    expect(patch.statusCode).toBe(200);
    expect((await json(a, urls[0]!)).data[0].title).toBe('Renamed by an operator');
    expect((await json(a, urls[1]!)).featured).toBe(true);
    expect((await json(a, urls[2]!)).title).toBe('Renamed by an operator');
    for (const url of urls) {
      await eventually(async () => (await get(b, url)).body.includes('Renamed by an operator'), 1500);
    }
    // Seen before the time to live could have dropped the old answers: the notification did it.
    expect(Date.now() - cachedAt).toBeLessThan(MARKET_READ_TTL_MS);

    // The other way round: closed on b, seen on a.
    for (const url of urls) await get(a, url);
    const closed = await b.app.inject({
      method: 'POST',
      url: `/api/admin/events/${id}/close`,
      headers: bearer(admin.token),
    });
    expect(closed.statusCode).toBe(200);
    expect((await json(b, lookup)).status).toBe('closed');
    await eventually(async () => (await json(a, lookup)).status === 'closed', 1500);
    expect((await json(a, urls[1]!)).status).toBe('closed');
  });

  it('shows a trade on the next read: the order book, the event and the list, on both instances', async () => {
    const category = unique('trade');
    const market = await createMarket(a.app, admin.token, {
      category,
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    const optionId = market.options[0]!.id;
    const book = `/api/orderbook/${optionId}`;
    const detail = `/api/events/${market.slug}`;
    const list = `/api/events?category=${category}`;
    const trader = await newUser(a.app);
    for (const t of [a, b]) for (const url of [book, detail, list]) await get(t, url);
    expect(bidOrders(await json(a, book), 30)).toBe(0);

    // A resting bid: the instance that took it shows it on the very next read, the other one within moments.
    const cachedAt = Date.now();
    const order = await limitOrder(a.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 30,
    });
    expect(order.statusCode).toBe(201);
    expect(bidOrders(await json(a, book), 30)).toBe(1);
    await eventually(async () => bidOrders(await json(b, book), 30) === 1, 1500);
    expect(Date.now() - cachedAt).toBeLessThan(MARKET_READ_TTL_MS);

    // A trade on b moves the prices and the volume shown by both.
    const trade = await marketTrade(b.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 20,
      price: 99,
    });
    expect(trade.statusCode).toBe(201);
    expect((await json(b, list)).data[0].options[0].volumeShares).toBe(20);
    expect((await json(b, detail)).options[0].lastYesPriceCents).not.toBeNull();
    await eventually(async () => (await json(a, list)).data[0].options[0].volumeShares === 20, 1500);
    await eventually(async () => (await json(a, detail)).options[0].lastYesPriceCents !== null, 1500);

    // A cancel is a change to the book too.
    const cancel = await b.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${order.json().id}`,
      headers: bearer(trader.token),
    });
    expect(cancel.statusCode).toBe(200);
    expect(bidOrders(await json(b, book), 30)).toBe(0);
    await eventually(async () => bidOrders(await json(a, book), 30) === 0, 1500);
  });

  it('gives read-your-writes on an instance that hears no notifications at all', async () => {
    // A third instance whose listening connections never deliver anything.
    const deaf: TestDatabase = {
      database: { ...db.database, listen: async () => async () => {} },
      url: db.url,
      drop: async () => {},
    };
    const c = await createTestApp({ database: deaf, env: {} });
    try {
      const market = await createMarket(c.app, admin.token, {
        options: [{ label: 'Yes', liquidityCents: 10_000 }],
      });
      const optionId = market.options[0]!.id;
      const book = `/api/orderbook/${optionId}`;
      const trader = await newUser(c.app);
      expect(bidOrders(await json(c, book), 20)).toBe(0);
      for (let i = 1; i <= 3; i++) {
        const order = await limitOrder(c.app, trader.token, {
          optionId,
          side: 'YES',
          action: 'BUY',
          quantity: 5,
          price: 20,
        });
        expect(order.statusCode).toBe(201);
        expect(bidOrders(await json(c, book), 20)).toBe(i);
      }
      expect((await json(c, `/api/events/${market.slug}`)).title).not.toBe('Renamed here');
      await c.app.inject({
        method: 'PATCH',
        url: `/api/admin/events/${market.id}`,
        headers: bearer(admin.token),
        payload: { title: 'Renamed here' },
      });
      expect((await json(c, `/api/events/${market.slug}`)).title).toBe('Renamed here');
    } finally {
      await c.close();
    }
  });
});
