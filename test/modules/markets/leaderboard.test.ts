import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser } from '../../support/factories.js';
import { expectTraderTotalsKept } from '../../support/totals.js';

describe('GET /api/leaderboard', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('ranks every trader with a realized result by profit, a loss included, and leaves suspended ones out', async () => {
    const admin = await newAdmin(t.app);
    const market = await createMarket(t.app, admin.token, { options: [{ label: 'Board' }] });
    const optionId = market.options[0]!.id;
    const [seller, buyer, holder, suspended] = await Promise.all([
      newUser(t.app),
      newUser(t.app),
      newUser(t.app),
      newUser(t.app),
    ]);
    const order = (token: string, action: 'BUY' | 'SELL', side: 'YES' | 'NO', price: number) =>
      limitOrder(t.app, token, { optionId, side, action, quantity: 10, price });
    // The seller buys 10 YES at 60 (minted against the buyer's NO at 40) and sells them back at 50: a loss of 100.
    await order(buyer.token, 'BUY', 'NO', 40);
    await marketTrade(t.app, seller.token, { optionId, side: 'YES', action: 'BUY', quantity: 10, price: 60 });
    await order(holder.token, 'BUY', 'YES', 50);
    await marketTrade(t.app, seller.token, {
      optionId,
      side: 'YES',
      action: 'SELL',
      quantity: 10,
      price: 50,
    });
    await order(buyer.token, 'BUY', 'NO', 30);
    await marketTrade(t.app, suspended.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 70,
    });

    const before = (await t.app.inject({ url: '/api/leaderboard' })).json();
    expect(before.profit).toEqual([{ rank: 1, userId: seller.id, username: seller.username, value: -100 }]);
    expect(before.volume.map((row: { userId: string }) => row.userId)).toContain(suspended.id);

    const report = await t.app.inject({
      method: 'POST',
      url: '/api/reports',
      headers: bearer(holder.token),
      payload: { targetType: 'USER', targetId: suspended.id, reason: 'Spam' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/reports/${report.json().id}/resolve`,
      headers: bearer(admin.token),
      payload: { action: 'suspend' },
    });
    const after = (await t.app.inject({ url: '/api/leaderboard' })).json();
    expect(after.volume.map((row: { userId: string }) => row.userId)).not.toContain(suspended.id);
    expect(after.volume.map((row: { userId: string }) => row.userId)).toEqual(
      expect.arrayContaining([seller.id, buyer.id, holder.id]),
    );
    await expectTraderTotalsKept(t.database);
  });
});
