import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SCREENSHOT_DIR, watchForErrors } from './support/browser.js';
import { type RunningServer, startServer } from './support/server.js';

const PASSWORD = 'correct horse battery';
/** The walk must fit the rate limit's window with room to spare. */
const WALK_LIMIT_MS = 60_000;

interface View {
  name: string;
  /** Goes there the way a person does: a link or a tab, never a reload. */
  go: (page: Page) => Promise<void>;
  /** What shows that the page is there. */
  ready: (page: Page) => Promise<boolean>;
}

const nav = (label: string) => async (page: Page) => {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: label, exact: true })
    .click();
};
const heading = (name: string | RegExp) => (page: Page) =>
  page.getByRole('heading', { level: 1, name }).isVisible();

/**
 * Reads the page to its end, as a person does: what loads below the fold is part of the view. A page still
 * taking its shape (a book arriving on the stream) grows after a scroll, so it is scrolled to its end again until
 * its height holds.
 */
async function readToTheEnd(page: Page): Promise<void> {
  let height = -1;
  for (let scrolls = 0; scrolls < 4; scrolls++) {
    const now = await page.evaluate<number>('document.documentElement.scrollHeight');
    if (now === height) return;
    height = now;
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    // The app watches what is below the fold a second after a page opens; after that a scroll is seen at once.
    await page.waitForTimeout(scrolls === 0 ? 1600 : 300);
    await page.waitForLoadState('networkidle');
  }
}

/**
 * One signed-in person clicking through 20 pages of the web app within a minute, under the default rate limit
 * (60 requests a minute): not one request is refused, and the API requests each page view makes are recorded
 * (test-results/walk.json; docs/features.md states them). Each page is scrolled to its end, so what loads below the
 * fold is counted too.
 */
describe('twenty page views in a minute', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  async function call<T>(method: string, url: string, token: string | null, body?: unknown): Promise<T> {
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  beforeAll(async () => {
    // The limit of a bot's keys, 60 requests a minute, held to the person's browser sessions: the web app is frugal
    // enough for it, whatever room the browsing budget leaves.
    [server, browser] = await Promise.all([
      startServer({ RATE_LIMIT_MAX: '60', RATE_LIMIT_BROWSE_MAX: '60' }),
      launchBrowser(),
    ]);
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('stays within the default rate limit, a few requests a page view', async () => {
    const stamp = Date.now() % 1_000_000;
    const walker = await call<{ token: string }>('POST', '/api/auth/register', null, {
      email: `walker${stamp}@e2e.example`,
      username: `walker${stamp}`,
      password: PASSWORD,
    });
    const ipl = await call<{ options: { id: string }[] }>('GET', '/api/events/ipl-2027-champion', null);
    // A trader with a position and an order: the portfolio and the market page have something to show.
    await call('POST', '/api/trades', walker.token, {
      optionId: ipl.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 20,
      priceCents: 40,
    });
    await call('POST', '/api/limit-orders', walker.token, {
      optionId: ipl.options[1]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      limitPriceCents: 5,
    });

    const problems = watchForErrors(page);
    const requests: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) requests.push(`${request.method()} ${url.pathname}${url.search}`);
    });
    page.on('websocket', (socket) => requests.push(`WS ${new URL(socket.url()).pathname}`));
    page.on('response', (response) => {
      if (response.status() === 429) refused.push(response.url());
    });

    const views: View[] = [
      {
        name: 'Markets (first load)',
        go: (p) => p.goto('/').then(() => undefined),
        ready: heading('Markets'),
      },
      {
        name: 'Market: IPL',
        go: (p) => p.getByRole('link', { name: 'Who will win IPL 2027?' }).first().click(),
        ready: heading(/IPL 2027/),
      },
      { name: 'Markets', go: nav('Markets'), ready: heading('Markets') },
      {
        name: 'Market: ODI',
        go: (p) =>
          p
            .getByRole('link', { name: /India vs Australia/ })
            .first()
            .click(),
        ready: heading(/India vs Australia/),
      },
      { name: 'Portfolio', go: nav('Portfolio'), ready: heading('Portfolio') },
      { name: 'Watchlist', go: nav('Watchlist'), ready: heading('Watchlist') },
      { name: 'Leaderboard', go: nav('Leaderboard'), ready: heading('Leaderboard') },
      { name: 'Tournaments', go: nav('Tournaments'), ready: heading('Tournaments') },
      {
        name: 'Tournament',
        go: (p) => p.getByRole('link', { name: 'Cricket and Economy Cup' }).first().click(),
        ready: heading('Cricket and Economy Cup'),
      },
      { name: 'Challenges', go: nav('Challenges'), ready: heading(/challenges/i) },
      { name: 'Progress', go: nav('Progress'), ready: heading('Your progress') },
      {
        name: 'Notifications',
        go: (p) => p.getByRole('link', { name: /Notifications/ }).click(),
        ready: heading('Notifications'),
      },
      { name: 'Markets', go: nav('Markets'), ready: heading('Markets') },
      {
        name: 'Market: RBI',
        go: (p) =>
          p
            .getByRole('link', { name: /RBI cut the repo rate/ })
            .first()
            .click(),
        ready: heading(/RBI/),
      },
      {
        name: 'Profile (from the discussion)',
        go: (p) =>
          p.getByRole('region', { name: 'Discussion' }).getByRole('link', { name: /asha/ }).first().click(),
        ready: (p) => p.getByRole('heading', { level: 2, name: 'Badges' }).isVisible(),
      },
      { name: 'Copy trading', go: nav('Copy trading'), ready: heading(/Copy trading/i) },
      {
        name: 'Account',
        go: (p) => p.getByRole('link', { name: new RegExp(`walker${stamp}`) }).click(),
        ready: heading(/Account/),
      },
      { name: 'Portfolio', go: nav('Portfolio'), ready: heading('Portfolio') },
      { name: 'Markets', go: nav('Markets'), ready: heading('Markets') },
      {
        name: 'Market: IPL again',
        go: (p) => p.getByRole('link', { name: 'Who will win IPL 2027?' }).first().click(),
        ready: heading(/IPL 2027/),
      },
    ];

    await page.goto('/no-page-yet');
    await page.evaluate(`localStorage.setItem('pmx.session', ${JSON.stringify(walker.token)})`);
    const perView: { view: string; requests: string[] }[] = [];
    const started = Date.now();
    for (const view of views) {
      const before = requests.length;
      await view.go(page);
      await expect.poll(() => view.ready(page)).toBe(true);
      await readToTheEnd(page);
      perView.push({ view: view.name, requests: requests.slice(before) });
    }
    const elapsed = Date.now() - started;

    const counts = perView.map((entry) => entry.requests.length);
    const total = counts.reduce((sum, count) => sum + count, 0);
    const report = { elapsedMs: elapsed, total, perView };
    mkdirSync(path.join(SCREENSHOT_DIR, '..'), { recursive: true });
    writeFileSync(path.join(SCREENSHOT_DIR, '..', 'walk.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `walk: ${views.length} page views in ${(elapsed / 1000).toFixed(1)} s, ${total} API requests ` +
        `(${perView.map((entry, i) => `${entry.view} ${counts[i]}`).join(', ')})\n`,
    );

    expect(refused).toEqual([]);
    expect(elapsed).toBeLessThan(WALK_LIMIT_MS);
    expect(total).toBeLessThan(60);
    // Nothing is asked twice within a page view.
    for (const entry of perView) {
      const reads = entry.requests.filter((request) => request.startsWith('GET '));
      expect(new Set(reads).size, `${entry.view}: ${reads.join(', ')}`).toBe(reads.length);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
