import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants } from '../../support/app.js';
import { webhookViolations } from '../../support/contract.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { type Receiver, startReceiver, verifyWebhook } from '../../support/webhook-receiver.js';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: TestUser;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_TIMEOUT_MS: '300' } });
  admin = await newAdmin(t.app);
});
afterEach(async () => {
  const closing = receivers.splice(0);
  await Promise.all(closing.map((r) => r.close()));
  // Every delivery, of every test, is what the document's `webhooks` section says it is.
  const bodies = closing.flatMap((r) => r.received.map((w) => w.body));
  expect(bodies.flatMap((body) => webhookViolations(t.app, body))).toEqual([]);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function subscribe(user: TestUser, url: string, events?: string[]) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/me/webhooks',
    headers: bearer(user.token),
    payload: { url, ...(events ? { events } : {}), description: 'test receiver' },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; secret: string; url: string; events: string[] | null };
}

function deliver() {
  return t.app.jobs.runNow('webhooks.deliver');
}

/** Moves a subscription's pending deliveries to "due now", as if their back-off had passed. */
async function backOffPasses(subscriptionId: string) {
  await t.database.db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: new Date(Date.now() - 1000) })
    .where('subscription_id', '=', Number(subscriptionId))
    .where('status', '=', 'pending')
    .execute();
}

