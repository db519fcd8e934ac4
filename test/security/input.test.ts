import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../support/app.js';
import { limitOrder } from '../support/exchange.js';
import { bearer } from '../support/factories.js';
import { buildWorld, type World } from './world.js';

/** Inputs the fuzzer once turned into a 500: each is now a clear 4xx. */
describe('inputs that used to fail inside the database', () => {
  let t: TestApp;
  let world: World;
  beforeAll(async () => {
    t = await createTestApp();
    world = await buildWorld(t.app);
  });
  afterAll(() => t.close());

  it('answers a NUL character in a path parameter, a query or a body with 400 naming the field', async () => {
    const cases = [
      { method: 'GET' as const, url: '/api/events/a%00b', field: 'params.slug' },
      { method: 'GET' as const, url: '/api/tournaments/%00', field: 'params.slug' },
      { method: 'GET' as const, url: '/api/events?q=x%00', field: 'query.q' },
      {
        method: 'POST' as const,
        url: '/api/posts',
        payload: { eventSlug: world.market.slug, text: 'hello\u0000world' },
        field: 'body.text',
      },
    ];
    for (const { field, ...request } of cases) {
      const response = await t.app.inject({ ...request, headers: bearer(world.user.token) });
      expect(response.statusCode, request.url).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field }] });
    }
  });

  it('answers a cursor whose key is not an integer with 400', async () => {
    for (const values of [['abc'], ['%'], [1.5], [1e300], [null]]) {
      const cursor = Buffer.from(JSON.stringify(values)).toString('base64url');
      for (const url of ['/api/posts', '/api/events', '/api/me/following', '/api/me/notifications']) {
        const response = await t.app.inject({
          url: `${url}?cursor=${cursor}`,
          headers: bearer(world.user.token),
        });
        expect(response.statusCode, `${url} ${JSON.stringify(values)}`).toBe(400);
        expect(response.json().code).toBe('VALIDATION_FAILED');
      }
    }
  });

  it('refuses a clientOrderId reused under another Idempotency-Key with 409, placing nothing', async () => {
    const optionId = world.market.options[0]?.id as string;
    const order = { optionId, side: 'YES' as const, action: 'BUY' as const, quantity: 1, price: 10 };
    const body = {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      limitPriceCents: 10,
      clientOrderId: 'bot-1',
    };
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: { ...bearer(world.user.token), 'idempotency-key': 'k-1' },
      payload: body,
    });
    expect(first.statusCode).toBe(201);
    const before = await t.app.inject({
      url: '/api/limit-orders?status=open',
      headers: bearer(world.user.token),
    });
    for (const headers of [{ 'idempotency-key': 'k-2' }, {}]) {
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/limit-orders',
        headers: { ...bearer(world.user.token), ...headers },
        payload: { ...body, limitPriceCents: 11 },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('IDEMPOTENCY_MISMATCH');
    }
    const after = await t.app.inject({
      url: '/api/limit-orders?status=open',
      headers: bearer(world.user.token),
    });
    expect(after.json().data).toEqual(before.json().data);
    expect((await limitOrder(t.app, world.user.token, order)).statusCode).toBe(201);
    await expectInvariants(t.database);
  });
});
