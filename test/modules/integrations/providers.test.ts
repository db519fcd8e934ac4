import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCompletion } from '../../../src/modules/integrations/providers/ai.js';
import { parseLiveMatches } from '../../../src/modules/integrations/providers/cricket.js';
import { parseFeed } from '../../../src/modules/integrations/providers/feeds.js';
import { fetchProviderText, ProviderFailure } from '../../../src/modules/integrations/providers/http.js';
import { parseNewsSearch } from '../../../src/modules/integrations/providers/news-api.js';
import { ConfigError, loadConfig } from '../../../src/platform/config.js';
import { FakeProviders } from '../../support/fake-providers.js';

describe('feed parsing', () => {
  it('reads RSS 2.0 items with CDATA, entities, item sources and RFC 822 dates', () => {
    const xml = `<?xml version="1.0"?>
      <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
        <channel>
          <title>Sports &amp; More</title>
          <atom:link href="https://example.org/feed" rel="self"/>
          <item>
            <title><![CDATA[Kohli: &quot;We&#39;re ready&quot; <i>exclusive</i>]]></title>
            <link> https://example.org/a </link>
            <pubDate>Tue, 04 Mar 2025 10:30:00 +0530</pubDate>
          </item>
          <item>
            <title>Relayed story</title>
            <link>https://example.org/b</link>
            <source url="https://wire.example/rss">Wire Service</source>
          </item>
          <item><title>No link</title></item>
          <item><title>Mail link</title><link>mailto:x@example.org</link></item>
        </channel>
      </rss>`;
    expect(parseFeed(xml)).toEqual([
      {
        title: 'Kohli: "We\'re ready" exclusive',
        url: 'https://example.org/a',
        source: 'Sports & More',
        publishedAt: new Date('2025-03-04T05:00:00Z'),
      },
      { title: 'Relayed story', url: 'https://example.org/b', source: 'Wire Service', publishedAt: null },
    ]);
  });

  it('reads Atom entries: html titles, the alternate link, published before updated', () => {
    const xml = `<feed xmlns="http://www.w3.org/2005/Atom">
        <title type="text">Atom News</title>
        <entry>
          <title type="html">&lt;b&gt;Toss&lt;/b&gt; won by India</title>
          <link rel="self" href="https://atom.example/self/1"/>
          <link rel="alternate" type="text/html" href="https://atom.example/1"/>
          <published>2025-03-01T09:00:00Z</published>
          <updated>2025-03-01T12:00:00Z</updated>
        </entry>
        <entry>
          <title>From another source</title>
          <link href="https://atom.example/2"/>
          <updated>2025-03-02T00:00:00+05:30</updated>
          <source><title>Origin Feed</title></source>
        </entry>
      </feed>`;
    expect(parseFeed(xml)).toEqual([
      {
        title: 'Toss won by India',
        url: 'https://atom.example/1',
        source: 'Atom News',
        publishedAt: new Date('2025-03-01T09:00:00Z'),
      },
      {
        title: 'From another source',
        url: 'https://atom.example/2',
        source: 'Origin Feed',
        publishedAt: new Date('2025-03-01T18:30:00Z'),
      },
    ]);
  });

  it('reads RSS 1.0 (RDF) items with dc:date', () => {
    const xml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
        xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://rdf.example"><title>RDF Feed</title></channel>
        <item rdf:about="https://rdf.example/1"><title>Old style</title><link>https://rdf.example/1</link>
          <dc:date>2025-02-01T00:00:00Z</dc:date></item>
      </rdf:RDF>`;
    expect(parseFeed(xml)).toEqual([
      {
        title: 'Old style',
        url: 'https://rdf.example/1',
        source: 'RDF Feed',
        publishedAt: new Date('2025-02-01T00:00:00Z'),
      },
    ]);
  });

  it('accepts an empty feed and refuses what is not a feed', () => {
    expect(parseFeed('<rss version="2.0"><channel><title>Empty</title></channel></rss>')).toEqual([]);
    for (const [xml, message] of [
      ['<rss><channel><item><title>cut off', /not XML/],
      ['{"articles": []}', /not XML/],
      ['<html><body>Not found</body></html>', /neither RSS nor Atom/],
    ] as const) {
      expect(() => parseFeed(xml)).toThrow(message);
    }
  });
});

describe('provider answer parsing', () => {
  it('takes search articles with either source shape and skips unusable ones', () => {
    expect(
      parseNewsSearch({
        articles: [
          {
            title: 'One',
            url: 'https://n.example/1',
            source: { id: null, name: 'Paper' },
            publishedAt: '2025-01-01T00:00:00Z',
          },
          { title: 'Two', url: 'https://n.example/2', source: 'Blog', publishedAt: 'not a date' },
          { title: 'Three', url: 'https://n.example/3' },
          { title: 'No url' },
          'junk',
        ],
      }),
    ).toEqual([
      {
        title: 'One',
        url: 'https://n.example/1',
        source: 'Paper',
        publishedAt: new Date('2025-01-01T00:00:00Z'),
      },
      { title: 'Two', url: 'https://n.example/2', source: 'Blog', publishedAt: null },
      { title: 'Three', url: 'https://n.example/3', source: 'n.example', publishedAt: null },
    ]);
    for (const body of [null, [], { articles: 'none' }, { data: [] }]) {
      expect(() => parseNewsSearch(body)).toThrow(/malformed/);
    }
  });

  it('takes the first chat completion choice', () => {
    expect(
      parseCompletion({ choices: [{ message: { role: 'assistant', content: '  Two sentences.  ' } }] }),
    ).toBe('Two sentences.');
    for (const body of [
      {},
      { choices: [] },
      { choices: [{ message: { content: '' } }] },
      { error: { message: 'quota' } },
    ]) {
      expect(() => parseCompletion(body)).toThrow(/malformed/);
    }
  });

  it('takes live matches, normalising ids, scores and overs to text', () => {
    expect(
      parseLiveMatches({
        matches: [
          {
            id: 7,
            status: 'Live',
            teams: [{ name: 'A', score: 99, overs: 12.4 }, { name: 'B' }, { score: '1/0' }],
          },
          { id: 'x', teams: 'not a list' },
        ],
      }),
    ).toEqual([
      {
        id: '7',
        status: 'Live',
        startedAt: null,
        teams: [
          { name: 'A', score: '99', overs: '12.4' },
          { name: 'B', score: null, overs: null },
        ],
      },
    ]);
    expect(() => parseLiveMatches({ data: [] })).toThrow(/malformed/);
  });
});

describe('provider HTTP client', () => {
  let fake: FakeProviders;
  beforeAll(async () => {
    fake = await FakeProviders.start();
  });
  afterAll(() => fake.close());

  const options = { timeoutMs: 400, retries: 2 };
  const failureOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof ProviderFailure) return error;
      throw error;
    }
    throw new Error('expected a provider failure');
  };

  it('retries 5xx and 429 answers with back-off, then succeeds', async () => {
    fake.sequence('GET', '/retry', [
      { status: 502, body: 'bad gateway' },
      { status: 429, body: 'slow down' },
      { body: 'fine' },
    ]);
    // A generous deadline: the point is the retries, not the clock, and a busy machine must not fail it.
    expect(
      await fetchProviderText(
        { url: fake.url('/retry'), accept: 'text/plain' },
        { ...options, timeoutMs: 5000 },
      ),
    ).toBe('fine');
    expect(fake.count('GET', '/retry')).toBe(3);
  });

  it('gives up after the configured retries', async () => {
    fake.on('GET', '/down', { status: 500, body: 'down' });
    const failure = await failureOf(fetchProviderText({ url: fake.url('/down'), accept: '*/*' }, options));
    expect(failure).toMatchObject({ kind: 'error', message: 'answered HTTP 500' });
    expect(fake.count('GET', '/down')).toBe(3);
  });

  it('does not retry a 4xx answer', async () => {
    fake.on('GET', '/unauthorised', { status: 401, body: 'bad key' });
    const failure = await failureOf(
      fetchProviderText({ url: fake.url('/unauthorised'), accept: '*/*' }, options),
    );
    expect(failure.message).toBe('answered HTTP 401');
    expect(fake.count('GET', '/unauthorised')).toBe(1);
  });

  it('stops at the deadline, retries included', async () => {
    fake.on('GET', '/slow', { delayMs: 2000, body: 'late' });
    const started = Date.now();
    const failure = await failureOf(fetchProviderText({ url: fake.url('/slow'), accept: '*/*' }, options));
    expect(failure.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.count('GET', '/slow')).toBe(1);
  });

  it('reports an unreachable provider after retrying', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await failureOf(
      fetchProviderText(
        { url: `http://127.0.0.1:${port}/nothing`, accept: '*/*' },
        { timeoutMs: 2000, retries: 1 },
      ),
    );
    expect(failure.kind).toBe('error');
    expect(failure.message).toBe('unreachable (ECONNREFUSED)');
  });

  it('refuses an answer larger than the cap', async () => {
    fake.on('GET', '/huge', { body: 'x'.repeat(5000) });
    const failure = await failureOf(
      fetchProviderText({ url: fake.url('/huge'), accept: '*/*' }, { ...options, maxBytes: 1000 }),
    );
    expect(failure.message).toMatch(/larger than 1000 bytes/);
  });
});

