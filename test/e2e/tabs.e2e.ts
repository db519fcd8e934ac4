import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './support/browser.js';
import { type RunningServer, startServer } from './support/server.js';

const MARKETS = [
  'ind-vs-aus-1st-odi',
  'ipl-2027-champion',
  'rbi-repo-rate-cut-february',
  'india-cpi-below-4-percent',
  'maharashtra-turnout-over-65',
];

/**
 * A person who opens twenty markets in new tabs within a minute (a middle-click on each market card): every tab is a
 * cold load with an empty cache, under the default limits (the keys' 60 a minute, the browsing budget's 300).
 */
describe('twenty markets opened in new tabs', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ RATE_LIMIT_MAX: '60' }), launchBrowser()]);
    const stamp = Date.now() % 1_000_000;
    const response = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `tabs${stamp}@e2e.example`, password: 'correct horse battery' }),
    });
    const { token } = (await response.json()) as { token: string };
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(20_000);
    await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(token)})`);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('loads every one without a 429', async () => {
    const statuses: number[] = [];
    context.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/api/')) statuses.push(response.status());
    });
    const started = Date.now();
    // One tab every two seconds, as a person middle-clicks down a list: each loads while the next ones open.
    const loads = [];
    for (let index = 0; index < 20; index++) {
      loads.push(
        (async () => {
          const tab = await context.newPage();
          await tab.goto(`/markets/${MARKETS[index % MARKETS.length]}`, { timeout: 120_000 });
          await tab.getByRole('region', { name: 'Trade', exact: true }).waitFor({ timeout: 120_000 });
          return tab;
        })(),
      );
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const opened = (Date.now() - started) / 1000;
    const tabs = await Promise.all(loads);
    for (const tab of tabs) await tab.waitForLoadState('networkidle', { timeout: 120_000 });
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `20 tabs opened in ${opened.toFixed(1)} s, loaded in ${seconds.toFixed(1)} s: ${statuses.length} API requests (${(statuses.length / 20).toFixed(1)} a tab), ${statuses.filter((s) => s === 429).length} answered 429\n`,
    );
    expect(opened).toBeLessThan(60);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    for (const tab of tabs) expect(await tab.getByTestId('rate-limit-notice').count()).toBe(0);
  }, 400_000);
});