async function deliveriesOf(user: TestUser, subscriptionId: string) {
  const res = await t.app.inject({
    url: `/api/me/webhooks/${subscriptionId}/deliveries`,
    headers: bearer(user.token),
  });
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

/** One cancelled limit order: exactly one order.cancelled event for its owner. */
async function cancelOneOrder(user: TestUser) {
  const market = await createMarket(t.app, admin.token);
  const order = await limitOrder(t.app, user.token, {
    optionId: market.options[0]!.id,
    side: 'YES',
    action: 'BUY',
    quantity: 2,
    price: 30,
  });
  const cancel = await t.app.inject({
    method: 'DELETE',
    url: `/api/limit-orders/${order.json().id}`,
    headers: bearer(user.token),
  });
  expect(cancel.statusCode).toBe(200);
  return order.json().id as string;
}

describe('signed deliveries to a real receiver', () => {
  it('delivers each trading event once, signed with the documented algorithm', async () => {
    const r = await receiver();
    const user = await newUser(t.app);
    const sub = await subscribe(user, r.url);
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(sub.secret.slice(6), 'base64')).toHaveLength(32);
    expect(sub.events).toBeNull();

    const market = await createMarket(t.app, admin.token, {
      title: 'India vs Australia',
      options: [{ label: 'India', liquidityCents: 20_000 }],
    });
    const trade = await marketTrade(t.app, user.token, {
      optionId: market.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 30,
      price: 99,
    });
    expect(trade.statusCode).toBe(201);
    const placed = trade.json();
    expect(r.received).toHaveLength(0); // nothing is sent from inside the order's transaction

    await deliver();
    const types = r.received.map((w) => w.json.type);
    expect(types.filter((type) => type === 'order.filled')).toHaveLength(1);
    expect(types.filter((type) => type === 'trade.executed')).toHaveLength(placed.trades.length);
    expect(types.every((type) => type === 'order.filled' || type === 'trade.executed')).toBe(true);
    for (const w of r.received) {
      expect(verifyWebhook(sub.secret, w.headers, w.body)).toBe(true);
      expect(verifyWebhook(sub.secret, w.headers, w.body.replace('"data"', '"data" '))).toBe(false);
      expect(w.headers['webhook-id']).toBe(w.json.id);
      expect(w.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(w.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(Object.keys(w.json).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
    }
    const filled = r.received.find((w) => w.json.type === 'order.filled')!.json.data;
    expect(filled).toMatchObject({
      order: {
        id: placed.id,
        kind: 'market',
        side: 'YES',
        action: 'BUY',
        filledQuantity: 30,
        status: 'filled',
      },
      liquidity: 'taker',
      filledQuantity: 30,
      averagePriceCents: placed.averagePriceCents,
    });
    const executions = r.received.filter((w) => w.json.type === 'trade.executed').map((w) => w.json.data);
    expect(executions.map((e) => e.id).sort()).toEqual(placed.trades.map((p: { id: string }) => p.id).sort());

    const deliveries = await deliveriesOf(user, sub.id);
    expect(deliveries).toHaveLength(r.received.length);
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null });
      expect(d.attempts).toEqual([
        {
          attemptedAt: expect.any(String),
          statusCode: 200,
          error: null,
          durationMs: expect.any(Number),
          nextAttemptAt: null,
        },
      ]);
    }
    await deliver();
    expect(r.received).toHaveLength(deliveries.length);
  });

  it('delivers only the chosen types; other feed items come as notification.created, resolutions typed', async () => {
    const r = await receiver();
    const [user, fan] = [await newUser(t.app), await newUser(t.app)];
    const sub = await subscribe(user, r.url, ['market.resolved', 'notification.created']);
    expect(sub.events).toEqual(['market.resolved', 'notification.created']);

    expect(
      (await t.app.inject({ method: 'POST', url: `/api/follow/${user.id}`, headers: bearer(fan.token) }))
        .statusCode,
    ).toBe(201);
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Rain', liquidityCents: 10_000 }],
    });
    const optionId = market.options[0]!.id;
    await marketTrade(t.app, user.token, { optionId, side: 'NO', action: 'BUY', quantity: 5, price: 99 });
    const resolve = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${market.id}/resolve`,
      headers: bearer(admin.token),
      payload: { outcomes: [{ optionId, outcome: 'NO' }] },
    });
    expect(resolve.statusCode).toBe(200);

    await deliver();
    const ofType = (type: string) => r.received.filter((w) => w.json.type === type);
    expect(new Set(r.received.map((w) => w.json.type))).toEqual(
      new Set(['market.resolved', 'notification.created']),
    );
    expect(ofType('notification.created')).toHaveLength(1);
    expect(ofType('notification.created')[0]!.json.data).toMatchObject({
      type: 'social.follow',
      title: expect.any(String),
    });
    expect(ofType('market.resolved')[0]!.json.data).toMatchObject({
      eventId: market.id,
      optionId,
      outcome: 'NO',
      body: expect.stringContaining('resolved NO'),
    });
    for (const w of r.received) expect(verifyWebhook(sub.secret, w.headers, w.body)).toBe(true);
    await expectInvariants(t.database);
  });
});

describe('every event type as the document describes it', () => {
  it('delivers a protection that sold and a settlement that paid, with the documented data', async () => {
    const r = await receiver();
    const market = await createMarket(t.app, admin.token);
    const optionId = market.options[0]!.id;
    const [holder, seller, bidder] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    await subscribe(holder, r.url, ['position.protection_triggered']);
    await subscribe(bidder, r.url, ['market.settled']);
    const order = (user: TestUser, side: 'YES' | 'NO', quantity: number, price: number) =>
      limitOrder(t.app, user.token, { optionId, side, action: 'BUY', quantity, price });

    await order(seller, 'NO', 10, 40);
    expect((await order(holder, 'YES', 10, 60)).json().status).toBe('filled');
    const positions = await t.app.inject({ url: '/api/positions', headers: bearer(holder.token) });
    const positionId = positions.json().data[0].id as string;
    const protect = await t.app.inject({
      method: 'POST',
      url: `/api/positions/${positionId}/protections`,
      headers: bearer(holder.token),
      payload: { stopLossProbBps: 5000 },
    });
    expect(protect.statusCode).toBe(200);
    await order(bidder, 'YES', 10, 45);
    // A trade at 50¢ crosses the stop-loss: the holder's 10 shares go to the bidder at 45¢.
    const [maker, taker] = [await newUser(t.app), await newUser(t.app)];
    await order(maker, 'YES', 1, 50);
    expect((await order(taker, 'NO', 1, 50)).json().status).toBe('filled');

    for (const step of ['close', 'resolve', 'settle'] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/admin/events/${market.id}/${step}`,
        headers: bearer(admin.token),
        ...(step === 'resolve' ? { payload: { outcomes: [{ optionId, outcome: 'YES' }] } } : {}),
      });
      expect(res.statusCode, step).toBe(200);
    }
    await deliver();

    const ofType = (type: string) => r.received.filter((w) => w.json.type === type).map((w) => w.json.data);
    expect(ofType('position.protection_triggered')).toEqual([
      expect.objectContaining({
        positionId,
        trigger: 'stop_loss',
        outcome: 'sold',
        soldQuantity: 10,
        averagePriceCents: 45,
      }),
    ]);
    expect(ofType('market.settled')).toEqual([
      expect.objectContaining({ eventId: market.id, payoutCents: 1_000, pnlCents: 1_000 - 450 }),
    ]);
  });
});

