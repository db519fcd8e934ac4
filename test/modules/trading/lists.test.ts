import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser } from '../../support/factories.js';

describe('your trade history and order lists', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('name each trade’s and order’s market by its title, not only the option', async () => {
    const admin = await newAdmin(t.app);
    const title = 'India vs England, 2nd Test: who wins?';
    const market = await createMarket(t.app, admin.token, { title, options: [{ label: 'India' }] });
    const optionId = market.options[0]!.id;
    const [maker, taker] = await Promise.all([newUser(t.app), newUser(t.app)]);
    await limitOrder(t.app, maker.token, { optionId, side: 'NO', action: 'BUY', quantity: 5, price: 40 });
    await limitOrder(t.app, maker.token, { optionId, side: 'NO', action: 'BUY', quantity: 5, price: 30 });
    await marketTrade(t.app, taker.token, { optionId, side: 'YES', action: 'BUY', quantity: 5, price: 60 });

    const list = async (url: string) =>
      (await t.app.inject({ url, headers: bearer(maker.token) })).json().data as Record<string, unknown>[];
    expect(await list('/api/trades')).toMatchObject([
      { eventTitle: title, optionLabel: 'India', quantity: 5 },
    ]);
    expect(await list('/api/limit-orders?status=open')).toMatchObject([
      { eventTitle: title, optionLabel: 'India', priceCents: 30 },
    ]);
    expect(await list('/api/limit-orders?status=history')).toMatchObject([
      { eventTitle: title, status: 'filled' },
    ]);
  });

  it('page a maker’s history through its newer resting orders, market orders left out, by event too', async () => {
    const admin = await newAdmin(t.app);
    const [first, second] = await Promise.all([
      createMarket(t.app, admin.token),
      createMarket(t.app, admin.token),
    ]);
    const [a, b] = [first.options[0]!.id, second.options[0]!.id];
    const [maker, taker] = await Promise.all([newUser(t.app), newUser(t.app)]);
    const place = async (optionId: string, price: number) =>
      (
        await limitOrder(t.app, maker.token, { optionId, side: 'YES', action: 'BUY', quantity: 1, price })
      ).json().id as string;
    const filled = await place(a, 60);
    await marketTrade(t.app, taker.token, { optionId: a, side: 'NO', action: 'BUY', quantity: 1, price: 45 });
    const cancelled = [await place(a, 20), await place(b, 21)];
    for (const id of cancelled) {
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/api/limit-orders/${id}`,
        headers: bearer(maker.token),
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await marketTrade(t.app, maker.token, {
      optionId: b,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 90,
    });
    const resting = [await place(a, 10), await place(b, 11), await place(b, 12)];

    const pages = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await t.app.inject({
          url: `/api/limit-orders?${query}&limit=1${after}`,
          headers: bearer(maker.token),
        });
        expect(res.statusCode, res.body).toBe(200);
        ids.push(...res.json().data.map((order: { id: string }) => order.id));
        cursor = res.json().nextCursor;
      } while (cursor);
      return ids;
    };
    expect(await pages('status=history')).toEqual([cancelled[1], cancelled[0], filled]);
    expect(await pages(`status=history&eventSlug=${first.slug}`)).toEqual([cancelled[0], filled]);
    expect(await pages('status=open')).toEqual([...resting].reverse());
    expect(await pages(`status=open&eventSlug=${second.slug}`)).toEqual([resting[2], resting[1]]);
  });
});
