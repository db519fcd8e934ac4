import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newAdmin, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';

/** Feed URLs are fetched under the webhooks' address rules, and public answers never show them. */

let t: TestApp;
let admin: TestUser;
let local: Server;
let calls = 0;

beforeAll(async () => {
  local = createServer((_request, response) => {
    calls += 1;
    response.setHeader('content-type', 'application/rss+xml');
    response.end(
      '<rss><channel><title>Inside</title><item><title>Secret</title><link>https://x.example/s</link></item></channel></rss>',
    );
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await t.close();
  local.close();
});

it('refuses feeds on loopback, private and metadata addresses, and keeps their URLs out of the public answer', async () => {
  const port = (local.address() as AddressInfo).port;
  const event = await insertEvent(t.database, { title: 'Guarded feeds' });
  const feeds = [
    `http://127.0.0.1:${port}/feed.xml`,
    `http://[::127.0.0.1]:${port}/feed.xml`,
    'http://169.254.169.254/latest/meta-data/',
    `http://localhost:${port}/feed.xml`,
  ];
  const set = await t.app.inject({
    method: 'PUT',
    url: `/api/admin/events/${event.id}/news-sources`,
    headers: bearer(admin.token),
    payload: { feeds, query: 'guarded' },
  });
  expect(set.statusCode, set.body).toBe(200);
  const res = await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(body.items).toEqual([]);
  const reports = body.providers.filter((p: { name: string }) => p.name.startsWith('feed:'));
  expect(reports.map((p: { name: string }) => p.name)).toEqual(['feed:1', 'feed:2', 'feed:3', 'feed:4']);
  for (const report of reports)
    expect(report).toMatchObject({ status: 'error', message: expect.stringMatching(/refused/) });
  expect(res.body).not.toContain('127.0.0.1');
  expect(res.body).not.toContain('169.254');
  expect(res.body).not.toContain('localhost');
  expect(calls).toBe(0);
});