describe('retries', () => {
  it('a receiver that fails three times then succeeds gets the event exactly once more', async () => {
    const r = await receiver((n) => ({ status: n < 3 ? 500 : 204 }));
    const user = await newUser(t.app);
    const sub = await subscribe(user, r.url, ['order.cancelled']);
    const orderId = await cancelOneOrder(user);

    await deliver();
    expect(r.received).toHaveLength(1);
    let [delivery] = await deliveriesOf(user, sub.id);
    expect(delivery).toMatchObject({ type: 'order.cancelled', status: 'pending', attemptCount: 1 });
    const wait = Date.parse(delivery.nextAttemptAt) - Date.now();
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
    await deliver();
    expect(r.received).toHaveLength(1); // not due yet

    for (let attempt = 2; attempt <= 4; attempt++) {
      await backOffPasses(sub.id);
      await deliver();
      expect(r.received).toHaveLength(attempt);
    }
    [delivery] = await deliveriesOf(user, sub.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 4, nextAttemptAt: null });
    expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 500, 204]);
    expect(delivery.attempts.map((a: { error: string | null }) => a.error)).toEqual([
      'HTTP 500',
      'HTTP 500',
      'HTTP 500',
      null,
    ]);
    // Back-off grows: 30 s, 2 min, 10 min after the three failures.
    const gaps = delivery.attempts
      .slice(0, 3)
      .map(
        (a: { attemptedAt: string; nextAttemptAt: string }) =>
          Date.parse(a.nextAttemptAt) - Date.parse(a.attemptedAt),
      );
    expect(gaps[0]).toBeGreaterThan(29_000);
    expect(gaps[1]).toBeGreaterThan(119_000);
    expect(gaps[2]).toBeGreaterThan(599_000);

    // The same event each time (one id to deduplicate on), validly signed; nothing more once delivered.
    expect(new Set(r.received.map((w) => w.headers['webhook-id'])).size).toBe(1);
    expect(r.received.every((w) => verifyWebhook(sub.secret, w.headers, w.body))).toBe(true);
    expect(r.received[3]!.json.data).toMatchObject({
      order: { id: orderId, status: 'cancelled' },
      reason: 'cancelled_by_user',
    });
    await backOffPasses(sub.id);
    await deliver();
    expect(r.received).toHaveLength(4);
  });

  it('a receiver that never answers ends failed after about a day of attempts, all listed', async () => {
    const r = await receiver(() => 'hang');
    const user = await newUser(t.app);
    const sub = await subscribe(user, r.url, ['order.cancelled']);
    await cancelOneOrder(user);

    await deliver();
    for (let attempt = 2; attempt <= 10; attempt++) {
      await backOffPasses(sub.id);
      await deliver();
    }
    await backOffPasses(sub.id);
    await deliver();
    expect(r.received).toHaveLength(10);
    const [delivery] = await deliveriesOf(user, sub.id);
    expect(delivery).toMatchObject({
      status: 'failed',
      attemptCount: 10,
      nextAttemptAt: null,
      completedAt: expect.any(String),
    });
    expect(delivery.attempts).toHaveLength(10);
    for (const a of delivery.attempts) {
      expect(a).toMatchObject({ statusCode: null, error: 'no answer within 300 ms' });
      expect(a.durationMs).toBeGreaterThanOrEqual(290);
    }
    expect(
      delivery.attempts.slice(0, 9).every((a: { nextAttemptAt: string | null }) => a.nextAttemptAt !== null),
    ).toBe(true);
    expect(delivery.attempts[9].nextAttemptAt).toBeNull();
    // The schedule adds up to about a day.
    const scheduled = delivery.attempts
      .slice(0, 9)
      .reduce(
        (sum: number, a: { attemptedAt: string; nextAttemptAt: string }) =>
          sum + Date.parse(a.nextAttemptAt) - Date.parse(a.attemptedAt),
        0,
      );
    expect(scheduled / 3_600_000).toBeGreaterThan(20);
    expect(scheduled / 3_600_000).toBeLessThan(26);

    // The operators see the same delivery, with its owner and URL, under every user's failed deliveries.
    const failed = await t.app.inject({
      url: '/api/admin/webhook-deliveries?status=failed',
      headers: bearer(admin.token),
    });
    expect(failed.statusCode).toBe(200);
    const listed = failed.json().data.find((d: { id: string }) => d.id === delivery.id);
    expect(listed).toEqual({
      ...delivery,
      subscriptionId: sub.id,
      url: r.url,
      owner: { id: user.id, username: user.username },
    });
    const succeeded = await t.app.inject({
      url: '/api/admin/webhook-deliveries?status=succeeded',
      headers: bearer(admin.token),
    });
    expect(succeeded.json().data.map((d: { id: string }) => d.id)).not.toContain(delivery.id);
    const asTrader = await t.app.inject({
      url: '/api/admin/webhook-deliveries',
      headers: bearer(user.token),
    });
    expect(asTrader.statusCode).toBe(403);
  });

  it('never follows a redirect (here to a private address): the attempt fails and nothing reaches the target', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 302, headers: { location: 'http://10.0.0.1/hooks' } }));
    const bounce = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const user = await newUser(t.app);
    const viaPrivate = await subscribe(user, r.url, ['order.cancelled']);
    const viaLocal = await subscribe(user, bounce.url, ['order.cancelled']);
    await cancelOneOrder(user);
    await deliver();
    expect(r.received).toHaveLength(1);
    expect(bounce.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const [first] = await deliveriesOf(user, viaPrivate.id);
    expect(first).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(first.attempts[0]).toMatchObject({
      statusCode: 302,
      error: 'redirect to http://10.0.0.1/hooks not followed',
    });
    const [second] = await deliveriesOf(user, viaLocal.id);
    expect(second.attempts[0]).toMatchObject({
      statusCode: 307,
      error: `redirect to ${target.url} not followed`,
    });
  });
});

