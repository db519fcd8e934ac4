import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docsScreenshot, launchBrowser, watchForErrors } from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';
import { moveBack, type TimeWindow } from './support/time-travel.js';

const ADMIN_EMAIL = 'admin@market-data.example';
const PASSWORD = 'correct horse battery';
/** The demo's exclusive event: its chart is every option's chance, one line each. */
const IPL = 'ipl-2027-champion';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Session {
  token: string;
  user: { id: string; username: string };
}

interface Market {
  id: string;
  slug: string;
  options: { id: string; label: string }[];
}

interface Book {
  yes: { bids: { priceCents: number }[]; asks: { priceCents: number }[] };
}

/**
 * The market data a trader reads, in Chromium against the real service (a 1 % taker fee): a busy market's candles
 * at every interval, moved by a new trade without a read; a thin market kept on the line; the public tape, live and
 * paged; and the portfolio's value over time with the history of fills (maker and taker, with their fees) and of
 * what a settled market paid. Each screen passes axe-core at 1366 and 390 wide, light and dark, without scrolling
 * sideways. The busy market's trades are made in batches a moment apart, then moved back in the stopped service's
 * database to two days, a day, hours and minutes ago, so its candles span every interval.
 */
describe('market data in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let admin: Session;
  let viewer: Session;
  let other: Session;
  /** Holds only YES shares of an exclusive event's options, none of which ever traded: from a split. */
  let holder: Session;
  let busy: Market;
  let thin: Market;
  let dataDir = '';
  /** The API requests the page sends, as "METHOD /path?query". */
  const requests: string[] = [];

  async function call<T>(method: string, path: string, token: string | null, body?: unknown): Promise<T> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  const register = (email: string, username: string) =>
    call<Session>('POST', '/api/auth/register', null, { email, username, password: PASSWORD });

  async function openMarket(title: string, label: string): Promise<Market> {
    return call<Market>('POST', '/api/admin/events', admin.token, {
      title,
      category: 'economics',
      description: 'Made by the market-data browser tests.',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: [{ label, liquidityCents: 50_000 }],
      open: true,
    });
  }

  /** Buys at the market, paying at most `priceCents`: a taker's trade against the house. */
  const buy = (session: Session, optionId: string, side: 'YES' | 'NO', quantity: number, priceCents = 99) =>
    call('POST', '/api/trades', session.token, { optionId, side, action: 'BUY', quantity, priceCents });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** What the service writes while `write` runs is to be moved `ageMs` into the past. */
  const windows: TimeWindow[] = [];
  async function made(ageMs: number, write: () => Promise<unknown>): Promise<void> {
    await sleep(30);
    const from = new Date();
    await write();
    await sleep(30);
    windows.push({ from, to: new Date(), byMs: ageMs });
  }

  /** Early enough in a minute that a trade made now and read back stays in the same 1-minute candle. */
  async function earlyInAMinute(): Promise<void> {
    const into = Date.now() % 60_000;
    if (into > 40_000) await sleep(60_000 - into + 200);
  }

  /** Scrolls to the end of the page, so what loads below the fold is there, then back to the top. */
  async function readToTheEnd(): Promise<void> {
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    // The app watches what is below the fold a second after a page opens.
    await page.waitForTimeout(1600);
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await page.waitForLoadState('networkidle');
  }

  const candleChart = () => page.getByTestId('candle-chart');
  const chartType = (name: 'Line' | 'Candles') =>
    page.getByRole('group', { name: 'Chart type' }).getByRole('button', { name, exact: true });

  /** The page at 1366×900 and 390×844, light and dark: axe-core clean, nothing wider than the screen. */
  async function shootAndCheck(name: string, ready: () => Promise<boolean>): Promise<void> {
    for (const theme of ['light', 'dark'] as const) {
      for (const [width, height, suffix] of [
        [1366, 900, 'desktop'],
        [390, 844, 'phone'],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.evaluate(`localStorage.setItem('pmx.theme', '${theme}')`);
        await page.reload();
        await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(theme);
        await readToTheEnd();
        await expect.poll(ready).toBe(true);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
          `${name} ${suffix}`,
        ).toBeLessThanOrEqual(width);
        expect(await axeViolations(page), `${name} ${theme} ${suffix}`).toEqual([]);
        await docsScreenshot(page, `${name}-${suffix}${theme === 'dark' ? '-dark' : ''}`);
      }
    }
    await page.evaluate(`localStorage.setItem('pmx.theme', 'light')`);
    await page.setViewportSize({ width: 1366, height: 900 });
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'pmx-e2e-market-data-'));
    const env = { TAKER_FEE_BPS: '100', DATA_DIR: dataDir };
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
    const stamp = Date.now() % 1_000_000;
    // The traders and the markets, made three days ago.
    await made(3 * DAY, async () => {
      [admin, viewer, other, holder] = await Promise.all([
        register(ADMIN_EMAIL, `boss${stamp}`),
        register(`viewer${stamp}@e2e.example`, `viewer${stamp}`),
        register(`other${stamp}@e2e.example`, `other${stamp}`),
        register(`holder${stamp}@e2e.example`, `holder${stamp}`),
      ]);
      await becomeOperator(server.url, admin.token);
      busy = await openMarket('Will the monsoon reach Kerala by June 1?', 'Reaches by June 1');
    });
    const rain = busy.options[0]!.id;
    await made(2 * DAY + 6 * HOUR, async () => {
      // The viewer rests a bid inside the house's spread, which another trader's No takes: a maker, no fee...
      const book = await call<Book>('GET', `/api/orderbook/${rain}`, null);
      const bid = book.yes.bids[0]!.priceCents + 1;
      expect(bid).toBeLessThan(book.yes.asks[0]!.priceCents);
      await call('POST', '/api/limit-orders', viewer.token, {
        optionId: rain,
        side: 'YES',
        action: 'BUY',
        quantity: 15,
        limitPriceCents: bid,
      });
      await buy(other, rain, 'NO', 15, 100 - bid);
      // ...then takes from the house: a taker, paying the fee.
      await buy(viewer, rain, 'YES', 40);
      await buy(other, rain, 'YES', 30);
    });
    await made(DAY + 4 * HOUR, async () => {
      await buy(other, rain, 'NO', 20);
      await buy(other, rain, 'NO', 15);
    });
    await made(20 * HOUR, () => buy(other, rain, 'YES', 10));
    await made(15 * HOUR, () => buy(other, rain, 'NO', 12));
    await made(9 * HOUR, () => buy(other, rain, 'YES', 18));
    await made(6 * HOUR, () => buy(other, rain, 'YES', 25));
    // A holder splits 100 credits into YES on each option of a "who wins?" event that never trades.
    await made(3 * HOUR + 45 * MINUTE, async () => {
      const cup = await call<Market>('POST', '/api/admin/events', admin.token, {
        title: 'Who wins the e2e cup?',
        category: 'cricket',
        closesAt: new Date(Date.now() + 7 * DAY).toISOString(),
        exclusive: true,
        liquidityCents: 50_000,
        options: [
          { label: 'Blue', initialPriceCents: 55 },
          { label: 'Red', initialPriceCents: 35 },
          { label: 'Green', initialPriceCents: 10 },
        ],
        open: true,
      });
      await call('POST', `/api/events/${cup.id}/conversions`, holder.token, { type: 'split', quantity: 100 });
    });
    await made(3 * HOUR + 30 * MINUTE, () => buy(other, rain, 'NO', 8));
    // The last three hours, minute by minute: more than a page of the tape, both ways.
    for (const [minutes, side, quantity] of [
      [150, 'YES', 5],
      [95, 'NO', 7],
      [50, 'YES', 9],
      [20, 'NO', 5],
      [7, 'YES', 6],
      [4, 'NO', 4],
      [3, 'YES', 12],
      [2, 'YES', 3],
    ] as const) {
      await made(minutes * MINUTE, () => buy(other, rain, side, quantity));
    }
    // A thin market: one trade, now.
    thin = await openMarket('Will the metro line open in March?', 'Opens in March');
    await buy(other, thin.options[0]!.id, 'YES', 10);
    await server.stop();
    await moveBack(dataDir, windows);
    server = await startServer(env);

    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(10_000);
    await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(viewer.token)})`);
    page = await context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    problems = watchForErrors(page);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) requests.push(`${request.method()} ${url.pathname}${url.search}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the value over time and the history: fills with their role and fee, a settlement’s payout', async () => {
    // A market the viewer holds, resolved Yes and settled: 10 shares pay 10.00 credits.
    const settled = await openMarket('Will the e2e derby be decided today?', 'Decided');
    await buy(viewer, settled.options[0]!.id, 'YES', 10);
    await call('POST', `/api/admin/events/${settled.id}/close`, admin.token);
    await call('POST', `/api/admin/events/${settled.id}/resolve`, admin.token, {
      outcomes: [{ optionId: settled.options[0]!.id, outcome: 'YES' }],
    });
    await call('POST', `/api/admin/events/${settled.id}/settle`, admin.token);

    // The page's first reads after the restart, made warm: the page takes its shape within the second after which
    // what lies below the fold is watched (a cold first read of the history can take longer on a busy machine).
    for (const url of ['/api/positions', '/api/me/portfolio-history?range=1w'])
      await call('GET', url, viewer.token);
    await page.goto('/portfolio');
    const chart = page.getByTestId('value-chart');
    await expect.poll(async () => Number(await chart.getAttribute('data-points'))).toBeGreaterThan(0);
    const summary = await call<{ summary: { totalValueCents: number } }>(
      'GET',
      '/api/positions',
      viewer.token,
    );
    const total = (summary.summary.totalValueCents / 100).toLocaleString('en-US', {
      minimumFractionDigits: 2,
    });
    // The chart ends where the portfolio stands: the value now, with its change over the week.
    await expect
      .poll(() => page.getByTestId('value-change').textContent())
      .toMatch(new RegExp(`^${total.replace('.', '\\.')} credits.*over the past week$`));
    await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: '1 day' }).click();
    await expect.poll(() => page.getByTestId('value-change').textContent()).toMatch(/over the past day$/);
    expect(requests).toContain('GET /api/me/portfolio-history?range=1d');
    const plot = (await chart.boundingBox())!;
    await page.mouse.move(plot.x + plot.width - 70, plot.y + plot.height / 2);
    await expect.poll(() => page.getByTestId('value-tip').textContent()).toMatch(/Total [\d,.]+ credits/);

    // Nothing below the fold is read before it is scrolled to.
    expect(requests.some((request) => request.startsWith('GET /api/me/fills'))).toBe(false);
    const history = page.getByRole('region', { name: 'History' });
    await history.scrollIntoViewIfNeeded();
    const fills = history.getByTestId('fill');
    await expect.poll(() => fills.count()).toBeGreaterThan(2);
    // Every fill names its market, a settled one's included, from the fills alone: nothing else is read for it.
    await expect.poll(() => fills.first().textContent()).toContain('Will the e2e derby be decided today?');
    const settlementReads = () => requests.filter((request) => request.startsWith('GET /api/me/settlements'));
    expect(settlementReads()).toEqual([]);
    const rows = await fills.allTextContents();
    const maker = rows.find((row) => row.includes('Maker'));
    const taker = rows.find((row) => row.includes('Taker'));
    expect(maker).toMatch(/Will the monsoon reach Kerala by June 1\?.*Buy 15 Yes.*Maker0\.00 credits/);
    expect(taker).toMatch(/Taker\d+\.\d\d credits/);
    expect(taker).not.toMatch(/Taker0\.00 credits/);
    // Each fill's fee, as the service reports it.
    const listed = await call<{ data: { role: string; feeCents: number }[] }>(
      'GET',
      '/api/me/fills?limit=25',
      viewer.token,
    );
    expect(listed.data.filter((fill) => fill.role === 'maker').every((fill) => fill.feeCents === 0)).toBe(
      true,
    );
    expect(listed.data.some((fill) => fill.role === 'taker' && fill.feeCents > 0)).toBe(true);

    await history.getByRole('tab', { name: 'Settlements' }).click();
    const settlement = history.getByTestId('settlement');
    await expect.poll(() => settlement.count()).toBe(1);
    expect(settlementReads()).toHaveLength(1);
    expect(await settlement.textContent()).toMatch(
      /Will the e2e derby be decided today\?Decided10 YesResolved Yes · won10\.00 credits/,
    );
  });

  it('passes axe-core on the portfolio, light and dark, at 1366 and 390 wide', async () => {
    await shootAndCheck('portfolio-history', async () => {
      const points = Number(await page.getByTestId('value-chart').getAttribute('data-points'));
      return points > 0 && (await page.getByTestId('fill').count()) > 0;
    });
  });

  it('opens a busy market on its candles and draws them at every interval, read only when shown', async () => {
    requests.length = 0;
    await page.goto(`/markets/${busy.slug}`);
    await expect.poll(() => chartType('Candles').getAttribute('aria-pressed')).toBe('true');
    // Trades over the last day: hour candles, one with volume for each hour that traded.
    await expect
      .poll(async () => Number(await candleChart().getAttribute('data-traded')))
      .toBeGreaterThanOrEqual(9);
    expect(await page.getByTestId('candle-readout').textContent()).toMatch(
      /Open \d+¢High \d+¢Low \d+¢Close \d+¢ [+−±]\d+¢Volume [\d,]+ shares/,
    );
    const reads = () => requests.filter((request) => request.includes('/candles'));
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).toMatch(/interval=1h/);
    // The last three hours by the minute, and the days.
    for (const [label, interval, traded] of [
      ['1 min', '1m', 7],
      ['1 day', '1d', 3],
    ] as const) {
      await page.getByRole('group', { name: 'Candle interval' }).getByRole('button', { name: label }).click();
      await expect.poll(() => reads().some((request) => request.includes(`interval=${interval}`))).toBe(true);
      await expect
        .poll(async () => Number(await candleChart().getAttribute('data-traded')))
        .toBeGreaterThanOrEqual(traded);
    }
    // The line and back: the candles come from memory.
    await chartType('Line').click();
    await expect.poll(() => page.getByTestId('price-chart').isVisible()).toBe(true);
    await chartType('Candles').click();
    await expect.poll(() => candleChart().isVisible()).toBe(true);
    expect(reads()).toHaveLength(3);
  });

  it('moves the last candle with a new trade, and the tape shows it, both from the stream', async () => {
    const rain = busy.options[0]!.id;
    await page.getByRole('group', { name: 'Candle interval' }).getByRole('button', { name: '1 min' }).click();
    await expect
      .poll(async () => Number(await candleChart().getAttribute('data-traded')))
      .toBeGreaterThanOrEqual(7);
    /** The last candle drawn: its start (seconds), open, high, low, close and volume. */
    const last = async () => ((await candleChart().getAttribute('data-last')) ?? '').split(',').map(Number);
    const tape = page.getByRole('table', { name: 'Market trades' });
    await page.getByRole('heading', { name: 'Trades', exact: true }).scrollIntoViewIfNeeded();
    await expect.poll(() => tape.getByTestId('tape-trade').count()).toBe(20);
    await earlyInAMinute();
    const before = await last();
    const reads = requests.length;

    await buy(other, rain, 'YES', 60);
    const tapeNow = await call<{ data: { yesPriceCents: number }[] }>(
      'GET',
      `/api/options/${rain}/trades?limit=1`,
      null,
    );
    // The trade lands in the last candle drawn, or opens the next one when its minute is a new one.
    await expect
      .poll(async () => {
        const now = await last();
        return now[0]! > before[0]! || now[5]! > before[5]!;
      })
      .toBe(true);
    const drawn = await last();
    // The close is the new trade's price, and the candle is the one the service now reads last, at every figure.
    expect(drawn[4]).toBe(tapeNow.data[0]!.yesPriceCents);
    const served = await call<{
      data: { t: string; o: number; h: number; l: number; c: number; v: number }[];
    }>('GET', `/api/options/${rain}/candles?interval=1m`, null);
    const same = served.data[served.data.length - 1]!;
    expect(drawn[0]).toBe(Date.parse(same.t) / 1000);
    expect(drawn.slice(1)).toEqual([same.o, same.h, same.l, same.c, same.v]);
    await expect
      .poll(() => tape.getByTestId('tape-trade').first().textContent())
      .toMatch(/Bought Yes\d+¢\d+$/);
    expect(await tape.getByTestId('tape-trade').count()).toBeGreaterThan(20);
    // Neither the candles nor the tape was read again for it.
    expect(requests.slice(reads)).toEqual([]);

    // Older trades, page by page, until the whole tape is there, each trade once.
    const older = page.getByRole('button', { name: 'Older trades' });
    while ((await older.count()) > 0) {
      const shown = await tape.getByTestId('tape-trade').count();
      await older.click();
      await expect.poll(() => tape.getByTestId('tape-trade').count()).toBeGreaterThan(shown);
      await page.waitForLoadState('networkidle');
    }
    expect(requests.slice(reads).every((request) => request.includes('cursor='))).toBe(true);
    const whole = await call<{ data: unknown[] }>(
      'GET',
      `/api/events/by-slug/${busy.slug}/trades?limit=100`,
      null,
    );
    expect(await tape.getByTestId('tape-trade').count()).toBe(whole.data.length);
  });

  it('passes axe-core on the candle chart, light and dark, at 1366 and 390 wide', async () => {
    await shootAndCheck('market-candles', async () => {
      const candles = Number(await candleChart().getAttribute('data-traded'));
      return candles > 0 && (await page.getByRole('table', { name: /Asks/ }).isVisible());
    });
  });

  it('keeps a thin market and an exclusive event on the line, reading no candles', async () => {
    requests.length = 0;
    await page.goto(`/markets/${thin.slug}`);
    await expect.poll(() => chartType('Line').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('price-chart').isVisible()).toBe(true);
    await page.goto(`/markets/${IPL}`);
    await expect.poll(() => chartType('Line').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('chart-legend').locator('.legend-item').count()).toBe(5);
    await page.waitForLoadState('networkidle');
    expect(requests.filter((request) => request.includes('/candles'))).toEqual([]);
    // Candles on request: the picked option's.
    await chartType('Candles').click();
    await expect.poll(() => candleChart().isVisible()).toBe(true);
    expect(requests.filter((request) => request.includes('/candles'))).toHaveLength(1);
  });

  it('ends the value over time at the summary’s value, shares of options that never traded included', async () => {
    const own = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    try {
      await own.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(holder.token)})`);
      const holderPage = await own.newPage();
      await holderPage.goto('/portfolio');
      const chart = holderPage.getByTestId('value-chart');
      await expect.poll(async () => Number(await chart.getAttribute('data-points'))).toBeGreaterThan(30);
      const { summary, data } = await call<{
        summary: { totalValueCents: number; positionsValueCents: number };
        data: { markPriceCents: number | null; quantity: number; valueCents: number }[];
      }>('GET', '/api/positions', holder.token);
      expect(data.map((position) => position.valueCents)).toEqual(
        data.map((position) => position.quantity * (position.markPriceCents as number)),
      );
      expect(summary.positionsValueCents).toBeGreaterThan(0);
      // Nothing happened since the split: the last point, and the one before it, are the summary's value.
      expect(Number(await chart.getAttribute('data-last'))).toBe(summary.totalValueCents);
      expect(Number(await chart.getAttribute('data-previous'))).toBe(summary.totalValueCents);
      const rows = holderPage.getByRole('table', { name: 'Positions' }).getByTestId('position');
      await expect.poll(() => rows.count()).toBe(3);
      for (const row of await rows.all())
        expect(await row.locator('td').nth(3).textContent()).toMatch(/\d+¢/);
    } finally {
      await own.close();
    }
  });

  it('reported no script errors or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
