import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket, type Market } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * API keys' scopes, allow-lists and expiry through HTTP: what each scope lets a key do and refuses (403
 * KEY_SCOPE_MISSING), an address outside the allow-list (403 KEY_ADDRESS_NOT_ALLOWED, the forwarded address behind a
 * trusted proxy), an expired key (401), and how a key shows and changes its permissions.
 */

let t: TestApp;
let app: FastifyInstance;
let admin: TestUser;
let user: TestUser;
let market: Market;

beforeAll(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: 'true' } });
  app = t.app;
  admin = await newAdmin(app);
  user = await newUser(app);
  market = await createMarket(app, admin.token);
});
afterAll(async () => {
  await t.close();
});

interface KeyJson {
  id: string;
  key: string;
  scopes: string[];
  allowedCidrs: string[] | null;
  expiresAt: string | null;
  limits: Record<string, number | null> | null;
}

async function createKey(settings: Record<string, unknown>, token = user.token): Promise<KeyJson> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(token),
    payload: { name: 'bot', ...settings },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function call(key: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers = {}) {
  return app.inject({
    method,
    url,
    headers: { ...bearer(key), ...headers },
    ...(payload ? { payload } : {}),
  });
}

const restingBuy = () => ({
  optionId: market.options[0]?.id,
  side: 'YES',
  action: 'BUY',
  quantity: 2,
  limitPriceCents: 5,
});

async function placeWith(key: string) {
  return call(key, 'POST', '/api/limit-orders', restingBuy());
}

