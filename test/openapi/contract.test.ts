import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncapiDocument } from '../../src/openapi/asyncapi.js';
import { OPERATION_IDS } from '../../src/openapi/operations.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { ContractChecker, StreamContract } from '../support/contract.js';
import { ADMIN_EMAIL } from '../support/exchange.js';
import { bearer, newUser } from '../support/factories.js';

type Json = Record<string, unknown>;
let t: TestApp;
let document: Json;
let checker: ContractChecker;

beforeAll(async () => {
  t = await createTestApp({ env: { ADMIN_EMAIL } });
  document = t.app.swagger() as unknown as Json;
  checker = new ContractChecker(document);
});
afterAll(async () => {
  await t.close();
});

const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      operation,
    })),
  );
const rateHeaders = { 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '60' };

describe('the OpenAPI document', () => {
  it('gives every operation its listed, unique camelCase operationId and a tag it describes', () => {
    const tags = new Set((document.tags as { name: string; description?: string }[]).map((tag) => tag.name));
    const ids = operations().map(({ key, operation }) => {
      expect(operation.operationId, key).toBe(OPERATION_IDS[key]);
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
      for (const tag of operation.tags as string[]) expect(tags.has(tag), `${key} tag ${tag}`).toBe(true);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['placeTrade', 'placeLimitOrder', 'cancelLimitOrder']));
  });

  it('declares 429 and 503 everywhere, 401 and 403 where credentials are needed, 413 and 415 with a body', () => {
    // The health probes alone are not rate limited: they declare 503 and neither 429 nor the RateLimit headers.
    const probes = ['/healthz', '/readyz'];
    for (const { key, operation } of operations()) {
      const statuses = Object.keys(operation.responses as Json);
      const probe = probes.some((path) => key.endsWith(` ${path}`));
      expect(statuses, key).toEqual(expect.arrayContaining(probe ? ['503'] : ['429', '503']));
      if (probe) {
        expect(statuses, key).not.toContain('429');
        expect(JSON.stringify(operation.responses), key).not.toContain('RateLimit-Limit');
      }
      if ((operation.security as unknown[]).length > 0) {
        expect(statuses, key).toEqual(expect.arrayContaining(['401', '403']));
      }
      if (operation.requestBody) expect(statuses, key).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('names the resources and reuses them, and describes every webhook', () => {
    const schemas = (document.components as { schemas: Json }).schemas;
    for (const name of [
      'Event',
      'Option',
      'Order',
      'Trade',
      'Position',
      'Portfolio',
      'User',
      'Notification',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.WebhookSubscription).toBeDefined();
    const placed = (document.paths as Record<string, Record<string, Json>>)['/api/limit-orders']?.post;
    expect(JSON.stringify(placed)).toContain('#/components/schemas/PlacedOrder');
    expect(Object.keys(document.webhooks as Json)).toEqual(
      expect.arrayContaining(['order.filled', 'trade.executed', 'market.settled', 'notification.created']),
    );
  });

  it('is served beside the AsyncAPI document of the stream', async () => {
    const openapi = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(openapi.json()).toMatchObject({ openapi: '3.1.0' });
    const asyncapi = await t.app.inject({ method: 'GET', url: '/api/asyncapi.json' });
    expect(asyncapi.statusCode).toBe(200);
    expect(asyncapi.json()).toMatchObject({
      asyncapi: '3.0.0',
      channels: { book: { address: 'book:{optionId}' } },
    });
  });
});

describe('the contract check', () => {
  const order = { optionId: '1', side: 'YES', action: 'BUY', quantity: 1, limitPriceCents: 50 };

  it('fails an undeclared status, field, content type or missing rate-limit header', () => {
    const json = { 'content-type': 'application/json; charset=utf-8', ...rateHeaders };
    expect(checker.check('GET', '/api/flags', 418, json, '{}')).toEqual([
      'GET /api/flags 418: status not declared',
    ]);
    expect(checker.check('GET', '/api/flags', 200, json, '{"flags":{},"surprise":1}')[0]).toMatch(
      /does not match/,
    );
    expect(
      checker.check('GET', '/api/flags', 200, { ...json, 'content-type': 'text/html' }, '<p>')[0],
    ).toMatch(/content type text\/html not declared/);
    expect(checker.check('GET', '/api/flags', 200, { 'content-type': 'application/json' }, '{}')).toContain(
      'GET /api/flags 200: declared header RateLimit-Limit missing',
    );
    expect(checker.check('GET', '/api/events/:slug', 200, json, '{"id": 5}')[0]).toMatch(/does not match/);
  });

  it('passes real answers, and 401 and 403 carry the rate-limit headers', async () => {
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/limit-orders', payload: order });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-remaining']).toBeDefined();
    const user = await newUser(t.app);
    const forbidden = await t.app.inject({
      method: 'GET',
      url: '/api/admin/events',
      headers: bearer(user.token),
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['ratelimit-limit']).toBeDefined();
    const tooBig = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: { ...bearer(user.token), 'content-type': 'application/json' },
      payload: JSON.stringify({ ...order, pad: 'x'.repeat(70_000) }),
    });
    expect(tooBig.statusCode).toBe(413);
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: { ...bearer(user.token), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(415);
    // Each of these went through the contract check of the test app and passed (or this test would fail).
  });

  it('fails a stream message that does not match the AsyncAPI document', () => {
    const stream = new StreamContract(asyncapiDocument('http://localhost:3000'));
    const trade = {
      yesPriceCents: 55,
      quantity: 2,
      takerSide: 'YES',
      takerAction: 'BUY',
      at: '2025-01-01T00:00:00Z',
    };
    const good = { type: 'trades', channel: 'trades:7', seq: 3, trades: [{ id: '12', ...trade }] };
    expect(stream.check(good)).toEqual([]);
    expect(stream.check({ ...good, trades: [{ id: 12, ...trade }] })[0]).toMatch(/must be string/);
    expect(stream.check({ type: 'gossip' })).toEqual(['stream message type gossip not declared']);
  });
});
