import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp, type TestDatabase } from '../../support/app.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { atom, FakeProviders, rss } from '../../support/fake-providers.js';
import { insertEvent, type TestEvent } from '../../support/markets.js';

const TIMEOUT_MS = 300;

let fake: FakeProviders;
let t: TestApp & { testDatabase: TestDatabase };
let admin: TestUser;

/** The search API answers per query, so each test picks its own query and never sees another test's cache. */
const searchAnswers = new Map<string, Parameters<FakeProviders['on']>[2]>();

function providerEnv(): Record<string, string> {
  return {
    NEWS_API_URL: fake.url('/news/search?language=en'),
    NEWS_API_KEY: 'news-key',
    AI_BASE_URL: fake.url('/ai/v1/'),
    AI_API_KEY: 'ai-key',
    AI_MODEL: 'summary-model',
    AI_TIMEOUT_MS: String(TIMEOUT_MS),
    CRICKET_API_URL: fake.url('/cricket/live'),
    CRICKET_API_KEY: 'cricket-key',
    CRICKET_CACHE_SECONDS: '1',
    PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS),
  };
}

function summaryOf(body: string): string {
  const prompt = JSON.parse(body).messages[1].content as string;
  return `Summary of ${prompt.split('\n').filter((line) => line.startsWith('- ')).length} headlines.`;
}

beforeAll(async () => {
  fake = await FakeProviders.start();
  fake.on('GET', '/news/search', (request) => {
    const answer = searchAnswers.get(request.query.get('q') ?? '');
    if (!answer) return { body: { articles: [] } };
    return typeof answer === 'function' ? answer(request) : answer;
  });
  fake.on('POST', '/ai/v1/chat/completions', (request) => ({
    body: { choices: [{ message: { role: 'assistant', content: summaryOf(request.body) } }] },
  }));
  t = await createTestApp({ env: providerEnv() });
  admin = await newAdmin(t.app);
});

afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
  await fake.close();
});

async function setSources(app: TestApp, event: TestEvent, body: { feeds: string[]; query?: string }) {
  const res = await app.app.inject({
    method: 'PUT',
    url: `/api/admin/events/${event.id}/news-sources`,
    headers: bearer(admin.token),
    payload: body,
  });
  expect(res.statusCode).toBe(200);
}

function providerStatus(
  body: { providers: { name: string; status: string; message?: string }[] },
  name: string,
) {
  return body.providers.find((p) => p.name === name);
}

