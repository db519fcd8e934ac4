import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { webhookViolations } from '../../support/contract.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { type Receiver, startReceiver, verifyWebhook } from '../../support/webhook-receiver.js';

let t: TestApp;
let admin: TestUser;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

interface Notice {
  type: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
}

async function feedOf(user: TestUser, type?: string): Promise<Notice[]> {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) });
  const data = res.json().data as Notice[];
  return type ? data.filter((n) => n.type === type) : data;
}

let markets = 0;
async function market(title = `Test market ${++markets}`) {
  return (await createMarket(t.app, admin.token, { title, options: [{ label: 'India' }] })).options[0]!.id;
}

function order(user: TestUser, optionId: string, side: 'YES' | 'NO', quantity: number, price: number) {
  return limitOrder(t.app, user.token, { optionId, side, action: 'BUY', quantity, price });
}

describe('fills', () => {
  it('tells the taker once per order (its fills aggregated) and each maker once, in words', async () => {
    const optionId = await market('India vs Australia');
    const [makerA, makerB, taker] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const restingA = await order(makerA, optionId, 'NO', 4, 48);
    const restingB = await order(makerB, optionId, 'NO', 6, 47);
    const take = await order(taker, optionId, 'YES', 10, 55);
    expect(take.json().trades).toHaveLength(2);

    const takerFills = await feedOf(taker, 'order.filled');
    expect(takerFills).toHaveLength(1);
    expect(takerFills[0]).toMatchObject({
      title: 'Order filled',
      body: 'Your order to buy 10 YES of India vs Australia (India) at 55¢ filled 10 at 52.6¢.',
      data: {
        orderId: take.json().id,
        filledQuantity: 10,
        notionalCents: 526,
        averagePriceCents: 53,
        status: 'filled',
      },
    });
    expect((await feedOf(makerA, 'order.filled'))[0]!.body).toBe(
      'Your order to buy 4 NO of India vs Australia (India) at 48¢ filled 4 at 48¢.',
    );
    expect((await feedOf(makerB, 'order.filled'))[0]!.body).toBe(
      'Your order to buy 6 NO of India vs Australia (India) at 47¢ filled 6 at 47¢.',
    );
    // Written in one statement with the taker's: each item keeps its own data.
    expect((await feedOf(makerA, 'order.filled'))[0]!.data).toMatchObject({
      orderId: restingA.json().id,
      filledQuantity: 4,
    });
    expect((await feedOf(makerB, 'order.filled'))[0]!.data).toMatchObject({
      orderId: restingB.json().id,
      filledQuantity: 6,
    });
  });

  it('says what is left: still open on the book, or cancelled for a market trade', async () => {
    const optionId = await market('Rate cut in March');
    const [maker, limitTaker, marketTaker] = [
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
    ];
    await order(maker, optionId, 'NO', 10, 40);
    await order(limitTaker, optionId, 'YES', 4, 60);
    expect((await feedOf(maker, 'order.filled'))[0]).toMatchObject({
      title: 'Order partly filled',
      body: 'Your order to buy 10 NO of Rate cut in March (India) at 40¢ filled 4 at 40¢; 6 still open.',
    });
    const res = await marketTrade(t.app, marketTaker.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 60,
    });
    expect(res.json()).toMatchObject({ status: 'cancelled', filledQuantity: 6 });
    expect((await feedOf(marketTaker, 'order.filled'))[0]).toMatchObject({
      title: 'Order partly filled',
      body:
        'Your order to buy 10 YES of Rate cut in March (India) at up to 60¢ filled 6 at 60¢; the other 4 found no match ' +
        'at your price and were cancelled.',
    });
    const makerNotices = await feedOf(maker, 'order.filled');
    expect(makerNotices).toHaveLength(2);
    expect(makerNotices[0]!.body).toBe(
      'Your order to buy 10 NO of Rate cut in March (India) at 40¢ filled 6 at 40¢; all 10 are now filled.',
    );
  });
});

