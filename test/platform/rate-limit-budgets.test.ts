import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../support/app.js';
import { createMarket } from '../support/exchange.js';
import { bearer, newAdmin, newUser } from '../support/factories.js';

/** A user's browser sessions draw from one budget (RATE_LIMIT_BROWSE_MAX), their API keys from another (RATE_LIMIT_MAX). */
describe('rate-limit budgets of a user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_BROWSE_MAX: '5' } });
  });
  afterAll(() => t.close());

  const streak = (token: string) => t.app.inject({ url: '/api/me/streak', headers: bearer(token) });

  it('keeps an API key working when the sessions have spent theirs, and the other way round', async () => {
    const user = await newUser(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(user.token),
      payload: { name: 'bot' },
    });
    const key: string = created.json().key;
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    const secondSession: string = login.json().token;

    // The sessions share one budget: the key creation above and four reads spend it, in two browsers.
    for (let i = 0; i < 4; i++)
      expect((await streak(i % 2 ? secondSession : user.token)).statusCode).toBe(200);
    const refused = await streak(secondSession);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });

    // The key's budget is untouched, and spending it does not give the sessions more.
    const first = await streak(key);
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('4');
    for (let i = 0; i < 4; i++) expect((await streak(key)).statusCode).toBe(200);
    expect((await streak(key)).statusCode).toBe(429);
    expect((await streak(user.token)).statusCode).toBe(429);
  });
});

/**
 * A person who opens twenty markets in new tabs within a minute makes twenty cold loads, each reading the user, the
 * notifications, the market, its book, the positions, the watchlist, the open orders and the feature flags: the
 * browsing budget (5 × RATE_LIMIT_MAX unless set) takes them all, while the user's API keys keep theirs of 60.
 */
describe('the browsing budget', () => {
  let t: TestApp;
  let market: { slug: string; options: { id: string }[] };
  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '60' } });
    const admin = await newAdmin(t.app);
    market = await createMarket(t.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 10_000 }] });
  });
  afterAll(() => t.close());

  const coldLoad = (slug: string, optionId: string) => [
    '/api/auth/me',
    '/api/me/notifications?limit=20',
    `/api/events/${slug}`,
    `/api/orderbook/${optionId}`,
    '/api/positions',
    '/api/watchlist',
    `/api/limit-orders?status=open&eventSlug=${slug}&limit=200`,
    '/api/flags',
  ];

  it('answers twenty cold loads of a market page from one session within a minute, and keeps the keys at 60', async () => {
    const user = await newUser(t.app);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof t.app.inject>> | undefined;
    for (let tab = 0; tab < 20; tab++)
      for (const url of coldLoad(market.slug, market.options[0]!.id)) {
        last = await t.app.inject({ url, headers: bearer(user.token) });
        statuses.push(last.statusCode);
      }
    expect(statuses).toHaveLength(160);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(last?.headers['ratelimit-limit']).toBe('300');

    const created = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(user.token),
      payload: { name: 'bot' },
    });
    const key: string = created.json().key;
    const byKey: number[] = [];
    for (let i = 0; i < 61; i++)
      byKey.push((await t.app.inject({ url: '/api/positions', headers: bearer(key) })).statusCode);
    expect(byKey.slice(0, 60).every((status) => status === 200)).toBe(true);
    expect(byKey[60]).toBe(429);
    // The browsing budget has its bound too: the sessions' 301st request of the minute waits.
    for (let i = statuses.length + 1; i < 300; i++)
      expect((await t.app.inject({ url: '/api/flags', headers: bearer(user.token) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/flags', headers: bearer(user.token) })).statusCode).toBe(429);
  });
});

/**
 * Pulling quotes always works: cancels, cancel-all and the dead man's switch draw on a budget of their own, never
 * on the request budget; and an order answered from its idempotency key gives back what it took of the order budget.
 */
describe('the budgets of a market maker', () => {
  let t: TestApp;
  let optionId: string;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        RATE_LIMIT_MAX: '6',
        RATE_LIMIT_BROWSE_MAX: '6',
        RATE_LIMIT_PULL_MAX: '3',
        ORDER_RATE_LIMIT: '5',
      },
    });
    const admin = await newAdmin(t.app);
    optionId = (await createMarket(t.app, admin.token, { options: [{ label: 'Yes' }] })).options[0]
      ?.id as string;
  });
  afterAll(async () => {
    await expectInvariants(t.database);
    await t.close();
  });

  const batch = (token: string, prices: number[], key?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/limit-orders/batch',
      headers: { ...bearer(token), ...(key ? { 'idempotency-key': key } : {}) },
      payload: {
        orders: prices.map((limitPriceCents) => ({
          optionId,
          side: 'YES',
          action: 'BUY',
          quantity: 1,
          limitPriceCents,
        })),
      },
    });

  it('cancels and keeps the switch armed once the requests are spent, within a budget of their own', async () => {
    const maker = await newUser(t.app);
    expect((await batch(maker.token, [30, 31])).statusCode).toBe(200);
    // The batch spent one request of the user's six (registering counted against the address); five more spend the rest.
    for (let i = 0; i < 5; i++)
      expect((await t.app.inject({ url: '/api/me/streak', headers: bearer(maker.token) })).statusCode).toBe(
        200,
      );
    expect((await batch(maker.token, [32])).statusCode).toBe(429);

    const beat = await t.app.inject({
      method: 'POST',
      url: '/api/heartbeat',
      headers: bearer(maker.token),
      payload: { timeoutSeconds: 30 },
    });
    expect(beat.statusCode).toBe(200);
    expect(beat.headers['ratelimit-limit']).toBe('3');
    const pulled = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders/cancel-all',
      headers: bearer(maker.token),
      payload: { optionId },
    });
    expect(pulled.statusCode).toBe(200);
    expect(pulled.json().cancelledCount).toBe(2);
    expect(pulled.headers['ratelimit-remaining']).toBe('1');
    const off = await t.app.inject({ method: 'DELETE', url: '/api/heartbeat', headers: bearer(maker.token) });
    expect(off.statusCode).toBe(200);
    // The pulling budget has a bound too.
    const fourth = await t.app.inject({ url: '/api/heartbeat', headers: bearer(maker.token) });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('charges a retried batch only for the orders it newly places', async () => {
    const maker = await newUser(t.app);
    const first = await batch(maker.token, [40, 41, 42], 'quotes-1');
    expect(first.statusCode).toBe(200);
    expect(first.headers['order-ratelimit-remaining']).toBe('2');
    const again = await batch(maker.token, [40, 41, 42], 'quotes-1');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Two orders fit after the replay gave its three back; a third would not.
    expect((await batch(maker.token, [43, 44])).statusCode).toBe(200);
    const over = await batch(maker.token, [45]);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: 'ORDER_RATE_LIMITED' });
    expect(over.headers['retry-after']).toBeDefined();
    const open = await t.app.inject({ url: '/api/limit-orders?status=open', headers: bearer(maker.token) });
    expect(open.json().data).toHaveLength(5);
  });
});