describe('subscriptions', () => {
  it('lists without the secret, allows at most 10, deletes', async () => {
    const user = await newUser(t.app);
    const created = [];
    for (let i = 0; i < 10; i++) created.push(await subscribe(user, `http://127.0.0.1:9/hook-${i}`));
    const eleventh = await t.app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(user.token),
      payload: { url: 'http://127.0.0.1:9/one-too-many' },
    });
    expect(eleventh.statusCode).toBe(409);
    expect(eleventh.json().code).toBe('WEBHOOK_LIMIT_REACHED');

    const list = (await t.app.inject({ url: '/api/me/webhooks', headers: bearer(user.token) })).json();
    expect(list.data).toHaveLength(10);
    expect(list.data[0]).toEqual({
      id: created[0]!.id,
      url: 'http://127.0.0.1:9/hook-0',
      description: 'test receiver',
      events: null,
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(list)).not.toContain('whsec_');

    const stranger = await newUser(t.app);
    const del = (u: TestUser, id: string) =>
      t.app.inject({ method: 'DELETE', url: `/api/me/webhooks/${id}`, headers: bearer(u.token) });
    expect((await del(stranger, created[0]!.id)).statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          url: `/api/me/webhooks/${created[0]!.id}/deliveries`,
          headers: bearer(stranger.token),
        })
      ).statusCode,
    ).toBe(404);
    expect((await del(user, created[0]!.id)).statusCode).toBe(204);
    expect((await del(user, created[0]!.id)).statusCode).toBe(404);
    expect(
      (await t.app.inject({ url: '/api/me/webhooks', headers: bearer(user.token) })).json().data,
    ).toHaveLength(9);
    expect((await subscribe(user, 'http://127.0.0.1:9/room-again')).id).toBeTruthy();
  });

  it.each([
    [{ url: 'ftp://example.com/hook' }, 'body.url'],
    [{ url: 'not a url' }, 'body.url'],
    [{ url: 'http://user:pass@127.0.0.1/hook' }, 'body.url'],
    [{ url: 'http://127.0.0.1/hook', events: ['order.exploded'] }, 'body.events.0'],
    [{ url: 'http://127.0.0.1/hook', secret: 'mine' }, 'body.secret'],
    [{}, 'body.url'],
  ])('400 for %j', async (payload, field) => {
    const user = await newUser(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(user.token),
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('401 without a key', async () => {
    expect((await t.app.inject({ url: '/api/me/webhooks' })).statusCode).toBe(401);
  });

  it('deleting a subscription stops its pending deliveries', async () => {
    const r = await receiver(() => ({ status: 503 }));
    const user = await newUser(t.app);
    const sub = await subscribe(user, r.url, ['order.cancelled']);
    await cancelOneOrder(user);
    await deliver();
    expect(r.received).toHaveLength(1);
    await t.app.inject({ method: 'DELETE', url: `/api/me/webhooks/${sub.id}`, headers: bearer(user.token) });
    const left = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', Number(sub.id))
      .execute();
    expect(left).toEqual([]);
  });
});

describe('with WEBHOOK_ALLOW_PRIVATE=false', () => {
  let strict: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    strict = await createTestApp({
      database: t.testDatabase,
      env: { WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_TIMEOUT_MS: '300' },
    });
  });
  afterAll(async () => {
    await strict.close();
  });

  it.each([
    ['http://127.0.0.1/hook', 'loopback'],
    ['http://127.9.9.9:8080/hook', 'loopback'],
    ['http://10.0.0.1/hook', 'private'],
    ['https://192.168.1.20/hook', 'private'],
    ['http://172.16.5.4/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['http://[::1]/hook', 'loopback'],
    ['http://[fe80::1]/hook', 'linkLocal'],
    ['http://[fd00:ec2::254]/hook', 'uniqueLocal'],
    ['http://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['http://0.0.0.0/hook', 'unspecified'],
    ['http://100.64.0.1/hook', 'carrierGradeNat'],
    ['http://2130706433/hook', 'loopback'],
    ['http://localhost:3000/hook', 'names this computer, a local network or a cloud metadata service'],
    ['http://api.localhost/hook', 'names this computer, a local network or a cloud metadata service'],
    [
      'http://metadata.google.internal/computeMetadata/v1/',
      'names this computer, a local network or a cloud metadata service',
    ],
  ])('refuses %s', async (url, why) => {
    const user = await newUser(strict.app);
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(user.token),
      payload: { url },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'body.url' }] });
    expect(res.json().details[0].message).toContain(why);
  });

  it('accepts a public address', async () => {
    const user = await newUser(strict.app);
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(user.token),
      payload: { url: 'https://93.184.215.14/hooks?token=abc' },
    });
    expect(res.statusCode).toBe(201);
  });

  it('checks again at delivery: nothing is sent to an address that became forbidden', async () => {
    const r = await receiver();
    const user = await newUser(t.app);
    const sub = await subscribe(user, r.url, ['order.cancelled']);
    await cancelOneOrder(user);
    await strict.app.jobs.runNow('webhooks.deliver');
    expect(r.received).toHaveLength(0);
    const [delivery] = await deliveriesOf(user, sub.id);
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: null,
      error: '127.0.0.1 is a loopback address',
    });
  });
});