describe('cancellations and expiries', () => {
  it('covers a user cancel, self-trade prevention, market close and expiry', async () => {
    const optionId = await market('India vs England');
    const user = await newUser(t.app);
    const mine = await order(user, optionId, 'YES', 3, 20);
    await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${mine.json().id}`,
      headers: bearer(user.token),
    });

    const resting = await order(user, optionId, 'NO', 5, 50);
    const crossing = await order(user, optionId, 'YES', 5, 55);
    expect(crossing.json().selfTradeCancelledOrderIds).toEqual([resting.json().id]);

    const expiring = await limitOrder(t.app, user.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 2,
      price: 30,
      expiresInHours: 1,
    });
    await t.database.db
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', Number(expiring.json().id))
      .execute();
    expect(await t.app.jobs.runNow('expire-orders')).toBe(1);

    const eventId = (
      await t.database.db
        .selectFrom('options')
        .select('event_id')
        .where('id', '=', Number(optionId))
        .executeTakeFirstOrThrow()
    ).event_id;
    const close = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${eventId}/close`,
      headers: bearer(admin.token),
    });
    expect(close.statusCode).toBe(200);

    const cancelled = (await feedOf(user, 'order.cancelled')).reverse();
    expect(cancelled.map((n) => n.body)).toEqual([
      'Your order to buy 3 YES of India vs England (India) at 20¢ was cancelled: you cancelled it.',
      'Your order to buy 5 NO of India vs England (India) at 50¢ was cancelled: your own new order on the other ' +
        'side would have traded with it (self-trade prevention).',
      'Your order to buy 5 YES of India vs England (India) at 55¢ was cancelled: the market closed.',
    ]);
    expect(cancelled.map((n) => n.data.reason)).toEqual([
      'cancelled_by_user',
      'self_trade_prevented',
      'market_closed',
    ]);
    expect(cancelled[2]!.title).toBe('Order cancelled: market closed');
    const [expired] = await feedOf(user, 'order.expired');
    expect(expired).toMatchObject({
      title: 'Order expired',
      body: 'Your order to buy 2 YES of India vs England (India) at 30¢ expired with 2 unfilled.',
      data: { orderId: expiring.json().id, reason: 'expired' },
    });
    await expectInvariants(t.database);
  });

  it('sends the same events to webhooks, typed', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const optionId = await market();
    const user = await newUser(t.app);
    const sub = (
      await t.app.inject({
        method: 'POST',
        url: '/api/me/webhooks',
        headers: bearer(user.token),
        payload: { url: r.url, events: ['order.cancelled', 'order.expired'] },
      })
    ).json();
    const mine = await order(user, optionId, 'YES', 3, 20);
    await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${mine.json().id}`,
      headers: bearer(user.token),
    });
    const expiring = await limitOrder(t.app, user.token, {
      optionId,
      side: 'NO',
      action: 'BUY',
      quantity: 2,
      price: 30,
      expiresInHours: 5,
    });
    await t.database.db
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', Number(expiring.json().id))
      .execute();
    await t.app.jobs.runNow('expire-orders');
    await t.app.jobs.runNow('webhooks.deliver');

    expect(r.received.map((w) => w.json.type).sort()).toEqual(['order.cancelled', 'order.expired']);
    for (const w of r.received) expect(verifyWebhook(sub.secret, w.headers, w.body)).toBe(true);
    expect(r.received.flatMap((w) => webhookViolations(t.app, w.body))).toEqual([]);
    const expired = r.received.find((w) => w.json.type === 'order.expired')!.json.data;
    expect(expired).toMatchObject({
      order: { id: expiring.json().id, side: 'NO', status: 'expired', remainingQuantity: 2 },
      reason: 'expired',
    });
  });
});

describe('preferences', () => {
  it('a user who turned trade notifications off gets no feed item, but their webhooks still fire', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const optionId = await market();
    const [quiet, maker] = [await newUser(t.app), await newUser(t.app)];
    const prefs = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: bearer(quiet.token),
      payload: { notifications: { trades: false } },
    });
    expect(prefs.statusCode).toBe(200);
    await t.app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(quiet.token),
      payload: { url: r.url, events: ['order.filled'] },
    });
    await order(maker, optionId, 'NO', 5, 45);
    await order(quiet, optionId, 'YES', 5, 55);
    expect(await feedOf(quiet, 'order.filled')).toEqual([]);
    expect(await feedOf(maker, 'order.filled')).toHaveLength(1);
    await t.app.jobs.runNow('webhooks.deliver');
    expect(r.received.map((w) => w.json.type)).toEqual(['order.filled']);
  });
});