describe('scopes', () => {
  it('a key made without scopes has them all, as keys made before scopes do', async () => {
    const key = await createKey({});
    expect(key).toMatchObject({
      scopes: ['read', 'trade', 'cancel', 'account'],
      allowedCidrs: null,
      limits: null,
    });
    expect((await placeWith(key.key)).statusCode).toBe(201);
    expect((await call(key.key, 'GET', '/api/me/api-keys')).statusCode).toBe(200);
  });

  it('a read key reads but cannot place, cancel or manage the account', async () => {
    const key = await createKey({ scopes: ['read'] });
    expect((await call(key.key, 'GET', '/api/auth/me')).statusCode).toBe(200);
    expect((await call(key.key, 'GET', '/api/limit-orders')).statusCode).toBe(200);
    const placed = await placeWith(key.key);
    expect(placed.statusCode).toBe(403);
    expect(placed.json()).toMatchObject({
      code: 'KEY_SCOPE_MISSING',
      details: { needs: ['trade'], has: ['read'] },
    });
    expect((await call(key.key, 'POST', '/api/limit-orders/cancel-all', {})).json().code).toBe(
      'KEY_SCOPE_MISSING',
    );
    expect((await call(key.key, 'GET', '/api/me/api-keys')).json().code).toBe('KEY_SCOPE_MISSING');
    expect((await call(key.key, 'GET', '/api/me/webhooks')).statusCode).toBe(403);
  });

  it('a cancel key cancels one order and all of them, and can never place or amend', async () => {
    const full = await createKey({});
    const watchdog = await createKey({ scopes: ['cancel'] });
    const first = (await placeWith(full.key)).json();
    const second = (await placeWith(full.key)).json();
    expect((await placeWith(watchdog.key)).json().code).toBe('KEY_SCOPE_MISSING');
    const amend = await call(watchdog.key, 'POST', `/api/limit-orders/${first.id}/amend`, {
      limitPriceCents: 6,
    });
    expect(amend.json().code).toBe('KEY_SCOPE_MISSING');
    const batch = await call(watchdog.key, 'POST', '/api/limit-orders/batch', { orders: [restingBuy()] });
    expect(batch.statusCode).toBe(403);
    expect((await call(watchdog.key, 'GET', '/api/limit-orders')).statusCode).toBe(403);
    const one = await call(watchdog.key, 'DELETE', `/api/limit-orders/${first.id}`);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().status).toBe('cancelled');
    const all = await call(watchdog.key, 'POST', '/api/limit-orders/cancel-all', {});
    expect(all.statusCode, all.body).toBe(200);
    expect(JSON.stringify(all.json())).toContain(second.id);
    expect((await call(watchdog.key, 'POST', '/api/heartbeat', { timeoutSeconds: 30 })).statusCode).toBe(200);
  });

  it('a trade key places and amends but manages nothing of the account', async () => {
    const key = await createKey({ scopes: ['trade'] });
    const placed = await placeWith(key.key);
    expect(placed.statusCode).toBe(201);
    const amend = await call(key.key, 'POST', `/api/limit-orders/${placed.json().id}/amend`, {
      limitPriceCents: 6,
    });
    expect(amend.statusCode, amend.body).toBe(200);
    const webhook = await call(key.key, 'POST', '/api/me/webhooks', { url: 'https://example.com/hook' });
    expect(webhook.json().code).toBe('KEY_SCOPE_MISSING');
    expect((await call(key.key, 'POST', '/api/me/api-keys', { name: 'more' })).statusCode).toBe(403);
  });

  it('an account key manages keys but may not make one with a scope it lacks itself', async () => {
    const key = await createKey({ scopes: ['read', 'account'] });
    expect((await call(key.key, 'GET', '/api/me/api-keys')).statusCode).toBe(200);
    const weaker = await call(key.key, 'POST', '/api/me/api-keys', { name: 'reader', scopes: ['read'] });
    expect(weaker.statusCode, weaker.body).toBe(201);
    const stronger = await call(key.key, 'POST', '/api/me/api-keys', { name: 'trader', scopes: ['trade'] });
    expect(stronger.statusCode).toBe(400);
    expect(stronger.json().details[0].field).toBe('body.scopes');
    expect((await placeWith(key.key)).json().code).toBe('KEY_SCOPE_MISSING');
  });

  it('unknown scopes, bad CIDRs and past expiries are refused 400', async () => {
    for (const payload of [
      { name: 'x', scopes: ['withdraw'] },
      { name: 'x', scopes: [] },
      { name: 'x', allowedCidrs: ['10.0.0.0/33'] },
      { name: 'x', allowedCidrs: ['not an address'] },
      { name: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() },
      { name: 'x', limits: { maxOpenOrders: -1 } },
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(user.token),
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
  });
});

describe('allow-lists and expiry', () => {
  it('a key works only from its allow-list, by the address a trusted proxy forwards', async () => {
    const key = await createKey({ allowedCidrs: ['203.0.113.0/24', '2001:db8::1'] });
    expect(key.allowedCidrs).toEqual(['203.0.113.0/24', '2001:db8::1/128']);
    const inside = await call(key.key, 'GET', '/api/auth/me', undefined, {
      'x-forwarded-for': '203.0.113.7',
    });
    expect(inside.statusCode).toBe(200);
    const v6 = await call(key.key, 'GET', '/api/auth/me', undefined, { 'x-forwarded-for': '2001:db8::1' });
    expect(v6.statusCode).toBe(200);
    const outside = await call(key.key, 'GET', '/api/auth/me', undefined, {
      'x-forwarded-for': '198.51.100.9',
    });
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({
      code: 'KEY_ADDRESS_NOT_ALLOWED',
      details: { address: '198.51.100.9' },
    });
    const order = await app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: { ...bearer(key.key), 'x-forwarded-for': '198.51.100.9' },
      payload: restingBuy(),
    });
    expect(order.json().code).toBe('KEY_ADDRESS_NOT_ALLOWED');
    // The session that made it is not bound by it.
    const session = await app.inject({
      url: '/api/auth/me',
      headers: { ...bearer(user.token), 'x-forwarded-for': '198.51.100.9' },
    });
    expect(session.statusCode).toBe(200);
  });

  it('an expired key is 401, and is no longer listed', async () => {
    const key = await createKey({ expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect((await call(key.key, 'GET', '/api/auth/me')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const res = await call(key.key, 'GET', '/api/auth/me');
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHENTICATED');
    const listed = (await app.inject({ url: '/api/me/api-keys', headers: bearer(user.token) })).json().data;
    expect(listed.map((k: { id: string }) => k.id)).not.toContain(key.id);
  });
});

describe('showing and changing a key', () => {
  it('GET shows its permissions and limits; PATCH changes them at once', async () => {
    const key = await createKey({
      scopes: ['trade', 'read'],
      limits: { maxOrderCents: 5000, maxOpenOrders: 3 },
    });
    const shown = await app.inject({ url: `/api/me/api-keys/${key.id}`, headers: bearer(user.token) });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({
      scopes: ['read', 'trade'],
      allowedCidrs: null,
      expiresAt: null,
      limits: { maxOrderCents: 5000, maxOpenOrders: 3, maxPositionShares: null, maxDailyLossCents: null },
    });
    expect((await placeWith(key.key)).statusCode).toBe(201);
    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/me/api-keys/${key.id}`,
      headers: bearer(user.token),
      payload: { scopes: ['read'], limits: null, allowedCidrs: ['192.0.2.1'] },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ scopes: ['read'], limits: null, allowedCidrs: ['192.0.2.1/32'] });
    const refused = await placeWith(key.key);
    expect(refused.statusCode).toBe(403);
    const other = await newUser(app);
    const foreign = await app.inject({ url: `/api/me/api-keys/${key.id}`, headers: bearer(other.token) });
    expect(foreign.statusCode).toBe(404);
  });
});
