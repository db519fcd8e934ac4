import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncapiDocument } from '../../src/openapi/asyncapi.js';
import { OPERATION_IDS } from '../../src/openapi/operations.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { ContractChecker, StreamContract } from '../support/contract.js';
import { createMarket } from '../support/exchange.js';
import { bearer, newAdmin, newUser } from '../support/factories.js';

type Json = Record<string, unknown>;
let t: TestApp;
let document: Json;
let checker: ContractChecker;

beforeAll(async () => {
  t = await createTestApp();
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
      'MarketEvent',
      'MarketOption',
      'Order',
      'Trade',
      'Position',
      'Portfolio',
      'User',
      'FeedNotification',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.WebhookSubscription).toBeDefined();
    // No name a client's language has already: a generated type would shadow it.
    for (const builtIn of [
      'Error',
      'Event',
      'Option',
      'Comment',
      'Notification',
      'Report',
      'Object',
      'Result',
    ])
      expect(schemas[builtIn], builtIn).toBeUndefined();
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

/** What the official AsyncAPI parser finds wrong with a document: errors and warnings, in words. */
async function asyncapiProblems(document: string): Promise<string[]> {
  const diagnostics = await new Parser().validate(document);
  return diagnostics
    .filter((d) => d.severity <= 1)
    .map((d) => `${d.code} at ${d.path.join('/')}: ${d.message}`);
}

describe('the contract every generator and parser accepts', () => {
  it('the AsyncAPI document, served and committed, is valid under @asyncapi/parser', async () => {
    const served = await t.app.inject({ method: 'GET', url: '/api/asyncapi.json' });
    expect(await asyncapiProblems(served.body)).toEqual([]);
    const committed = readFileSync(
      new URL('../../clients/typescript/asyncapi.json', import.meta.url),
      'utf8',
    );
    expect(await asyncapiProblems(committed)).toEqual([]);
    // And the check is real: an operation pointing at a channel that does not exist is an error.
    const broken = JSON.parse(served.body);
    broken.operations.receiveBook.channel = { $ref: '#/components/channels/book' };
    expect((await asyncapiProblems(JSON.stringify(broken))).join('\n')).toMatch(/does not exist/);
  });

  it('both documents name PUBLIC_URL as the server, under its path', async () => {
    const other = await createTestApp({ env: { PUBLIC_URL: 'https://exchange.example.com/markets' } });
    try {
      const openapi = (await other.app.inject({ url: '/api/openapi.json' })).json();
      expect(openapi.servers).toEqual([
        { url: 'https://exchange.example.com/markets', description: 'This deployment' },
      ]);
      const asyncapi = (await other.app.inject({ url: '/api/asyncapi.json' })).json();
      expect(asyncapi.servers.exchange).toMatchObject({
        host: 'exchange.example.com',
        protocol: 'wss',
        pathname: '/markets/api/stream',
      });
    } finally {
      await other.close();
    }
  });

  it('names no schema after a language built-in, and types every error code as an enum of the operation', () => {
    const schemas = (document.components as { schemas: Json }).schemas;
    expect(schemas.Error).toBeUndefined();
    expect(schemas.ApiError).toBeDefined();
    for (const { key, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const schema = (response.content as Record<string, { schema: Json }> | undefined)?.[
          'application/json'
        ]?.schema;
        if (!JSON.stringify(schema).includes('ApiError')) continue;
        const codes = (schema?.allOf as Json[] | undefined)?.[1] as {
          properties: { code: { enum: string[] } };
        };
        expect(codes.properties.code.enum.length, `${key} ${status}`).toBeGreaterThan(0);
        if (status === '503') expect(JSON.stringify(response.headers), key).toContain('Retry-After');
      }
    }
    const place = (document.paths as Record<string, Record<string, Json>>)['/api/trades']?.post as Json;
    const conflict = JSON.stringify((place.responses as Json)['409']);
    for (const code of ['NO_LIQUIDITY', 'MARKET_CLOSED', 'INSUFFICIENT_SHARES', 'IDEMPOTENCY_MISMATCH']) {
      expect(conflict).toContain(code);
    }
    const json = { 'content-type': 'application/json; charset=utf-8', ...rateHeaders };
    const body = (code: string) => JSON.stringify({ error: 'no', code });
    expect(checker.check('POST', '/api/trades', 409, json, body('NO_LIQUIDITY'))).toEqual([]);
    expect(checker.check('POST', '/api/trades', 409, json, body('SLUG_TAKEN'))[0]).toMatch(/does not match/);
  });

  it('the order body names its option by optionId or by eventSlug + optionLabel, as a oneOf, never both', async () => {
    const schemas = (document.components as { schemas: Json }).schemas;
    for (const name of ['PlaceTradeRequest', 'PlaceLimitOrderRequest']) {
      const branches = (schemas[name] as { oneOf: Json[] }).oneOf.map((branch) => branch.$ref);
      expect(branches, name).toEqual([
        `#/components/schemas/${name.replace('Request', 'ByOptionId')}`,
        `#/components/schemas/${name.replace('Request', 'ByLabel')}`,
      ]);
    }
    const market = await createMarket(t.app, (await adminToken()).token, {
      options: [{ label: 'Rain', liquidityCents: 10_000 }],
    });
    const user = await newUser(t.app);
    const order = { side: 'YES', action: 'BUY', quantity: 1, priceCents: 60 };
    const place = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/trades', headers: bearer(user.token), payload });
    const optionId = market.options[0]?.id;
    expect((await place({ optionId, ...order })).statusCode).toBe(201);
    expect((await place({ eventSlug: market.slug, optionLabel: 'rain', ...order })).statusCode).toBe(201);
    for (const wrong of [
      { optionId, eventSlug: market.slug, optionLabel: 'Rain' },
      { eventSlug: market.slug },
      {},
    ]) {
      const res = await place({ ...wrong, ...order });
      expect(res.statusCode, JSON.stringify(wrong)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('answers a long path parameter, a trailing slash and a body-less request as the documented API', async () => {
    const long = await t.app.inject({ url: `/api/orderbook/${'1'.repeat(150)}` });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(long.headers['ratelimit-limit']).toBeDefined();
    const slug = await t.app.inject({ url: `/api/events/${'a'.repeat(5_000)}` });
    expect(slug.statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/events/%E0%A4%A' })).json()).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const slash = await t.app.inject({ url: '/api/events/' });
    expect(slash.statusCode).toBe(200);
    expect(slash.json()).toEqual((await t.app.inject({ url: '/api/events' })).json());
    const user = await newUser(t.app);
    for (const contentType of ['application/json', 'text/plain']) {
      const key = await t.app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(user.token),
        payload: { name: 'bot' },
      });
      const revoked = await t.app.inject({
        method: 'DELETE',
        url: `/api/me/api-keys/${key.json().id}`,
        headers: { ...bearer(user.token), 'content-type': contentType },
      });
      expect(revoked.statusCode, contentType).toBe(204);
    }
    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { ...bearer(user.token), 'content-type': 'application/json' },
    });
    expect(logout.statusCode).toBe(204);
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).statusCode).toBe(401);
  });

  it('every 503 carries Retry-After', async () => {
    const cricket = await t.app.inject({ url: '/api/cricket/live' });
    expect(cricket.statusCode).toBe(503);
    expect(Number(cricket.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a cursor works only for the list and the filter that made it', async () => {
    const token = (await adminToken()).token;
    for (const category of ['weather', 'weather', 'cricket']) await createMarket(t.app, token, { category });
    const first = (await t.app.inject({ url: '/api/events?category=weather&limit=1' })).json();
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = await t.app.inject({
      url: `/api/events?category=weather&limit=1&cursor=${first.nextCursor}`,
    });
    expect(next.statusCode).toBe(200);
    expect(next.json().data[0].id).not.toBe(first.data[0].id);
    const user = await newUser(t.app);
    for (const url of [
      `/api/events?category=cricket&limit=1&cursor=${first.nextCursor}`,
      `/api/events?limit=1&cursor=${first.nextCursor}`,
      `/api/trades?cursor=${first.nextCursor}`,
    ]) {
      const res = await t.app.inject({ url, headers: bearer(user.token) });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details).toEqual([
        { field: 'query.cursor', message: 'is not a cursor of this list with these filters' },
      ]);
    }
  });
});

/** The admin of this file's app (registered once, then granted the role). */
let admin: Awaited<ReturnType<typeof newUser>> | null = null;
async function adminToken() {
  admin ??= await newAdmin(t.app);
  return admin;
}
