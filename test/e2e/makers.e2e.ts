import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  docsScreenshot,
  launchBrowser,
  screenshot,
  watchForErrors,
} from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';

const ADMIN_EMAIL = 'admin@makers.example';
const PASSWORD = 'correct horse battery';
/** A demo market of one option, where the trader's other orders wait while one market's are cancelled. */
const OTHER_MARKET = 'maharashtra-turnout-over-65';

interface Session {
  token: string;
}
interface OrderView {
  id: string;
  eventSlug: string;
  priceCents: number;
  remainingQuantity: number;
  timeInForce: string;
  postOnly: boolean;
  expiresAt: string | null;
  status: string;
}

/**
 * The maker's tools on the screen, in a real Chromium against the real service: the ticket's time in force,
 * expiry and post-only with their review; amending an order's price and shares in place and cancelling all of a
 * market's or all orders, by keyboard; at 1366 and 390 px, light and dark, axe-clean.
 */
describe('the maker’s tools in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let admin: Session;
  let trader: Session;
  let slug = '';
  let optionId = '';

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

  const openOrders = async (eventSlug?: string) =>
    (
      await call<{ data: OrderView[] }>(
        'GET',
        `/api/limit-orders?status=open&limit=200${eventSlug ? `&eventSlug=${eventSlug}` : ''}`,
        trader.token,
      )
    ).data;

  const bid = (market: string, priceCents: number) =>
    call<{ id: string }>('POST', '/api/limit-orders', trader.token, {
      optionId: market,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      limitPriceCents: priceCents,
    });

  const ticket = () => page.getByRole('region', { name: 'Trade', exact: true });
  const activity = () => page.getByRole('region', { name: 'Your activity' });
  const focusedName = () =>
    page.evaluate<string>(
      `document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''`,
    );

  const focusedLabel = () =>
    page.evaluate<string>(`document.activeElement?.closest('label')?.firstChild?.textContent ?? ''`);

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const stamp = Date.now() % 1_000_000;
    const register = (email: string, username: string) =>
      call<Session>('POST', '/api/auth/register', null, { email, username, password: PASSWORD });
    [admin, trader] = await Promise.all([
      register(ADMIN_EMAIL, `boss${stamp}`),
      register(`maker${stamp}@e2e.example`, `maker${stamp}`),
    ]);
    await becomeOperator(server.url, admin.token);
    const market = await call<{ slug: string; options: { id: string }[] }>(
      'POST',
      '/api/admin/events',
      admin.token,
      {
        title: `Repo rate cut by June ${stamp}?`,
        category: 'economics',
        description: 'Resolved from the central bank’s statement.',
        closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        options: [{ label: 'Cut', liquidityCents: 50_000 }],
        open: true,
      },
    );
    slug = market.slug;
    optionId = market.options[0]!.id;
    for (const price of [20, 21, 22]) await bid(optionId, price);
    const other = await call<{ options: { id: string }[] }>('GET', `/api/events/${OTHER_MARKET}`, null);
    await bid(other.options[0]!.id, 10);
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    problems = watchForErrors(page);
    await page.goto('/');
    await page.evaluate(`localStorage.setItem('pmx.session', ${JSON.stringify(trader.token)})`);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('places a GTD post-only limit order after a review that states its terms', async () => {
    await page.goto(`/markets/${slug}`);
    await ticket().getByRole('radio', { name: 'Limit' }).check();
    await ticket().getByLabel('Time in force').selectOption('GTD');
    await ticket().getByLabel('Expires after').selectOption('168');
    await ticket().getByLabel('Post-only').check();
    await ticket().getByLabel('Shares').fill('5');
    // At a price that would trade with the house's offer, post-only says so before anything is sent.
    await ticket().getByLabel('Limit price (¢)').fill('95');
    await expect
      .poll(() => ticket().getByTestId('ticket-problem').textContent())
      .toMatch(/^A post-only order only waits in the book, and at this price it would trade now/);
    await ticket().getByLabel('Limit price (¢)').fill('30');
    await ticket().getByRole('button', { name: 'Buy Yes (limit)' }).click();
    const review = ticket().getByRole('region', { name: 'Review your order' });
    await expect
      .poll(() => review.getByTestId('review-terms').textContent())
      .toBe('Limit order good for 7 days, post-only.');
    expect(await axeViolations(page)).toEqual([]);
    await review.getByRole('button', { name: 'Confirm buy' }).click();
    await expect
      .poll(() => ticket().getByRole('status').last().textContent())
      .toBe('Limit order open: 5 Yes at 30¢.');
    const placed = (await openOrders(slug)).find((order) => order.priceCents === 30)!;
    expect(placed).toMatchObject({ timeInForce: 'GTD', postOnly: true, remainingQuantity: 5 });
    const hours = (Date.parse(placed.expiresAt!) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(167);
    expect(hours).toBeLessThanOrEqual(168);

    // IOC and FOK never rest, so they cannot be post-only.
    await ticket().getByLabel('Time in force').selectOption('FOK');
    expect(await ticket().getByLabel('Post-only').isDisabled()).toBe(true);
    await ticket().getByLabel('Time in force').selectOption('GTC');
  });

  it('moves between orders with the arrow keys and amends price and shares in place by keyboard', async () => {
    const rows = activity().getByTestId('open-order');
    await expect.poll(() => rows.count()).toBe(4);
    // One Tab stop for all the rows' actions: the first row's Amend, then the arrows.
    const amendButtons = activity().getByRole('button', { name: /^Amend order/ });
    expect(
      await page.evaluate<string[]>(
        `[...document.querySelectorAll('[data-action="amend"]')].map((button) => button.getAttribute('tabindex'))`,
      ),
    ).toEqual(['0', '-1', '-1', '-1']);
    await amendButtons.first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    // Two presses in a quick run move two rows, each from where the last left the keyboard.
    expect(await page.evaluate<string>(`document.activeElement?.closest('tr')?.dataset.row ?? ''`)).toBe('2');
    const target = (await focusedName()).replace(/^Amend order: /, '');
    expect(target).toMatch(/^buy \d+ Yes Cut at \d+¢$/);
    const price = Number(/at (\d+)¢/.exec(target)![1]);
    await page.keyboard.press('Enter');
    const fields = activity().getByRole('group', { name: `Amend order: ${target}` });
    await expect.poll(focusedLabel).toBe('Price (¢)');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('25');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
    await expect.poll(() => fields.getByRole('status').textContent()).toMatch(/replace the order/);
    await screenshots('makers-amend', screenshot);
    await page.keyboard.press('Enter');
    await expect.poll(() => fields.count()).toBe(0);
    await expect
      .poll(async () => (await openOrders(slug)).map((o) => o.priceCents).sort())
      .toEqual([20, 21, 22, 25, 30].filter((p) => p !== price));
    const amended = (await openOrders(slug)).find((order) => order.priceCents === 25)!;
    expect(amended.remainingQuantity).toBe(3);
    // The keyboard stays on the amended row's Amend.
    await expect.poll(focusedName).toMatch(/^Amend order: buy 3 Yes Cut at 25¢$/);

    // Fewer shares at the same price keep the order's place: the fields say so before it is sent.
    await page.keyboard.press('Enter');
    const again = activity().getByRole('group', { name: /^Amend order: buy 3 Yes Cut at 25¢/ });
    await again.getByLabel('Shares left').fill('2');
    await expect.poll(() => again.getByRole('status').textContent()).toMatch(/keep the order’s place/);
    await page.keyboard.press('Escape');
    await expect.poll(() => again.count()).toBe(0);
  });

  it('cancels all of this market’s orders after a confirmation, and leaves the others', async () => {
    await activity().getByRole('button', { name: 'Cancel all here' }).click();
    const confirm = activity().getByRole('alertdialog', { name: 'Cancel every open order in this market?' });
    await expect.poll(() => confirm.textContent()).toMatch(/All 4 of your open orders in this market/);
    expect(await axeViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => activity().getByTestId('open-order').count()).toBe(0);
    expect(await openOrders(slug)).toEqual([]);
    expect((await openOrders()).map((order) => order.eventSlug)).toEqual([OTHER_MARKET]);
  });

  it('cancels every order from the portfolio with one button', async () => {
    await bid(optionId, 15);
    await page.goto('/portfolio');
    const orders = page.getByRole('region', { name: 'Open orders' });
    await expect.poll(() => orders.getByTestId('open-order').count()).toBe(2);
    await orders.getByRole('button', { name: 'Cancel all orders' }).click();
    const confirm = orders.getByRole('alertdialog', { name: 'Cancel every open order?' });
    await expect.poll(() => confirm.textContent()).toMatch(/All 2 of your open orders, in every market,/);
    await confirm.getByRole('button', { name: 'Confirm' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => orders.getByText('No open orders.').isVisible()).toBe(true);
    expect(await openOrders()).toEqual([]);
  });

  it('shows the ticket’s terms and the orders’ actions at 1366 and 390 px, light and dark, axe-clean', async () => {
    for (const price of [31, 32]) await bid(optionId, price);
    await page.goto(`/markets/${slug}`);
    await ticket().getByRole('radio', { name: 'Limit' }).check();
    await ticket().getByLabel('Time in force').selectOption('GTD');
    await ticket().getByLabel('Post-only').check();
    await expect.poll(() => activity().getByTestId('open-order').count()).toBe(2);
    await activity()
      .getByRole('button', { name: /^Amend order/ })
      .first()
      .click();
    await screenshots('makers', docsScreenshot);
  });

  it('fits the leaderboard’s tabs on a 390 px phone', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto('/leaderboard');
    const tabs = phone.getByRole('tablist', { name: 'Rank traders by' });
    await expect.poll(() => tabs.getByRole('tab').count()).toBe(4);
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // All four on one line, inside the screen.
    const boxes = await Promise.all(
      (await tabs.getByRole('tab').all()).map(async (tab) => (await tab.boundingBox())!),
    );
    for (const box of boxes) {
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.y).toBe(boxes[0]!.y);
    }
    await docsScreenshot(phone, 'leaderboard-phone');
    expect(await axeViolations(phone)).toEqual([]);
    await phone.close();
  });

  it('reported no script errors or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });

  /** The page as it stands at 1366 and 390 px wide, light and dark, each axe-clean and without sideways scrolling. */
  async function screenshots(
    name: string,
    shoot: (target: Page, name: string) => Promise<void>,
  ): Promise<void> {
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate(`document.documentElement.setAttribute('data-theme', '${theme}')`);
      for (const [width, suffix] of [
        [1366, 'desktop'],
        [390, 'phone'],
      ] as const) {
        await page.setViewportSize({ width, height: 900 });
        expect(await axeViolations(page), `${name} ${theme} ${width}`).toEqual([]);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          width,
        );
        // The rows' actions are in sight, not behind the table's own sideways scroll.
        const rightmost = await page.evaluate<number>(
          `Math.max(...[...document.querySelectorAll('[data-action]')].map((b) => b.getBoundingClientRect().right))`,
        );
        expect(rightmost, `${name} ${width}`).toBeLessThanOrEqual(width);
        await shoot(page, `${name}-${suffix}${theme === 'dark' ? '-dark' : ''}`);
      }
    }
    await page.evaluate(`document.documentElement.setAttribute('data-theme', 'light')`);
    await page.setViewportSize({ width: 1366, height: 900 });
  }
});
