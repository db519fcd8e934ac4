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
});