describe('market news with providers', () => {
  it('merges the search API, a feed and admin items, newest first, with an AI summary', async () => {
    const event = await insertEvent(t.database, { title: 'Will India win the final?' });
    searchAnswers.set('india final', {
      body: {
        articles: [
          {
            title: 'India squad named',
            url: 'https://news.example/squad',
            source: { name: 'Daily Cricket' },
            publishedAt: '2025-03-01T10:00:00Z',
          },
          {
            title: 'Shared story',
            url: 'https://news.example/shared',
            source: 'Wire',
            publishedAt: '2025-03-02T00:00:00Z',
          },
          { title: '', url: 'https://news.example/untitled' },
          { title: 'Bad link', url: 'javascript:alert(1)' },
        ],
      },
    });
    fake.on('GET', '/feeds/one.xml', {
      contentType: 'application/rss+xml',
      body: rss(
        [
          {
            title: 'Pitch report &amp; <b>weather</b>',
            link: 'https://feed.example/pitch',
            pubDate: 'Mon, 03 Mar 2025 08:00:00 GMT',
          },
          {
            title: 'Shared story (feed copy)',
            link: 'https://news.example/shared',
            pubDate: 'Sun, 02 Mar 2025 00:00:00 GMT',
          },
        ],
        'Feed One',
      ),
    });
    await setSources(t, event, { feeds: [fake.url('/feeds/one.xml')], query: 'india final' });
    const attached = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/news`,
      headers: bearer(admin.token),
      payload: {
        title: 'Official preview',
        url: 'https://board.example/preview',
        source: 'Board',
        publishedAt: '2025-02-28T00:00:00Z',
      },
    });
    expect(attached.statusCode).toBe(201);

    const res = await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toEqual([
      {
        title: 'Pitch report & weather',
        source: 'Feed One',
        url: 'https://feed.example/pitch',
        publishedAt: '2025-03-03T08:00:00.000Z',
        origin: 'feed',
      },
      {
        title: 'Shared story (feed copy)',
        source: 'Feed One',
        url: 'https://news.example/shared',
        publishedAt: '2025-03-02T00:00:00.000Z',
        origin: 'feed',
      },
      {
        title: 'India squad named',
        source: 'Daily Cricket',
        url: 'https://news.example/squad',
        publishedAt: '2025-03-01T10:00:00.000Z',
        origin: 'api',
      },
      {
        id: attached.json().id,
        title: 'Official preview',
        source: 'Board',
        url: 'https://board.example/preview',
        publishedAt: '2025-02-28T00:00:00.000Z',
        origin: 'admin',
      },
    ]);
    expect(body.summary).toBe('Summary of 4 headlines.');
    expect(providerStatus(body, 'newsApi')?.status).toBe('ok');
    expect(providerStatus(body, 'feed:1')?.status).toBe('ok');
    expect(providerStatus(body, 'aiSummary')?.status).toBe('ok');
    expect(Date.parse(body.fetchedAt)).not.toBeNaN();

    const search = fake.received.find((r) => r.path === '/news/search' && r.query.get('q') === 'india final');
    expect(search?.headers['x-api-key']).toBe('news-key');
    expect(search?.query.get('language')).toBe('en');
    const ai = fake.received.filter((r) => r.path === '/ai/v1/chat/completions').at(-1);
    expect(ai?.headers.authorization).toBe('Bearer ai-key');
    expect(JSON.parse(ai?.body ?? '{}').model).toBe('summary-model');
  });

  it('serves a repeat from the cache and reuses the stored summary, also on another instance', async () => {
    const event = await insertEvent(t.database, { title: 'Cache me' });
    searchAnswers.set('cache me', {
      body: {
        articles: [
          {
            title: 'Cached story',
            url: 'https://news.example/cached',
            source: 'Wire',
            publishedAt: '2025-01-01T00:00:00Z',
          },
        ],
      },
    });
    await setSources(t, event, { feeds: [], query: 'cache me' });
    const searches = () => fake.received.filter((r) => r.query.get('q') === 'cache me').length;
    const aiCalls = () => fake.count('POST', '/ai/v1/chat/completions');

    const first = (await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
    const aiAfterFirst = aiCalls();
    expect(first.summary).toBe('Summary of 1 headlines.');
    const second = (await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
    expect(second.items).toEqual(first.items);
    expect(second.summary).toBe(first.summary);
    expect(providerStatus(second, 'newsApi')?.status).toBe('cached');
    expect(providerStatus(second, 'aiSummary')?.status).toBe('cached');
    expect(searches()).toBe(1);
    expect(aiCalls()).toBe(aiAfterFirst);

    const other = await createTestApp({ database: t.testDatabase, env: providerEnv() });
    try {
      const third = (await other.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
      expect(providerStatus(third, 'newsApi')?.status).toBe('ok');
      expect(searches()).toBe(2);
      expect(third.summary).toBe(first.summary);
      expect(providerStatus(third, 'aiSummary')?.status).toBe('cached');
      expect(aiCalls()).toBe(aiAfterFirst);
    } finally {
      await other.close();
    }
  });

  it('answers in time with what it has when a provider times out', async () => {
    const event = await insertEvent(t.database, { title: 'Slow news' });
    searchAnswers.set('slow news', { delayMs: 3000, body: { articles: [] } });
    fake.on('GET', '/feeds/fast.xml', {
      contentType: 'application/rss+xml',
      body: rss([
        { title: 'Fast item', link: 'https://feed.example/fast', pubDate: 'Tue, 04 Mar 2025 08:00:00 GMT' },
      ]),
    });
    await setSources(t, event, { feeds: [fake.url('/feeds/fast.xml')], query: 'slow news' });

    const started = Date.now();
    const res = await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items.map((i: { url: string }) => i.url)).toEqual(['https://feed.example/fast']);
    expect(providerStatus(body, 'newsApi')).toMatchObject({ status: 'timeout', fetchedAt: null });
    expect(providerStatus(body, 'newsApi')?.message).toMatch(/300 ms/);
    expect(body.summary).toBe('Summary of 1 headlines.');

    // A provider that just failed is not waited for again on the next request.
    const again = Date.now();
    const repeat = (await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
    expect(Date.now() - again).toBeLessThan(TIMEOUT_MS);
    expect(providerStatus(repeat, 'newsApi')?.status).toBe('timeout');
  });

  it('reports a timed-out AI summary as null without failing the request', async () => {
    const event = await insertEvent(t.database, { title: 'Slow summary' });
    searchAnswers.set('slow summary', {
      body: {
        articles: [{ title: 'Needs a summary', url: 'https://news.example/slow-summary', source: 'Wire' }],
      },
    });
    await setSources(t, event, { feeds: [], query: 'slow summary' });
    fake.on('POST', '/ai/v1/chat/completions', { delayMs: 3000, body: {} });
    try {
      const res = await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` });
      expect(res.statusCode).toBe(200);
      expect(res.json().items).toHaveLength(1);
      expect(res.json().items[0].publishedAt).toBeNull();
      expect(res.json().summary).toBeNull();
      expect(providerStatus(res.json(), 'aiSummary')?.status).toBe('timeout');
    } finally {
      fake.on('POST', '/ai/v1/chat/completions', (request) => ({
        body: { choices: [{ message: { role: 'assistant', content: summaryOf(request.body) } }] },
      }));
    }
  });

  it('reports malformed provider answers as errors and keeps the rest', async () => {
    const event = await insertEvent(t.database, { title: 'Broken providers' });
    searchAnswers.set('broken', { body: { status: 'ok', results: [{ title: 'not in articles' }] } });
    fake.on('GET', '/feeds/not-xml.xml', { contentType: 'application/rss+xml', body: '{"this": "is json"}' });
    fake.on('GET', '/feeds/html.xml', {
      contentType: 'text/html',
      body: '<html><body><p>hi</p></body></html>',
    });
    fake.on('GET', '/feeds/ok.xml', {
      contentType: 'application/atom+xml',
      body: atom([
        { title: 'Survivor', link: 'https://atom.example/survivor', updated: '2025-03-05T00:00:00Z' },
      ]),
    });
    fake.on('GET', '/feeds/gone.xml', { status: 404, body: 'gone' });
    await setSources(t, event, {
      feeds: [
        fake.url('/feeds/not-xml.xml'),
        fake.url('/feeds/html.xml'),
        fake.url('/feeds/ok.xml'),
        fake.url('/feeds/gone.xml'),
      ],
      query: 'broken',
    });
    fake.on('POST', '/ai/v1/chat/completions', { body: { choices: [] } });
    try {
      const res = await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.items.map((i: { title: string }) => i.title)).toEqual(['Survivor']);
      expect(providerStatus(body, 'newsApi')).toMatchObject({ status: 'error' });
      expect(providerStatus(body, 'newsApi')?.message).toMatch(/malformed/);
      expect(providerStatus(body, 'feed:1')?.message).toMatch(/malformed.*not XML/);
      expect(providerStatus(body, 'feed:2')?.message).toMatch(/neither RSS nor Atom/);
      expect(providerStatus(body, 'feed:3')?.status).toBe('ok');
      expect(providerStatus(body, 'feed:4')).toMatchObject({
        status: 'error',
        message: 'answered HTTP 404',
      });
      expect(body.summary).toBeNull();
      expect(providerStatus(body, 'aiSummary')?.message).toMatch(/malformed/);
    } finally {
      fake.on('POST', '/ai/v1/chat/completions', (request) => ({
        body: { choices: [{ message: { role: 'assistant', content: summaryOf(request.body) } }] },
      }));
    }
  });

  it('retries a provider that answers 503 once', async () => {
    const event = await insertEvent(t.database, { title: 'Flaky' });
    fake.sequence('GET', '/feeds/flaky.xml', [
      { status: 503, body: 'busy' },
      {
        contentType: 'application/rss+xml',
        body: rss([{ title: 'Second try', link: 'https://feed.example/second' }]),
      },
    ]);
    await setSources(t, event, { feeds: [fake.url('/feeds/flaky.xml')], query: 'flaky' });
    const body = (await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
    expect(providerStatus(body, 'feed:1')?.status).toBe('ok');
    expect(body.items.map((i: { title: string }) => i.title)).toEqual(['Second try']);
    expect(fake.count('GET', '/feeds/flaky.xml')).toBe(2);
  });

  it('uses the event title as the search query by default, and skips the summary when the flag is off', async () => {
    const event = await insertEvent(t.database, { title: 'Default query event' });
    searchAnswers.set('Default query event', {
      body: { articles: [{ title: 'Found by title', url: 'https://news.example/by-title', source: 'Wire' }] },
    });
    const off = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/newsSummary',
      headers: bearer(admin.token),
      payload: { enabled: false },
    });
    expect(off.statusCode).toBe(200);
    try {
      const body = (await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
      expect(body.items.map((i: { title: string }) => i.title)).toEqual(['Found by title']);
      expect(body.summary).toBeNull();
      expect(providerStatus(body, 'aiSummary')).toMatchObject({ status: 'not_configured' });
      expect(providerStatus(body, 'aiSummary')?.message).toMatch(/newsSummary/);
    } finally {
      await t.app.inject({
        method: 'PUT',
        url: '/api/admin/flags/newsSummary',
        headers: bearer(admin.token),
        payload: { enabled: true },
      });
    }
  });

  it('answers 404 for an unknown or draft market', async () => {
    const draft = await insertEvent(t.database, { status: 'draft' });
    for (const slug of ['no-such-market', draft.slug]) {
      for (const path of ['news', 'sponsor']) {
        const res = await t.app.inject({ url: `/api/events/by-slug/${slug}/${path}` });
        expect(res.statusCode).toBe(404);
        expect(res.json().code).toBe('NOT_FOUND');
      }
    }
  });
});