describe('provider configuration', () => {
  const load = (env: Record<string, string>) => () => loadConfig({ NODE_ENV: 'test', ...env });

  it('is off by default, with the documented defaults', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(config).toMatchObject({
      newsApiUrl: null,
      ai: null,
      cricketApiUrl: null,
      providerTimeoutMs: 3000,
      providerRetries: 2,
      newsCacheSeconds: 600,
      cricketCacheSeconds: 5,
      flagsRefreshMs: 2000,
    });
  });

  it('reads a complete AI provider', () => {
    expect(load({ AI_BASE_URL: 'http://localhost:11434/v1', AI_MODEL: 'llama3' })().ai).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      apiKey: null,
      model: 'llama3',
      timeoutMs: 8000,
    });
  });

  it.each([
    [{ AI_BASE_URL: 'https://api.example/v1' }, /AI_MODEL is required/],
    [{ AI_MODEL: 'gpt' }, /AI_MODEL is set but AI_BASE_URL is not/],
    [{ AI_API_KEY: 'k' }, /AI_API_KEY is set but AI_BASE_URL is not/],
    [{ NEWS_API_KEY: 'k' }, /NEWS_API_KEY is set but NEWS_API_URL is not/],
    [{ CRICKET_API_KEY: 'k' }, /CRICKET_API_KEY is set but CRICKET_API_URL is not/],
    [{ NEWS_API_URL: 'ftp://news.example' }, /NEWS_API_URL must use http: or https:/],
    [{ PROVIDER_TIMEOUT_MS: '0' }, /PROVIDER_TIMEOUT_MS must be between/],
    [{ NEWS_CACHE_SECONDS: 'ten' }, /NEWS_CACHE_SECONDS must be an integer/],
  ])('refuses %j', (env, message) => {
    expect(load(env)).toThrow(ConfigError);
    expect(load(env)).toThrow(message);
  });
});
