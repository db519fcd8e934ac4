import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, unlabelled, watchForErrors } from './support/browser.js';
import { type RunningServer, startServer } from './support/server.js';

/**
 * One trader's first session in the web app, in a real headless Chromium against the real service: register,
 * log out and in, trade, place and cancel a limit order, create and revoke an API key, switch to dark mode.
 * Each step continues from the previous one, as a person would.
 */
describe('web app in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const email = `trader${Date.now()}@example.com`;
  const username = `trader${Date.now() % 1_000_000}`;
  const password = 'correct horse battery';
  let marketSlug = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    problems = watchForErrors(page);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  async function api(path: string, token: string | null): Promise<Response> {
    return fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  }

  async function sessionToken(): Promise<string> {
    const token = await page.evaluate<string | null>("localStorage.getItem('pmx.session')");
    expect(token).toBeTruthy();
    return token!;
  }

  it('serves the app at / and for app routes, and keeps unknown API paths JSON 404s', async () => {
    const home = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toContain('text/html');
    const deepLink = await fetch(`${server.url}/markets/anything`, { headers: { accept: 'text/html' } });
    expect(deepLink.status).toBe(200);
    const unknownApi = await fetch(`${server.url}/api/no-such-thing`, { headers: { accept: 'text/html' } });
    expect(unknownApi.status).toBe(404);
    expect(await unknownApi.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists markets with featured ones, category filters and search', async () => {
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Featured' }).isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | null>('document.activeElement.textContent')).toBe('Skip to content');
    const categories = page.getByRole('group', { name: 'Category' });
    await categories.getByRole('button', { name: 'Cricket' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Cricket', level: 2 }).isVisible()).toBe(true);
    await page.getByLabel('Search markets').fill('inflation');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /Results for/ }).isVisible()).toBe(true);
    await categories.getByRole('button', { name: 'All' }).click();
    await page.getByLabel('Search markets').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Featured' }).isVisible()).toBe(true);
    await screenshot(page, 'markets');
  });

  it('registers a new account and shows the starting balance', async () => {
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Username (optional)').fill(username);
    await page.getByLabel('Password').fill(password);
    await screenshot(page, 'register');
    // Keyboard only: Enter in the last field submits the form.
    await page.getByLabel('Referral code (optional)').press('Enter');
    await expect.poll(() => page.getByTestId('header-balance').textContent()).toBe('1,000.00 credits');
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('logs out and logs back in', async () => {
    await page.getByRole('link', { name: new RegExp(username) }).click();
    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Log in' }).isVisible()).toBe(true);
    expect(await page.evaluate<string | null>("localStorage.getItem('pmx.session')")).toBeNull();

    await page.getByRole('link', { name: 'Log in' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('do not match');
    await page.getByLabel('Password').fill(password);
    await screenshot(page, 'login');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByTestId('header-balance').isVisible()).toBe(true);
    expect((await api('/api/auth/me', await sessionToken())).status).toBe(200);
  });

  it('places a market trade with a cost preview and sees the position', async () => {
    const featured = page.getByRole('region', { name: 'Featured' });
    await featured.getByRole('article').first().getByRole('link').click();
    await page.waitForURL(/\/markets\//);
    marketSlug = new URL(page.url()).pathname.split('/').pop()!;
    const ticket = page.getByRole('region', { name: 'Trade', exact: true });
    await expect.poll(() => page.getByRole('table', { name: /Bids/ }).isVisible()).toBe(true);
    // The market's trades are read once scrolled to; after that the stream brings each new one.
    const tape = page.getByRole('region', { name: 'Trades', exact: true });
    await tape.scrollIntoViewIfNeeded();
    await expect
      .poll(() =>
        tape
          .getByText(/No trades in this market yet|Bought|Sold/)
          .first()
          .isVisible(),
      )
      .toBe(true);
    await ticket.scrollIntoViewIfNeeded();

    await ticket.getByLabel('Shares').fill('10');
    await ticket.getByLabel('Highest price (¢)').fill('60');
    await expect.poll(() => ticket.getByTestId('preview-cost').textContent()).toBe('6.00 credits');
    await expect.poll(() => ticket.getByTestId('preview-payout').textContent()).toBe('10.00 credits');
    const header = page.getByTestId('header-balance');
    const before = await header.textContent();
    await ticket.getByRole('button', { name: 'Buy Yes' }).click();
    await expect.poll(() => ticket.getByRole('status').last().textContent()).toMatch(/Bought 10 Yes at \d+¢/);
    const me = (await (await api('/api/auth/me', await sessionToken())).json()) as {
      balance: { cashCents: number };
    };
    const cash = `${(me.balance.cashCents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })} credits`;
    await expect.poll(() => header.textContent()).toBe(cash);
    expect(cash).not.toBe(before);
    await expect
      .poll(() => page.getByRole('region', { name: 'Your activity' }).getByTestId('position').count())
      .toBe(1);
    // The execution arrives through the market-data stream (WebSocket), not a reload.
    await expect
      .poll(() =>
        page.getByRole('table', { name: 'Market trades' }).getByTestId('tape-trade').first().textContent(),
      )
      .toMatch(/Bought Yes.*\d+¢10$/);
    await screenshot(page, 'market');

    await page.getByRole('link', { name: 'Portfolio' }).click();
    const position = page.getByTestId('position').first();
    await expect.poll(() => position.textContent()).toContain('10 Yes');
    await screenshot(page, 'portfolio');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('trades.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n').filter((line) => line.includes(marketSlug))).toHaveLength(1);
    const portfolio = (await (await api('/api/positions', await sessionToken())).json()) as {
      data: { eventSlug: string; side: string; quantity: number }[];
    };
    expect(portfolio.data).toContainEqual(
      expect.objectContaining({ eventSlug: marketSlug, side: 'YES', quantity: 10 }),
    );
  });

  it('sets a stop-loss and a take-profit on the position', async () => {
    const position = page.getByTestId('position').first();
    await position.getByRole('button', { name: /^Add/ }).click();
    await page.getByLabel('Stop-loss (¢)').fill('10');
    await page.getByLabel('Take-profit (¢)').fill('95');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => position.textContent()).toContain('Stop 10¢ Take 95¢');
    const portfolio = (await (await api('/api/positions', await sessionToken())).json()) as {
      data: { eventSlug: string; stopLossProbBps: number | null; takeProfitProbBps: number | null }[];
    };
    expect(portfolio.data).toContainEqual(
      expect.objectContaining({ eventSlug: marketSlug, stopLossProbBps: 1000, takeProfitProbBps: 9500 }),
    );
  });

  it('places a limit order and cancels it from the portfolio', async () => {
    await page.goto(`/markets/${marketSlug}`);
    const ticket = page.getByRole('region', { name: 'Trade', exact: true });
    await expect.poll(() => page.getByRole('table', { name: /Bids/ }).isVisible()).toBe(true);
    // The market's trades are read once scrolled to; after that the stream brings each new one.
    const tape = page.getByRole('region', { name: 'Trades', exact: true });
    await tape.scrollIntoViewIfNeeded();
    await expect
      .poll(() =>
        tape
          .getByText(/No trades in this market yet|Bought|Sold/)
          .first()
          .isVisible(),
      )
      .toBe(true);
    await ticket.scrollIntoViewIfNeeded();
    await ticket.getByRole('radio', { name: 'Limit' }).check();
    await ticket.getByLabel('Shares').fill('20');
    await ticket.getByLabel('Limit price (¢)').fill('3');
    await expect.poll(() => ticket.getByTestId('preview-cost').textContent()).toBe('0.60 credits');
    await ticket.getByRole('button', { name: 'Buy Yes (limit)' }).click();
    await expect
      .poll(() => ticket.getByRole('status').last().textContent())
      .toContain('Limit order open: 20 Yes at 3¢');

    await page.getByRole('link', { name: 'Portfolio' }).click();
    const order = page.getByTestId('open-order');
    await expect.poll(() => order.count()).toBe(1);
    await order.getByRole('button', { name: /Cancel order/ }).click();
    await expect.poll(() => order.count()).toBe(0);
    await expect.poll(() => page.getByText('No open orders.').isVisible()).toBe(true);
    const open = (await (await api('/api/limit-orders?status=open', await sessionToken())).json()) as {
      data: unknown[];
    };
    expect(open.data).toHaveLength(0);
  });

  it('creates an API key shown once, uses it with the API, and revokes it', async () => {
    await page.getByRole('link', { name: new RegExp(username) }).click();
    await page.getByLabel('Key name').fill('e2e bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByTestId('new-api-key').inputValue();
    expect(key).toMatch(/^pmx_live_/);
    await screenshot(page, 'account');

    const withKey = await api('/api/auth/me', key);
    expect(withKey.status).toBe(200);
    expect(await withKey.json()).toMatchObject({ email });

    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke e2e bot' }).click();
    await expect.poll(() => page.getByTestId('api-key-row').count()).toBe(0);
    expect((await api('/api/auth/me', key)).status).toBe(401);
  });

  it('switches to dark mode, saves it in the preferences and keeps it after a reload', async () => {
    const theme = () => page.locator('html').getAttribute('data-theme');
    await page.goto(`/markets/${marketSlug}`);
    const toggle = page.getByRole('button', { name: 'Dark mode' });
    if ((await theme()) === 'dark') await toggle.click();
    await expect.poll(theme).toBe('light');
    await toggle.click();
    await expect.poll(theme).toBe('dark');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(
        async () =>
          ((await (await api('/api/me/preferences', await sessionToken())).json()) as { darkMode: boolean })
            .darkMode,
      )
      .toBe(true);
    await page.reload();
    await expect.poll(theme).toBe('dark');
    await screenshot(page, 'market-dark');
    await page.goto('/portfolio');
    await expect.poll(() => page.getByTestId('position').count()).toBeGreaterThan(0);
    await screenshot(page, 'portfolio-dark');
  });

  it('shows the other pages, every form control and image with a name', async () => {
    const pages: [string, string, string][] = [
      ['/notifications', 'Notifications', 'notifications'],
      ['/leaderboard', 'Leaderboard', 'leaderboard'],
      ['/tournaments', 'Tournaments', 'tournaments'],
      ['/challenges', 'Challenges', 'challenges'],
      ['/progress', 'Your progress', 'progress'],
      [`/users/${username}`, username, 'profile'],
      ['/no-such-page', 'Page not found', 'not-found'],
    ];
    for (const [path, heading, name] of pages) {
      await page.goto(path);
      await expect.poll(() => page.getByRole('heading', { level: 1, name: heading }).isVisible()).toBe(true);
      await screenshot(page, name);
      expect(await unlabelled(page), path).toEqual([]);
    }
    for (const path of ['/', `/markets/${marketSlug}`, '/portfolio', '/account', '/login', '/register']) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      expect(await unlabelled(page), path).toEqual([]);
    }
  });

  it('fits a 375 px phone screen with a menu for the navigation', async () => {
    const phone = await context.newPage();
    const phoneProblems = watchForErrors(phone);
    await phone.setViewportSize({ width: 375, height: 812 });
    for (const [path, name] of [
      ['/', 'phone-markets'],
      [`/markets/${marketSlug}`, 'phone-market'],
      ['/portfolio', 'phone-portfolio'],
    ]) {
      await phone.goto(path!);
      await phone.waitForLoadState('networkidle');
      await screenshot(phone, name!);
      expect(await phone.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(
        375,
      );
    }
    const menu = phone.getByRole('button', { name: 'Menu' });
    expect(await phone.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    await menu.click();
    await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leaderboard' }).click();
    await expect
      .poll(() => phone.getByRole('heading', { level: 1, name: 'Leaderboard' }).isVisible())
      .toBe(true);
    await phone.close();
    expect(phoneProblems).toEqual([]);
  });

  it('reported no script errors or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
