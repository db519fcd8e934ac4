import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webApp } from '../../../src/modules/web/plugin.js';
import { createTestApp, type TestApp } from '../../support/app.js';

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** A bare server with the app's not-found shape and a tight rate limit, so the plugin's own rules show. */
async function serve(distDir: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(rateLimit, { global: true, max: 2, timeWindow: 60_000 });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: `No route ${request.method} ${request.url}`, code: 'NOT_FOUND' }),
  );
  app.get('/api/thing', async () => ({ ok: true }));
  await app.register(webApp, { distDir });
  await app.ready();
  return app;
}

describe('web app plugin with a built app', () => {
  let dist: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dist = mkdtempSync(path.join(tmpdir(), 'web-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(path.join(dist, 'assets', 'index-abc123.js.br'), brotliCompressSync('console.log(1)'));
    app = await serve(dist);
  });

  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves index.html at / without caching it', async () => {
    const response = await app.inject({ url: '/', headers: HTML });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toContain('<title>app</title>');
  });

  it('answers any page a browser navigates to with index.html, so app routes survive a reload', async () => {
    for (const url of ['/markets/some-market', '/portfolio', '/users/alice?tab=posts']) {
      const response = await app.inject({ url, headers: HTML });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('<title>app</title>');
    }
  });

  it('keeps service paths and non-HTML requests as JSON 404s', async () => {
    for (const url of ['/api/nope', '/api', '/docsx', '/healthz', '/readyz', '/metrics']) {
      const response = await app.inject({ url, headers: HTML });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    const json = await app.inject({ url: '/markets/x', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('serves hashed assets with a year of immutable caching, and a missing asset is a 404', async () => {
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('javascript');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await app.inject({ url: '/assets/index-gone.js', headers: HTML });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('sends the pre-compressed copy of an asset to a browser that accepts it', async () => {
    const compressed = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(compressed.statusCode).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(compressed.headers['content-type']).toContain('javascript');
    expect(compressed.headers.vary).toContain('accept-encoding');
    expect(compressed.rawPayload.equals(brotliCompressSync('console.log(1)'))).toBe(true);
    const plain = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log(1)');
  });

  it('serves the other files at the top of the build', async () => {
    const icon = await app.inject({ url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toContain('image/svg+xml');
  });

  it('never serves files outside the build', async () => {
    for (const url of [
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/../package.json',
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).not.toBe(200);
      expect(response.body).not.toContain('"dependencies"');
    }
  });

  it('does not count the app files against the API rate limit', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await app.inject({ url: '/', headers: HTML })).statusCode).toBe(200);
      expect((await app.inject({ url: '/assets/index-abc123.js' })).statusCode).toBe(200);
    }
    await app.inject({ url: '/api/thing' });
    await app.inject({ url: '/api/thing' });
    expect((await app.inject({ url: '/api/thing' })).statusCode).toBe(429);
  });
});

describe('web app plugin before the app is built', () => {
  let app: FastifyInstance;
  let missing: string;

  beforeAll(async () => {
    missing = path.join(tmpdir(), `web-dist-missing-${process.pid}`);
    app = await serve(missing);
  });

  afterAll(() => app.close());

  it('answers / with a note on how to build it, as HTML or JSON', async () => {
    const page = await app.inject({ url: '/', headers: HTML });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('npm run build');
    const json = await app.inject({ url: '/', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ docs: '/docs', openapi: '/api/openapi.json' });
  });

  it('leaves every other path to the not-found handler', async () => {
    const response = await app.inject({ url: '/markets/x', headers: HTML });
    expect(response.statusCode).toBe(404);
  });
});

describe('web app inside the service', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });

  afterAll(() => t.close());

  it('answers /, and unknown API routes stay JSON 404s even for a browser', async () => {
    expect((await t.app.inject({ url: '/', headers: HTML })).statusCode).toBe(200);
    const unknown = await t.app.inject({ url: '/api/does-not-exist', headers: HTML });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'No route GET /api/does-not-exist', code: 'NOT_FOUND' });
    const post = await t.app.inject({ method: 'POST', url: '/markets/x', headers: HTML });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('sends a content security policy the app complies with, usable over plain http', async () => {
    const csp = (await t.app.inject({ url: '/', headers: HTML })).headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('keeps the API documentation and health routes', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/api/openapi.json' })).statusCode).toBe(200);
  });
});
