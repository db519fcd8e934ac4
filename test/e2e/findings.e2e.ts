import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';
import { launchBrowser, SCREENSHOT_DIR, watchForErrors } from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';

const ADMIN_EMAIL = 'admin@findings.example';
const PASSWORD = 'correct horse battery';
const SHOTS = path.join(SCREENSHOT_DIR, 'findings');

interface Account {
  token: string;
  id: string;
  username: string;
}

interface Market {
  id: string;
  slug: string;
  title: string;
  options: { id: string; label: string }[];
}

/**
 * Each finding of the web app's review, as a person meets it in Chromium against the real service, with
 * screenshots of the screen concerned at 1366 and 390 wide, in light and dark (test-results/screenshots/findings).
 */
describe('the web app, finding by finding', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];
  let admin: Account;
  let trader: Account;
  let other: Account;
  let page: Page;
  let receiver: Receiver;

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

  async function register(prefix: string, email?: string): Promise<Account> {
    const username = `${prefix}${Date.now() % 1_000_000}`;
    const session = await call<{ token: string; user: { id: string } }>('POST', '/api/auth/register', null, {
      email: email ?? `${username}@findings.example`,
      username,
      password: PASSWORD,
    });
    return { token: session.token, id: session.user.id, username };
  }

  async function signedInPage(account: Account | null, width = 1366): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width, height: 900 } });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    if (account)
      await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(account.token)})`);
    const opened = await context.newPage();
    await opened.emulateMedia({ reducedMotion: 'reduce' });
    problems.push(watchForErrors(opened));
    return opened;
  }

  /** A market made and opened by the admin: each option with house liquidity in cents (0: none). */
  async function openMarket(title: string, options: [string, number][]): Promise<Market> {
    const created = await call<Market & { title: string }>('POST', '/api/admin/events', admin.token, {
      title,
      category: 'economics',
      description: 'Made by the browser tests.',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: options.map(([label, liquidityCents]) => ({ label, liquidityCents })),
      open: true,
    });
    return { ...created, title };
  }

  async function trade(account: Account, optionId: string, side: 'YES' | 'NO', quantity: number) {
    return call('POST', '/api/trades', account.token, {
      optionId,
      side,
      action: 'BUY',
      quantity,
      priceCents: 99,
    });
  }

  /**
   * The screen (or one part of it) at 1366 and 390 wide, light and dark. `prepare` runs after each change of
   * size, for what must be opened again or scrolled to.
   */
  async function shoot(
    target: Page,
    name: string,
    part?: (page: Page) => Locator,
    prepare?: (page: Page) => Promise<void>,
  ): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    const size = target.viewportSize() ?? { width: 1366, height: 900 };
    for (const width of [1366, 390]) {
      await target.setViewportSize({ width, height: 900 });
      await prepare?.(target);
      for (const theme of ['light', 'dark']) {
        await target.evaluate(`document.documentElement.dataset.theme = '${theme}'`);
        await target.waitForTimeout(150);
        const file = path.join(SHOTS, `${name}-${width}-${theme}.png`);
        if (part) await part(target).screenshot({ path: file });
        else await target.screenshot({ path: file, fullPage: true });
      }
    }
    await target.evaluate(
      `document.documentElement.dataset.theme = localStorage.getItem('pmx.theme') ?? 'light'`,
    );
    await target.setViewportSize(size);
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({
        JOB_INTERVAL_MS: '500',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT_MS: '500',
      }),
      launchBrowser(),
    ]);
    admin = await register('boss', ADMIN_EMAIL);
    await becomeOperator(server.url, admin.token);
    trader = await register('finder');
    other = await register('rival');
    receiver = await startReceiver(() => ({ status: 500 }));
    page = await signedInPage(trader);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('1. waits out a 429 by itself and shows the page, never a broken one', async () => {
    // A limit a person would hit at once: six requests in six seconds.
    const tight = await startServer({
      RATE_LIMIT_MAX: '6',
      RATE_LIMIT_BROWSE_MAX: '6',
      RATE_LIMIT_WINDOW_MS: '6000',
    });
    try {
      const session = await fetch(`${tight.url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `tight${Date.now()}@findings.example`, password: PASSWORD }),
      }).then((response) => response.json() as Promise<{ token: string }>);
      const context = await browser.newContext({
        baseURL: tight.url,
        viewport: { width: 1366, height: 900 },
      });
      contexts.push(context);
      await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(session.token)})`);
      const tab = await context.newPage();
      const errors = watchForErrors(tab);
      let refused = 0;
      tab.on('response', (response) => {
        if (response.status() === 429) refused += 1;
      });
      await tab.goto('/');
      await tab.getByRole('link', { name: 'Who will win IPL 2027?' }).first().click();
      await tab.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).click();
      await tab.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Progress' }).click();
      await expect
        .poll(() => tab.getByTestId('rate-limit-notice').isVisible(), { timeout: 15_000 })
        .toBe(true);
      // The notice lasts only until Retry-After: shoot the page, which cannot lose its element meanwhile.
      await tab.screenshot({ path: path.join(SHOTS, '1-waiting-1366-light.png') });
      // The refused reads go out again after Retry-After, by themselves: the page fills in, without an error.
      await expect
        .poll(() => tab.getByRole('heading', { name: /Level \d/ }).isVisible(), { timeout: 20_000 })
        .toBe(true);
      await expect.poll(() => tab.getByTestId('rate-limit-notice').count(), { timeout: 15_000 }).toBe(0);
      expect(refused).toBeGreaterThan(0);
      expect(await tab.getByText('Too many requests').count()).toBe(0);
      expect(await tab.getByRole('alert').count()).toBe(0);
      await shoot(tab, '1-recovered');
      expect(errors).toEqual([]);
    } finally {
      await tight.stop();
    }
  }, 90_000);

  let settled: Market;

  it('2. shows a settled market as settled everywhere it is listed: the outcome, no price, no closing date', async () => {
    settled = await openMarket('Who wins the findings derby?', [
      ['Alpha', 50_000],
      ['Beta', 50_000],
    ]);
    await trade(trader, settled.options[0]!.id, 'NO', 20);
    await call('POST', `/api/admin/events/${settled.id}/close`, admin.token);
    await call('POST', `/api/admin/events/${settled.id}/resolve`, admin.token, {
      outcomes: settled.options.map((option) => ({ optionId: option.id, outcome: 'NO' })),
    });
    await call('POST', `/api/admin/events/${settled.id}/settle`, admin.token);

    for (const url of ['/?status=settled', `/?q=${encodeURIComponent('findings derby')}&status=all`]) {
      await page.goto(url);
      const card = page.getByTestId('market-card').filter({ hasText: 'findings derby' });
      await expect.poll(() => card.getByTestId('card-state').textContent()).toBe('Settled: winners paid');
      expect(await card.getByTestId('card-outcome').allTextContents()).toEqual([
        'Resolved No',
        'Resolved No',
      ]);
      const text = (await card.textContent()) ?? '';
      expect(text).not.toMatch(/Yes \d+¢|No \d+¢|chance|Closes/);
    }
    await shoot(page, '2-settled-card', (p) =>
      p.getByTestId('market-card').filter({ hasText: 'findings derby' }),
    );
  });

  it('3. tells a holder of a settled market what they were paid', async () => {
    await page.goto(`/markets/${settled.slug}`);
    const outcome = page.getByRole('region', { name: 'Outcome' });
    await expect
      .poll(() => outcome.getByTestId('paid-total').textContent())
      .toBe('You were paid 20.00 credits');
    expect(await outcome.textContent()).toContain('20 No · Alpha: 20.00 credits');
    expect(await page.getByText('No position in this market yet.').count()).toBe(0);
    await shoot(page, '3-paid', (p) => p.getByRole('region', { name: 'Outcome' }));
  });

  it('4. draws every option of a market in its own colour, with a legend and no labels over each other', async () => {
    const ipl = await call<Market>('GET', '/api/events/ipl-2027-champion', null);
    await trade(other, ipl.options[0]!.id, 'YES', 40);
    await trade(other, ipl.options[2]!.id, 'YES', 25);
    await page.goto('/markets/ipl-2027-champion');
    // The demo's IPL is exclusive, with a catch-all: five options, one winner, each legend line its chance now.
    const legend = page.getByTestId('chart-legend');
    await expect.poll(() => legend.locator('.legend-item').count()).toBe(5);
    const items = await legend.locator('.legend-item').allTextContents();
    expect(items.map((item) => item.replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringMatching(/^Mumbai Indians [\d.]+%$/),
      expect.stringMatching(/^Chennai Super Kings [\d.]+% · no trade yet$/),
      expect.stringMatching(/^Royal Challengers Bengaluru [\d.]+%$/),
      expect.stringMatching(/^Kolkata Knight Riders [\d.]+% · no trade yet$/),
      expect.stringMatching(/^Any other team [\d.]+% · no trade yet$/),
    ]);
    const chances = items.map((item) => Number.parseFloat(/([\d.]+)%/.exec(item)![1]!));
    expect(chances.reduce((sum, chance) => sum + chance, 0)).toBeCloseTo(100, 5);
    expect(await legend.getByTestId('chances-total').textContent()).toMatch(/together 100\.0%$/);
    const colours = await legend
      .locator('.swatch line')
      .evaluateAll((lines) => lines.map((line) => line.getAttribute('stroke')));
    expect(new Set(colours).size).toBe(5);
    const boxes = await legend
      .locator('.legend-item')
      .evaluateAll((nodes) =>
        nodes.map((node) => node.getBoundingClientRect()).map((r) => [r.left, r.top, r.right, r.bottom]),
      );
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const overlap = a[0]! < b[2]! && b[0]! < a[2]! && a[1]! < b[3]! && b[1]! < a[3]!;
        expect(overlap).toBe(false);
      }
    }
    await shoot(page, '4-chart', (p) => p.locator('.area-chart'));
  });

  it('5. never shows a price the book does not have: with no liquidity the ticket says so and cannot send', async () => {
    const empty = await openMarket('Will the empty book stay empty?', [['Quiet', 0]]);
    await page.goto(`/markets/${empty.slug}`);
    const ticket = page.getByRole('region', { name: 'Trade', exact: true });
    await expect
      .poll(() => ticket.getByTestId('ticket-problem').textContent())
      .toContain('Nobody is selling');
    expect(await ticket.getByTestId('ticket-yes-price').textContent()).toBe('Yes none');
    expect(await page.getByTestId('buy-yes').textContent()).toContain('Yes none');
    expect(await page.getByTestId('no-asks').textContent()).toBe('Nobody is selling');
    expect(await ticket.getByRole('button', { name: 'Buy Yes' }).isDisabled()).toBe(true);
    expect(await ticket.textContent()).not.toMatch(/50¢/);
    // A limit order may wait in an empty book: the trader names the price.
    await ticket.getByRole('radio', { name: 'Limit' }).check();
    expect(await ticket.getByLabel('Limit price (¢)').inputValue()).toBe('');
    await ticket.getByLabel('Limit price (¢)').fill('30');
    await expect.poll(() => ticket.getByRole('button', { name: 'Buy Yes (limit)' }).isEnabled()).toBe(true);
    await ticket.getByRole('radio', { name: 'Market' }).check();
    await shoot(page, '5-empty-book', (p) => p.locator('.market-layout'));
  });

  it('6. fits every form into a 390 px phone: the protections form and the signed-in sessions', async () => {
    const ipl = await call<Market>('GET', '/api/events/ipl-2027-champion', null);
    await trade(trader, ipl.options[1]!.id, 'YES', 10);
    const phone = await signedInPage(trader, 390);
    await phone.goto('/portfolio');
    const position = phone.getByTestId('position').first();
    await position.getByRole('button', { name: /protections/ }).click();
    const form = phone.getByRole('form', { name: /Protections for/ });
    await expect.poll(() => form.isVisible()).toBe(true);
    for (const control of [form.getByLabel('Take-profit (¢)'), form.getByRole('button', { name: 'Save' })]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shoot(phone, '6-protections', (p) => p.getByRole('form', { name: /Protections for/ }));
    await phone.goto('/account');
    const sessions = phone.getByRole('list', { name: 'Signed-in sessions' });
    await expect.poll(() => sessions.isVisible()).toBe(true);
    const box = (await sessions.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shoot(phone, '6-sessions', (p) => p.getByRole('list', { name: 'Signed-in sessions' }));
  });

  it('7. places and cancels an order from the keyboard alone, focus visible throughout and returned', async () => {
    const market = await openMarket('Will the keyboard be enough?', [['Keys', 50_000]]);
    const keys = await signedInPage(trader);
    await keys.goto(`/markets/${market.slug}`);
    await expect.poll(() => keys.getByRole('table', { name: /Asks/ }).isVisible()).toBe(true);
    const focused = () =>
      keys.evaluate<{ name: string; tag: string; visible: boolean }>(`(() => {
        const element = document.activeElement;
        const style = getComputedStyle(element);
        return {
          name: (element.getAttribute('aria-label') || element.textContent || element.id || '').trim(),
          tag: element.tagName.toLowerCase(),
          visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
        };
      })()`);
    let presses = 0;
    const press = async (key: string) => {
      presses += 1;
      await keys.keyboard.press(key);
    };
    const tabTo = async (name: RegExp) => {
      for (let i = 0; i < 60; i++) {
        await press('Tab');
        const now = await focused();
        if (name.test(now.name)) {
          expect(now.visible, `focus ring on ${now.name}`).toBe(true);
          return;
        }
      }
      throw new Error(`never reached ${name}`);
    };
    await press('Tab');
    expect((await focused()).name).toBe('Skip to content');
    await press('Enter');
    await tabTo(/^Yes \d+¢ for Keys/);
    await press('Enter');
    await expect
      .poll(() => keys.evaluate<string | null>("document.activeElement.getAttribute('id')"))
      .toMatch(/-qty$/);
    // A limit order that waits in the book, so there is something to cancel.
    await press('Shift+Tab');
    await press('ArrowRight');
    await press('Tab');
    await press('Control+a');
    await keys.keyboard.type('4');
    await press('Tab');
    await press('Control+a');
    await keys.keyboard.type('5');
    await press('Enter');
    await expect.poll(() => focused().then((now) => now.name)).toBe('Confirm buy');
    expect((await focused()).visible).toBe(true);
    await press('Enter');
    const ticket = keys.getByRole('region', { name: 'Trade', exact: true });
    await expect
      .poll(() => ticket.getByRole('status').last().textContent())
      .toBe('Limit order open: 4 Yes at 5¢.');
    // Focus returns to the ticket, ready for the next order.
    expect(await keys.evaluate<string | null>("document.activeElement.getAttribute('id')")).toMatch(/-qty$/);
    expect(presses).toBeLessThanOrEqual(30);
    await shoot(keys, '7-placed', (p) => p.getByRole('region', { name: 'Trade', exact: true }));

    await tabTo(/^Cancel order: buy 4 Yes Keys at 5¢/);
    await press('Enter');
    const open = () =>
      call<{ data: unknown[] }>(
        'GET',
        `/api/limit-orders?status=open&eventSlug=${market.slug}`,
        trader.token,
      );
    await expect.poll(async () => (await open()).data.length).toBe(0);
    await expect.poll(() => focused().then((now) => now.name)).toBe('Open orders');
    await shoot(keys, '7-cancelled', (p) => p.getByRole('region', { name: 'Your activity' }));
  });

  it('8. gets every number right: streaks, leaderboard tabs, a second tab’s balance, one message at a time', async () => {
    await page.goto(`/users/${trader.username}`);
    const stats = page.locator('dl.stats');
    await expect.poll(() => stats.textContent()).toContain('Winning streak');
    expect(await stats.textContent()).not.toContain('Login streak');
    await shoot(page, '8-profile', (p) => p.locator('dl.stats'));

    await page.goto('/leaderboard');
    for (const tab of ['Profit', 'Volume', 'Predictions', 'Trending']) {
      await page.getByRole('tab', { name: tab }).click();
      const panel = page.getByRole('tabpanel');
      await expect.poll(() => panel.locator('tbody tr, .empty').count()).toBeGreaterThan(0);
      expect(await panel.textContent()).not.toContain('No one has traded yet.');
    }
    await page.getByRole('tab', { name: 'Profit' }).click();
    await shoot(page, '8-leaderboard', (p) => p.getByRole('tabpanel'));

    // Two tabs of one person: an order in one, and the other shows the new balance when it is looked at again.
    const market = await openMarket('Will two tabs agree?', [['Twins', 50_000]]);
    const second = await page.context().newPage();
    problems.push(watchForErrors(second));
    await second.goto(`/markets/${market.slug}`);
    const balance = second.getByTestId('header-balance');
    await expect.poll(() => balance.isVisible()).toBe(true);
    const before = await balance.textContent();
    await page.goto(`/markets/${market.slug}`);
    const ticket = page.getByRole('region', { name: 'Trade', exact: true });
    await ticket.getByLabel('Shares').fill('30');
    await ticket.getByRole('button', { name: 'Buy Yes' }).click();
    await expect.poll(() => ticket.getByRole('status').last().textContent()).toMatch(/^Bought 30 Yes/);
    await second.bringToFront();
    await second.evaluate(
      "document.dispatchEvent(new Event('visibilitychange')); window.dispatchEvent(new Event('focus'))",
    );
    const me = await call<{ balance: { cashCents: number } }>('GET', '/api/auth/me', trader.token);
    const now = `${(me.balance.cashCents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })} credits`;
    await expect.poll(() => balance.textContent()).toBe(now);
    expect(now).not.toBe(before);

    // An order the balance cannot cover: flagged before sending, and the answer, when one comes, in numbers.
    const secondTicket = second.getByRole('region', { name: 'Trade', exact: true });
    await secondTicket.getByLabel('Shares').fill('100000');
    await expect
      .poll(() => secondTicket.getByTestId('ticket-problem').textContent())
      .toMatch(/more than the/);
    await shoot(second, '8-balance', (p) => p.getByRole('region', { name: 'Trade', exact: true }));
    await second.close();

    // After a success, only the success is on screen, even when the same order would now be too big.
    await ticket.getByRole('radio', { name: 'Limit' }).check();
    const cash = (await call<{ balance: { cashCents: number } }>('GET', '/api/auth/me', trader.token)).balance
      .cashCents;
    await ticket.getByLabel('Limit price (¢)').fill('2');
    await ticket.getByLabel('Shares').fill(String(Math.floor(cash / 2 / 2)));
    await ticket.getByRole('button', { name: 'Buy Yes (limit)' }).click();
    const review = ticket.getByRole('region', { name: 'Review your order' });
    if (await review.isVisible()) await review.getByRole('button', { name: 'Confirm buy' }).click();
    await expect.poll(() => ticket.getByRole('status').last().textContent()).toMatch(/Limit order open/);
    await expect.poll(() => ticket.getByTestId('ticket-problem').count()).toBe(0);
    await shoot(page, '8-one-message', (p) => p.getByRole('region', { name: 'Trade', exact: true }));
  });

  it('9. has a screen for every feature: watchlist, notes, trending traders, webhook attempts, links', async () => {
    // Watchlist: watch a market from its page, find it on the watchlist.
    await page.goto('/markets/india-cpi-below-4-percent');
    await page.getByRole('button', { name: /Watch/ }).click();
    await expect.poll(() => page.getByRole('button', { name: /Watching/ }).isVisible()).toBe(true);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Watchlist' }).click();
    await expect.poll(() => page.getByTestId('watched').textContent()).toContain('CPI inflation');
    await shoot(page, '9-watchlist', (p) => p.locator('main'));

    // Notes: written on the market, read on the journal.
    await page.goto('/markets/india-cpi-below-4-percent');
    const activity = page.getByRole('region', { name: 'Your activity' });
    // Its lower part is read once scrolled to, and the page still takes its shape: scroll to its end until it shows.
    const notesToggle = activity.getByRole('button', { name: 'Your notes on this market' });
    await expect
      .poll(async () => {
        await activity.evaluate((element) => element.scrollIntoView({ block: 'end' }));
        return notesToggle.isVisible();
      })
      .toBe(true);
    await notesToggle.click();
    await activity.getByLabel('Add a note').fill('Vegetable prices are the risk here.');
    await activity.getByRole('button', { name: 'Save note' }).click();
    await expect.poll(() => activity.getByTestId('note').count()).toBe(1);
    await activity.getByRole('link', { name: 'All your notes' }).click();
    await expect
      .poll(() => page.getByRole('heading', { level: 1, name: 'Your notes' }).isVisible())
      .toBe(true);
    await expect.poll(() => page.getByTestId('note').first().textContent()).toContain('Vegetable prices');
    expect(await page.getByTestId('note').first().textContent()).toContain('CPI inflation');
    await shoot(page, '9-notes', (p) => p.locator('main'));

    // Trending traders.
    const cpi = await call<Market>('GET', '/api/events/india-cpi-below-4-percent', null);
    await trade(other, cpi.options[0]!.id, 'YES', 5);
    await page.goto('/leaderboard?board=trending');
    await expect.poll(() => page.getByTestId('trending-row').count()).toBeGreaterThan(0);
    await shoot(page, '9-trending', (p) => p.getByRole('tabpanel'));

    // Market titles in the history of fills (a settled market's too) and open orders.
    await page.goto('/portfolio');
    await page.getByRole('region', { name: 'History' }).scrollIntoViewIfNeeded();
    const history = page.getByRole('table', { name: 'Fills' });
    await expect.poll(() => history.textContent()).toContain('Who wins the findings derby?');
    expect(await page.getByRole('table', { name: 'Open orders' }).textContent()).toContain(
      'Will two tabs agree?',
    );
    await shoot(page, '9-history', (p) => p.getByRole('table', { name: 'Fills' }));

    // A notification leads to what it is about.
    await call('POST', '/api/posts', trader.token, {
      eventSlug: 'india-cpi-below-4-percent',
      text: 'Below 4% is a stretch.',
    });
    const posts = await call<{ data: { id: string }[] }>(
      'GET',
      '/api/posts?eventSlug=india-cpi-below-4-percent',
      null,
    );
    // The like and the comment arrive on the stream: the bell counts each at once.
    const bell = page.getByRole('link', { name: /Notifications/ });
    const unread = async () => Number(/(\d+) unread/.exec((await bell.textContent()) ?? '')?.[1] ?? 0);
    const before = await unread();
    await call('POST', `/api/posts/${posts.data[0]!.id}/like`, other.token);
    await call('POST', `/api/posts/${posts.data[0]!.id}/comments`, other.token, { text: 'Maybe not.' });
    await expect.poll(unread).toBe(before + 2);
    await bell.click();
    const liked = page.getByTestId('notification').filter({ hasText: 'liked your post' });
    await expect.poll(() => liked.isVisible()).toBe(true);
    await shoot(page, '9-notifications', (p) => p.locator('main'));
    await liked.getByRole('link', { name: /Open the market/ }).click();
    await expect
      .poll(() => page.getByRole('heading', { level: 1, name: /CPI inflation/ }).isVisible())
      .toBe(true);

    // The console: webhook delivery attempts, and a link to the draft an approved suggestion made.
    const ops = await signedInPage(admin);
    await call('POST', '/api/me/webhooks', trader.token, { url: receiver.url, events: ['order.cancelled'] });
    const order = await call<{ id: string }>('POST', '/api/limit-orders', trader.token, {
      optionId: (await call<Market>('GET', '/api/events/india-cpi-below-4-percent', null)).options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      limitPriceCents: 2,
    });
    await call('DELETE', `/api/limit-orders/${order.id}`, trader.token);
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await ops.goto('/admin/webhooks');
    await ops.getByLabel('Status').selectOption('pending');
    const delivery = ops.getByTestId('admin-delivery').first();
    await expect.poll(() => delivery.textContent()).toContain('HTTP 500');
    expect(await delivery.textContent()).toContain(trader.username);
    await shoot(ops, '9-console-webhooks', (p) => p.locator('main'));

    await call('POST', '/api/market-suggestions', trader.token, {
      title: 'Will the findings suite turn green?',
      category: 'testing',
      options: ['Yes'],
    });
    await ops.goto('/admin/suggestions');
    await ops.getByRole('button', { name: 'Approve into a draft event' }).first().click();
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    const reviewed = ops.getByTestId('suggestion-reviewed');
    await expect.poll(() => reviewed.textContent()).toContain('is now a draft event');
    await shoot(ops, '9-suggestion-link', (p) => p.getByTestId('suggestion-reviewed'));
    await reviewed.getByRole('link', { name: 'Open the draft' }).click();
    await expect
      .poll(() => ops.getByRole('heading', { name: 'Will the findings suite turn green?' }).isVisible())
      .toBe(true);
  });

  it('10. says what a price means, tells the stream’s state truthfully, pushes likes, comments and a close', async () => {
    await page.goto('/');
    expect(await page.getByTestId('price-meaning').textContent()).toContain('pays 100¢ if it happens');
    await shoot(page, '10-landing', (p) => p.getByTestId('price-meaning'));

    // The console is its own chunk: a trader's visit never loads it.
    const scripts: string[] = [];
    const watcher = await signedInPage(other);
    watcher.on('request', (request) => {
      if (request.url().includes('/assets/')) scripts.push(new URL(request.url()).pathname);
    });
    const market = await openMarket('Will the stream tell the truth?', [['Truth', 50_000]]);
    await watcher.goto(`/markets/${market.slug}`);
    await expect.poll(() => watcher.getByTestId('book-live').textContent()).toContain('Live');
    expect(scripts.some((file) => /Console-/.test(file))).toBe(false);

    // Likes and comments arrive without a reload.
    const post = await call<{ id: string }>('POST', '/api/posts', trader.token, {
      eventSlug: market.slug,
      text: 'The truth will out.',
    });
    const discussion = watcher.getByRole('region', { name: 'Discussion' });
    await discussion.scrollIntoViewIfNeeded();
    const item = discussion.locator('li.post').filter({ hasText: 'The truth will out.' });
    await expect.poll(() => item.isVisible()).toBe(true);
    await watcher.evaluate('window.stillTheSamePage = true');
    await call('POST', `/api/posts/${post.id}/like`, admin.token);
    await call('POST', `/api/posts/${post.id}/comments`, admin.token, { text: 'Agreed.' });
    await expect.poll(() => item.getByRole('button', { name: /^(Like|Liked) \(1\)/ }).isVisible()).toBe(true);
    await expect.poll(() => item.getByRole('button', { name: 'Comments (1)' }).isVisible()).toBe(true);
    await shoot(watcher, '10-live-discussion', (p) =>
      p.getByRole('region', { name: 'Discussion' }).locator('li.post').first(),
    );

    // The close arrives at once, not with the next poll.
    await call('POST', `/api/admin/events/${market.id}/close`, admin.token);
    await expect
      .poll(() => watcher.getByRole('heading', { name: 'Trading closed' }).isVisible(), { timeout: 3_000 })
      .toBe(true);
    expect(await watcher.evaluate('window.stillTheSamePage')).toBe(true);
    await shoot(watcher, '10-closed-live', (p) => p.getByRole('region', { name: 'Trading closed' }));

    // The stream's state, when the server is gone: the book says so instead of "live".
    const lost = await signedInPage(other);
    let cut: (() => Promise<void>) | null = null;
    await lost.routeWebSocket(/\/api\/stream/, (socket) => {
      const upstream = socket.connectToServer();
      cut = async () => {
        await upstream.close();
        await socket.close();
      };
    });
    await lost.goto('/markets/india-cpi-below-4-percent');
    await expect.poll(() => lost.getByTestId('book-live').textContent()).toContain('Live');
    // From now on the stream cannot be reached again.
    await lost.routeWebSocket(/\/api\/stream/, (socket) => socket.close());
    await cut!();
    await expect.poll(() => lost.getByTestId('book-live').textContent()).toContain('Live updates lost');
    await shoot(lost, '10-stream-lost', (p) => p.getByRole('region', { name: /Order book/ }));

    // Flags: a flag switched on that cannot take effect says so, beside a "Switch off".
    const ops = await signedInPage(admin);
    await ops.goto('/admin/flags');
    const cricket = ops.getByTestId('flag-cricketLive');
    await cricket.getByRole('button', { name: 'Switch on cricketLive' }).click();
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => cricket.getByTestId('flag-state').textContent()).toContain('not in effect');
    expect(await cricket.getByRole('button', { name: 'Switch off cricketLive' }).isVisible()).toBe(true);
    await shoot(ops, '10-flags', (p) => p.getByTestId('flag-cricketLive'));
    expect(scripts.some((file) => /Console-/.test(file))).toBe(false);

    // The liquidity field is in credits, and so is its error.
    await ops.goto('/admin');
    await ops.getByLabel('Title').fill('Will the error speak credits?');
    await ops.getByLabel('Category').fill('testing');
    await ops.getByLabel('Option 1 label').fill('Credits');
    await ops.getByLabel('Option 1 liquidity (credits)').fill('-5');
    await ops
      .getByRole('button', { name: /Create/ })
      .first()
      .click();
    await expect
      .poll(() => ops.getByRole('alert').first().textContent())
      .toContain('The house liquidity must be');
    expect(await ops.getByRole('alert').first().textContent()).toContain('credits');
    expect(await ops.getByRole('alert').first().textContent()).not.toContain('Liquidity cents');
    await shoot(ops, '10-liquidity-error', (p) => p.getByRole('alert').first());
  });

  it('reported no script errors', () => {
    // The stream cut on purpose is logged by the browser as a failed WebSocket: that one is expected.
    expect(problems.flat().filter((line) => !line.includes('WebSocket'))).toEqual([]);
  });
});