describe('admin news management', () => {
  let event: TestEvent;
  let trader: TestUser;
  beforeAll(async () => {
    event = await insertEvent(t.database);
    trader = await newUser(t.app);
  });

  const attach = (payload: object, token = admin.token, id: number = event.id) =>
    t.app.inject({ method: 'POST', url: `/api/admin/events/${id}/news`, headers: bearer(token), payload });

  it('attaches, refuses duplicates and bad input, and removes items', async () => {
    const created = await attach({ title: 'Admin pick', url: 'https://x.example/pick', source: 'Desk' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ title: 'Admin pick', origin: 'admin', source: 'Desk' });
    expect(Date.parse(created.json().publishedAt)).not.toBeNaN();

    const duplicate = await attach({ title: 'Again', url: 'https://x.example/pick', source: 'Desk' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().code).toBe('NEWS_ITEM_EXISTS');

    for (const payload of [
      { title: 'Script', url: 'javascript:alert(1)', source: 'Desk' },
      { title: 'Relative', url: '/relative', source: 'Desk' },
      { title: '', url: 'https://x.example/empty', source: 'Desk' },
      { title: 'No source', url: 'https://x.example/nosource' },
      { title: 'Bad date', url: 'https://x.example/date', source: 'Desk', publishedAt: 'yesterday' },
      { title: 'Extra', url: 'https://x.example/extra', source: 'Desk', pinned: true },
    ]) {
      const res = await attach(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    expect(
      (await attach({ title: 'T', url: 'https://x.example/t', source: 'S' }, trader.token)).statusCode,
    ).toBe(403);
    expect(
      (await attach({ title: 'T', url: 'https://x.example/t', source: 'S' }, admin.token, 999999)).statusCode,
    ).toBe(404);

    const id = created.json().id;
    const remove = (itemId: string) =>
      t.app.inject({
        method: 'DELETE',
        url: `/api/admin/events/${event.id}/news/${itemId}`,
        headers: bearer(admin.token),
      });
    expect((await remove(id)).statusCode).toBe(204);
    expect((await remove(id)).statusCode).toBe(404);
    const news = (await t.app.inject({ url: `/api/events/by-slug/${event.slug}/news` })).json();
    expect(news.items.find((i: { url: string }) => i.url === 'https://x.example/pick')).toBeUndefined();
  });

  it('caps attached items per event', async () => {
    const other = await insertEvent(t.database);
    for (let i = 0; i < 20; i++) {
      expect(
        (
          await attach(
            { title: `Item ${i}`, url: `https://cap.example/${i}`, source: 'S' },
            admin.token,
            other.id,
          )
        ).statusCode,
      ).toBe(201);
    }
    const over = await attach(
      { title: 'One too many', url: 'https://cap.example/21', source: 'S' },
      admin.token,
      other.id,
    );
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe('TOO_MANY_NEWS_ITEMS');
  });

  it('stores news sources, normalised, and validates them', async () => {
    const put = (payload: object, id: number = event.id) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/admin/events/${id}/news-sources`,
        headers: bearer(admin.token),
        payload,
      });
    const saved = await put({
      feeds: ['https://a.example/rss', 'https://a.example/rss', 'http://b.example/atom'],
      query: '  ',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({
      eventId: String(event.id),
      feeds: ['https://a.example/rss', 'http://b.example/atom'],
      query: null,
    });
    const read = await t.app.inject({
      url: `/api/admin/events/${event.id}/news-sources`,
      headers: bearer(admin.token),
    });
    expect(read.json().feeds).toEqual(['https://a.example/rss', 'http://b.example/atom']);
    expect((await put({ feeds: ['ftp://a.example/rss'] })).statusCode).toBe(400);
    expect(
      (await put({ feeds: Array.from({ length: 11 }, (_, i) => `https://f.example/${i}`) })).statusCode,
    ).toBe(400);
    expect((await put({ feeds: [] }, 999999)).statusCode).toBe(404);
  });
});

describe('sponsors', () => {
  it('is null until an admin sets one, then shown, replaced and removed', async () => {
    const event = await insertEvent(t.database);
    const get = () => t.app.inject({ url: `/api/events/by-slug/${event.slug}/sponsor` });
    const put = (payload: object) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/admin/events/${event.id}/sponsor`,
        headers: bearer(admin.token),
        payload,
      });
    const remove = () =>
      t.app.inject({
        method: 'DELETE',
        url: `/api/admin/events/${event.id}/sponsor`,
        headers: bearer(admin.token),
      });

    expect((await get()).json()).toEqual({ sponsor: null });
    const sponsor = {
      name: 'Acme Bats',
      logoUrl: 'https://cdn.example/acme.png',
      linkUrl: 'https://acme.example/?utm=market',
      disclosure: 'Sponsored by Acme Bats. Sponsors do not influence resolution.',
    };
    expect((await put(sponsor)).statusCode).toBe(200);
    expect((await get()).json().sponsor).toMatchObject(sponsor);
    expect((await put({ ...sponsor, name: 'Acme Balls' })).json().sponsor.name).toBe('Acme Balls');

    for (const bad of [
      { ...sponsor, logoUrl: 'javascript:alert(1)' },
      { ...sponsor, linkUrl: 'data:text/html,hi' },
      { ...sponsor, disclosure: '' },
      { name: 'No links', disclosure: 'x' },
    ]) {
      const res = await put(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    const trader = await newUser(t.app);
    const forbidden = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/events/${event.id}/sponsor`,
      headers: bearer(trader.token),
      payload: sponsor,
    });
    expect(forbidden.statusCode).toBe(403);

    expect((await remove()).statusCode).toBe(204);
    expect((await get()).json()).toEqual({ sponsor: null });
    expect((await remove()).statusCode).toBe(404);
  });
});

