import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, startMetricsServer } from '../../src/platform/metrics.js';
import { createTestApp, createTestDatabase, type TestApp, type TestDatabase } from '../support/app.js';

/** `/metrics` is no public page: this machine only by default, else a token, or a port of its own. */

let db: TestDatabase;
let byDefault: TestApp;
let withToken: TestApp;
let ownPort: TestApp;
const TOKEN = 'metrics-token-0123456789';

beforeAll(async () => {
  db = await createTestDatabase();
  byDefault = await createTestApp({ database: db });
  withToken = await createTestApp({ database: db, env: { METRICS_TOKEN: TOKEN } });
  ownPort = await createTestApp({ database: db, env: { METRICS_PORT: '9464' } });
});
afterAll(async () => {
  for (const t of [byDefault, withToken, ownPort]) await t?.close();
  await db?.drop();
});

interface From {
  remoteAddress?: string;
  headers?: Record<string, string>;
}

const scrape = (t: TestApp, options: From = {}) => t.app.inject({ url: '/metrics', ...options });

describe('who may read /metrics on the service port', () => {
  it('by default, a peer on this machine whose request no proxy forwarded, and nobody else', async () => {
    const local = await scrape(byDefault);
    expect(local.statusCode).toBe(200);
    expect(local.body).toContain('http_request_duration_seconds');
    expect((await scrape(byDefault, { remoteAddress: '::1' })).statusCode).toBe(200);
    const strangers: From[] = [
      { remoteAddress: '203.0.113.7' },
      { remoteAddress: '10.0.0.9' },
      { remoteAddress: '::ffff:192.0.2.1' },
      // A proxy on the same host carries everyone's requests from 127.0.0.1.
      { headers: { 'x-forwarded-for': '203.0.113.7' } },
      { headers: { forwarded: 'for=203.0.113.7' } },
    ];
    for (const stranger of strangers) {
      const res = await scrape(byDefault, stranger);
      expect(res.statusCode, JSON.stringify(stranger)).toBe(404);
      expect(res.json()).toEqual({ error: 'No route GET /metrics', code: 'NOT_FOUND' });
      expect(res.body).not.toContain('http_request_duration_seconds');
    }
  });

  it('with METRICS_TOKEN, whoever sends it as a Bearer credential, from anywhere', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: TOKEN },
    ];
    for (const headers of wrong) {
      const res = await scrape(withToken, { headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHENTICATED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const res = await scrape(withToken, {
      remoteAddress: '203.0.113.7',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('exchange_orders_total');
  });

  it('with METRICS_PORT, not at all (they are served on that port)', async () => {
    const res = await scrape(ownPort);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
  });
});

describe('the metrics port', () => {
  it('serves GET /metrics only, and asks for the token when one is set', async () => {
    const metrics = createMetrics();
    metrics.ordersPlaced.inc({ kind: 'limit' });
    const open = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0, token: null });
    const guarded = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0, token: TOKEN });
    try {
      const res = await fetch(`http://127.0.0.1:${open.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(await res.text()).toContain('exchange_orders_total{kind="limit"} 1');
      expect((await fetch(`http://127.0.0.1:${open.port}/api/events`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${open.port}/metrics`, { method: 'POST' })).status).toBe(404);

      const refused = await fetch(`http://127.0.0.1:${guarded.port}/metrics`);
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain('exchange_orders_total');
      const allowed = await fetch(`http://127.0.0.1:${guarded.port}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(allowed.status).toBe(200);
    } finally {
      await open.close();
      await guarded.close();
    }
  });
});