describe('live cricket with a provider', () => {
  beforeEach(() => {
    fake.on('GET', '/cricket/live', {
      body: {
        matches: [
          {
            id: 'm-101',
            status: 'Live',
            startedAt: '2025-03-09T09:00:00Z',
            teams: [
              { name: 'India', score: '145/3', overs: 17.2 },
              { name: 'Australia', score: null, overs: null },
            ],
          },
          { id: 202, status: 'Innings break', teams: [{ name: 'England', score: '201/8', overs: '20' }] },
          { status: 'no id, skipped', teams: [] },
        ],
      },
    });
  });

  it('lists matches with scores and the markets linked to them', async () => {
    const event = await insertEvent(t.database, { title: 'India v Australia: India to win?' });
    const draft = await insertEvent(t.database, { status: 'draft' });
    for (const e of [event, draft]) {
      const link = await t.app.inject({
        method: 'PUT',
        url: `/api/admin/events/${e.id}/cricket-match`,
        headers: bearer(admin.token),
        payload: { matchId: 'm-101' },
      });
      expect(link.statusCode).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await t.app.inject({ url: '/api/cricket/live' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.matches).toEqual([
      {
        id: 'm-101',
        status: 'Live',
        startedAt: '2025-03-09T09:00:00.000Z',
        teams: [
          { name: 'India', score: '145/3', overs: '17.2' },
          { name: 'Australia', score: null, overs: null },
        ],
        events: [{ id: String(event.id), slug: event.slug, title: 'India v Australia: India to win?' }],
      },
      {
        id: '202',
        status: 'Innings break',
        teams: [{ name: 'England', score: '201/8', overs: '20' }],
        events: [],
      },
    ]);
    expect(Date.parse(body.fetchedAt)).not.toBeNaN();
    expect(body.provider.status).toMatch(/ok|cached/);
    const call = fake.received.filter((r) => r.path === '/cricket/live').at(-1);
    expect(call?.headers['x-api-key']).toBe('cricket-key');

    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/admin/events/${event.id}/cricket-match`,
          headers: bearer(admin.token),
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/api/admin/events/999999/cricket-match',
          headers: bearer(admin.token),
          payload: { matchId: 'x' },
        })
      ).statusCode,
    ).toBe(404);
  });

  it('keeps serving the last scores, flagged, when the provider starts failing', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const fresh = (await t.app.inject({ url: '/api/cricket/live' })).json();
    expect(fresh.provider.status).toBe('ok');
    fake.on('GET', '/cricket/live', { body: '<html>maintenance</html>', contentType: 'text/html' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await t.app.inject({ url: '/api/cricket/live' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.provider.status).toBe('error');
    expect(body.provider.message).toMatch(/malformed/);
    expect(body.matches.map((m: { id: string }) => m.id)).toEqual(['m-101', '202']);
    expect(body.fetchedAt).toBe(fresh.fetchedAt);
  });

  it('shows cricketLive once the operator switches it on', async () => {
    expect((await t.app.inject({ url: '/api/flags' })).json().cricketLive).toBe(false);
    await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/cricketLive',
      headers: bearer(admin.token),
      payload: { enabled: true },
    });
    expect((await t.app.inject({ url: '/api/flags' })).json().cricketLive).toBe(true);
  });
});

describe('payments before launch', () => {
  let trader: TestUser;
  beforeAll(async () => {
    trader = await newUser(t.app);
  });

  const journalEntries = async () => {
    const row = await t.database.db
      .selectFrom('journal_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const post = (path: string, payload: object, token: string | null = trader.token) =>
    t.app.inject({ method: 'POST', url: path, headers: token ? bearer(token) : {}, payload });

  it('lists the methods per mode', async () => {
    const deposit = await t.app.inject({ url: '/api/payment-gateways?mode=deposit' });
    expect(deposit.statusCode).toBe(200);
    expect(deposit.json().data.map((m: { id: string }) => m.id)).toEqual([
      'upi',
      'card',
      'netbanking',
      'wallet',
    ]);
    expect(deposit.json().data[0]).toEqual({
      id: 'upi',
      name: 'UPI',
      type: 'UPI',
      minCents: 10_000,
      maxCents: 10_000_000,
      enabled: true,
      feeBps: 0,
    });
    const withdrawal = (await t.app.inject({ url: '/api/payment-gateways?mode=withdrawal' })).json();
    expect(withdrawal.data.map((m: { id: string; enabled: boolean }) => [m.id, m.enabled])).toEqual([
      ['upi', true],
      ['card', false],
      ['netbanking', true],
    ]);
    expect((await t.app.inject({ url: '/api/payment-gateways' })).json()).toEqual(deposit.json());
    expect((await t.app.inject({ url: '/api/payment-gateways?mode=refund' })).statusCode).toBe(400);
  });

  it('needs authentication', async () => {
    expect((await post('/api/deposits', { amountCents: 50_000, methodId: 'upi' }, null)).statusCode).toBe(
      401,
    );
    expect(
      (await post('/api/withdrawals', { amountCents: 50_000, methodId: 'upi', upiId: 'me@okbank' }, null))
        .statusCode,
    ).toBe(401);
  });

  it.each([
    ['/api/deposits', { amountCents: '50000', methodId: 'upi' }, 'body.amountCents'],
    ['/api/deposits', { amountCents: 500.5, methodId: 'upi' }, 'body.amountCents'],
    ['/api/deposits', { amountCents: 0, methodId: 'upi' }, 'body.amountCents'],
    ['/api/deposits', { methodId: 'upi' }, 'body.amountCents'],
    ['/api/deposits', { amountCents: 50_000, methodId: 'bitcoin' }, 'body.methodId'],
    ['/api/deposits', { amountCents: 9_999, methodId: 'upi' }, 'body.amountCents'],
    ['/api/deposits', { amountCents: 10_000_001, methodId: 'upi' }, 'body.amountCents'],
    ['/api/deposits', { amountCents: 50_000, methodId: 'wallet' }, 'body.methodId'],
    ['/api/deposits', { amountCents: 50_000, methodId: 'upi', note: 'hi' }, 'body.note'],
    ['/api/withdrawals', { amountCents: 50_000, methodId: 'card' }, 'body.methodId'],
    ['/api/withdrawals', { amountCents: 50_000, methodId: 'wallet' }, 'body.methodId'],
    ['/api/withdrawals', { amountCents: 50_000, methodId: 'upi' }, 'body.upiId'],
    ['/api/withdrawals', { amountCents: 50_000, methodId: 'upi', upiId: 'not a upi id' }, 'body.upiId'],
    ['/api/withdrawals', { amountCents: 10_000, methodId: 'upi', upiId: 'me@okbank' }, 'body.amountCents'],
    [
      '/api/withdrawals',
      { amountCents: 60_000, methodId: 'netbanking', upiId: 'me@okbank' },
      'body.bankAccount',
    ],
    [
      '/api/withdrawals',
      {
        amountCents: 60_000,
        methodId: 'netbanking',
        bankAccount: { accountNumber: '12', ifsc: 'HDFC0001234', holderName: 'A' },
      },
      'body.bankAccount.accountNumber',
    ],
  ])('POST %s %j is a 400 naming %s, and writes nothing', async (path, payload, field) => {
    const before = await journalEntries();
    const res = await post(path, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await journalEntries()).toBe(before);
  });

  it('refuses valid requests with 503 FEATURE_DISABLED while the flags are off, writing nothing', async () => {
    const before = await journalEntries();
    const deposit = await post('/api/deposits', { amountCents: 50_000, methodId: 'upi' });
    expect(deposit.statusCode).toBe(503);
    expect(deposit.json().code).toBe('FEATURE_DISABLED');
    for (const payload of [
      { amountCents: 50_000, methodId: 'upi', upiId: 'trader.one@okbank' },
      {
        amountCents: 60_000,
        methodId: 'netbanking',
        bankAccount: { accountNumber: '123456789012', ifsc: 'HDFC0001234', holderName: 'A Trader' },
      },
    ]) {
      const res = await post('/api/withdrawals', payload);
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('FEATURE_DISABLED');
    }
    expect(await journalEntries()).toBe(before);
    const me = (await t.app.inject({ url: '/api/auth/me', headers: bearer(trader.token) })).json();
    expect(me.balance.cashCents).toBe(100_000);
  });

  it('answers 503 PROVIDER_NOT_CONFIGURED with the flags on, still writing nothing', async () => {
    for (const key of ['deposits', 'withdrawals']) {
      await t.app.inject({
        method: 'PUT',
        url: `/api/admin/flags/${key}`,
        headers: bearer(admin.token),
        payload: { enabled: true },
      });
    }
    try {
      const before = await journalEntries();
      const deposit = await post('/api/deposits', { amountCents: 50_000, methodId: 'card' });
      expect(deposit.statusCode).toBe(503);
      expect(deposit.json().code).toBe('PROVIDER_NOT_CONFIGURED');
      const withdrawal = await post('/api/withdrawals', {
        amountCents: 50_000,
        methodId: 'upi',
        upiId: 'me@okbank',
      });
      expect(withdrawal.json().code).toBe('PROVIDER_NOT_CONFIGURED');
      expect((await post('/api/deposits', { amountCents: 1, methodId: 'upi' })).statusCode).toBe(400);
      expect(await journalEntries()).toBe(before);
    } finally {
      for (const key of ['deposits', 'withdrawals']) {
        await t.app.inject({
          method: 'PUT',
          url: `/api/admin/flags/${key}`,
          headers: bearer(admin.token),
          payload: { enabled: false },
        });
      }
    }
  });
});

describe('without any provider configured', () => {
  let bare: TestApp;
  let bareAdmin: TestUser;
  beforeAll(async () => {
    bare = await createTestApp();
    bareAdmin = await newAdmin(bare.app);
  });
  afterAll(() => bare.close());

  it('returns the stored items and no summary', async () => {
    const event = await insertEvent(bare.database);
    await bare.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/news`,
      headers: bearer(bareAdmin.token),
      payload: { title: 'Stored only', url: 'https://stored.example/1', source: 'Desk' },
    });
    const res = await bare.app.inject({ url: `/api/events/by-slug/${event.slug}/news` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ title: 'Stored only', origin: 'admin' });
    expect(body.summary).toBeNull();
    expect(body.providers).toEqual([
      { name: 'newsApi', status: 'not_configured', fetchedAt: null },
      { name: 'aiSummary', status: 'not_configured', fetchedAt: null },
    ]);
  });

  it('answers cricket with 503 PROVIDER_NOT_CONFIGURED and keeps cricketLive false', async () => {
    const res = await bare.app.inject({ url: '/api/cricket/live' });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('PROVIDER_NOT_CONFIGURED');
    await bare.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/cricketLive',
      headers: bearer(bareAdmin.token),
      payload: { enabled: true },
    });
    expect((await bare.app.inject({ url: '/api/flags' })).json().cricketLive).toBe(false);
  });
});

describe('API documentation', () => {
  it('describes every integration endpoint', async () => {
    const paths = Object.keys((await t.app.inject({ url: '/api/openapi.json' })).json().paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/flags',
        '/api/admin/flags/{key}',
        '/api/events/by-slug/{slug}/news',
        '/api/events/by-slug/{slug}/sponsor',
        '/api/admin/events/{id}/news-sources',
        '/api/admin/events/{id}/news/{itemId}',
        '/api/admin/events/{id}/cricket-match',
        '/api/cricket/live',
        '/api/payment-gateways',
        '/api/deposits',
        '/api/withdrawals',
      ]),
    );
  });
});
