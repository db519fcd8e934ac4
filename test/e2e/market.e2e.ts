import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docsScreenshot, launchBrowser, watchForErrors } from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';

const ADMIN_EMAIL = 'admin@e2e.example';
const PASSWORD = 'correct horse battery';
/** A one-option demo market, so the page has a single order book to follow. */
const LIVE_MARKET = 'maharashtra-turnout-over-65';

interface Session {
  token: string;
  user: { id: string; username: string };
}

/**
 * The market page as a trading screen, in a real Chromium against the real service: it follows another user's
 * trades without a reload, estimates what an order fills, reviews big orders, shows a resolved market as resolved
 * and takes a dispute; the main pages pass axe-core in light and dark at desktop and phone widths.
 */
describe('market page in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let admin: Session;
  let trader: Session;
  let other: Session;
  let resolvedSlug = '';

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

  async function register(email: string, username: string): Promise<Session> {
    return call<Session>('POST', '/api/auth/register', null, { email, username, password: PASSWORD });
  }

  async function optionOf(slug: string): Promise<{ eventId: string; optionId: string }> {
    const market = await call<{ id: string; options: { id: string }[] }>('GET', `/api/events/${slug}`, null);
    return { eventId: market.id, optionId: market.options[0]!.id };
  }

  async function marketBuy(session: Session, optionId: string, quantity: number, priceCents = 99) {
    return call<{ filledQuantity: number; averagePriceCents: number }>('POST', '/api/trades', session.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity,
      priceCents,
    });
  }

  /** An open market of one option with house liquidity, made by the admin. */
  async function openMarket(title: string, label: string) {
    return call<{ id: string; slug: string; options: { id: string }[] }>(
      'POST',
      '/api/admin/events',
      admin.token,
      {
        title,
        category: 'economics',
        description: 'Resolved by the operator at once.',
        closesAt: new Date(Date.now() + 86_400_000).toISOString(),
        options: [{ label, liquidityCents: 50_000 }],
        open: true,
      },
    );
  }

  async function signIn(target: Page, session: Session): Promise<void> {
    await target.goto('/');
    await target.evaluate(`localStorage.setItem('pmx.session', ${JSON.stringify(session.token)})`);
  }

  const ticket = () => page.getByRole('region', { name: 'Trade', exact: true });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const stamp = Date.now() % 1_000_000;
    [admin, trader, other] = await Promise.all([
      register(ADMIN_EMAIL, `boss${stamp}`),
      register(`trader${stamp}@e2e.example`, `trader${stamp}`),
      register(`other${stamp}@e2e.example`, `other${stamp}`),
    ]);
    await becomeOperator(server.url, admin.token);
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 768 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    problems = watchForErrors(page);
    await signIn(page, trader);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('follows another user’s trade without a reload: table, ticket, chart and position', async () => {
    const { optionId } = await optionOf(LIVE_MARKET);
    await marketBuy(trader, optionId, 10);
    await page.goto(`/markets/${LIVE_MARKET}`);
    const chance = page.getByTestId('option-chance');
    const yesPrice = ticket().getByTestId('ticket-yes-price');
    const chart = page.getByTestId('price-chart');
    const position = page.getByRole('region', { name: 'Your activity' }).getByTestId('position');
    await expect.poll(() => position.count()).toBe(1);
    await expect.poll(() => page.getByRole('table', { name: /Asks/ }).isVisible()).toBe(true);
    const before = {
      chance: await chance.textContent(),
      yes: await yesPrice.textContent(),
      points: Number(await chart.getAttribute('data-points')),
      position: await position.textContent(),
    };
    await page.evaluate('window.stillTheSamePage = true');

    await marketBuy(other, optionId, 400);

    await expect.poll(() => chance.textContent()).not.toBe(before.chance);
    await expect.poll(() => yesPrice.textContent()).not.toBe(before.yes);
    await expect
      .poll(async () => Number(await chart.getAttribute('data-points')))
      .toBeGreaterThan(before.points);
    await expect.poll(() => position.textContent()).not.toBe(before.position);
    expect(await page.evaluate('window.stillTheSamePage')).toBe(true);
    // The chart shows the value under the pointer: at the right edge of its plot (now, left of the price scale),
    // the latest price.
    const box = (await chart.locator('td').nth(1).boundingBox())!;
    await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
    await expect.poll(() => page.getByTestId('chart-tip').textContent()).toMatch(/Over 65%: Yes \d+¢/);
    // The chance shown is the price of the last trade, as the service now reports it.
    const market = await call<{ options: { probabilityBps: number }[] }>(
      'GET',
      `/api/events/${LIVE_MARKET}`,
      null,
    );
    await expect.poll(() => chance.textContent()).toBe(`${market.options[0]!.probabilityBps / 100}%`);
  });

  it('estimates a market order’s fill from the visible book, and the service fills exactly that', async () => {
    await ticket().getByLabel('Shares').fill('100');
    const estimate = ticket().getByTestId('estimate');
    await expect.poll(() => estimate.textContent()).toMatch(/^Estimate: 100 of 100 fill now at about \d+¢/);
    const average = /about (\d+)¢/.exec((await estimate.textContent())!)![1];
    const estimatedCost = await ticket().getByTestId('preview-estimate').textContent();
    const cashBefore = (await call<{ balance: { cashCents: number } }>('GET', '/api/auth/me', trader.token))
      .balance.cashCents;
    await ticket().getByRole('button', { name: 'Buy Yes' }).click();
    await expect
      .poll(() => ticket().getByRole('status').last().textContent())
      .toBe(`Bought 100 Yes at ${average}¢ on average.`);
    const cashAfter = (await call<{ balance: { cashCents: number } }>('GET', '/api/auth/me', trader.token))
      .balance.cashCents;
    const spent = ((cashBefore - cashAfter) / 100).toLocaleString('en-US', { minimumFractionDigits: 2 });
    expect(`${spent} credits`).toBe(estimatedCost);
  });

  it('clears the last message when the inputs change, and flags a cost over the balance before sending', async () => {
    await ticket().getByLabel('Shares').fill('5000');
    expect(await ticket().getByRole('status').count()).toBe(0);
    await expect
      .poll(() => ticket().getByTestId('ticket-problem').textContent())
      .toMatch(/more than the .* available/);
    expect(await ticket().getByRole('button', { name: 'Buy Yes' }).isDisabled()).toBe(true);
  });

  it('shows a big order, or one sent with Enter, for review before placing it', async () => {
    const { optionId } = await optionOf(LIVE_MARKET);
    const held = async () =>
      (
        await call<{ data: { optionId: string; quantity: number }[] }>('GET', '/api/positions', trader.token)
      ).data.find((p) => p.optionId === optionId)?.quantity;
    const before = await held();
    await ticket().getByLabel('Shares').fill('300');
    await ticket().getByRole('button', { name: 'Buy Yes' }).click();
    const review = ticket().getByRole('region', { name: 'Review your order' });
    await expect
      .poll(() => review.textContent())
      .toMatch(/Buy 300 Yes · Over 65% · market order, paying at most \d+¢/);
    await docsScreenshot(page, 'market-review-desktop');
    expect(await held()).toBe(before);
    await review.getByRole('button', { name: 'Change it' }).click();
    expect(await review.count()).toBe(0);

    await ticket().getByLabel('Shares').fill('5');
    await ticket().getByLabel('Shares').press('Enter');
    await expect.poll(() => review.isVisible()).toBe(true);
    expect(await held()).toBe(before);
    await review.getByRole('button', { name: 'Confirm buy' }).click();
    await expect
      .poll(() => ticket().getByRole('status').last().textContent())
      .toMatch(/^Bought 5 Yes at \d+¢/);
    await expect.poll(held).toBe((before ?? 0) + 5);
  });

  it('fills the ticket from a book level, and shows shares held with a Max when selling', async () => {
    const asks = page.getByRole('table', { name: /Asks/ });
    const best = asks.getByRole('button').first();
    const price = /(\d+)¢/.exec((await best.textContent())!)![1];
    await best.click();
    // The ticket re-renders after the click: wait for it rather than read it at once.
    await expect.poll(() => ticket().getByRole('radio', { name: 'Limit' }).isChecked()).toBe(true);
    await expect.poll(() => ticket().getByLabel('Limit price (¢)').inputValue()).toBe(price);

    await ticket().getByRole('radio', { name: 'Sell' }).check();
    // The holdings are read again a moment after each order: the ticket comes to show what the service holds.
    const { optionId } = await optionOf(LIVE_MARKET);
    const positions = await call<{
      data: { optionId: string; side: string; quantity: number; reservedQuantity: number }[];
    }>('GET', '/api/positions', trader.token);
    const position = positions.data.find((p) => p.optionId === optionId && p.side === 'YES');
    const held = String((position?.quantity ?? 0) - (position?.reservedQuantity ?? 0));
    expect(Number(held)).toBeGreaterThan(100);
    await expect.poll(() => ticket().getByTestId('shares-held').textContent()).toBe(held);
    await ticket().getByRole('button', { name: 'Max' }).click();
    await expect.poll(() => ticket().getByLabel('Shares').inputValue()).toBe(held);
    await ticket().getByRole('radio', { name: 'Buy' }).check();
  });

  it('shows a resolved market as resolved: the outcome, payouts at 100¢, no ticket or book, and a dispute', async () => {
    const created = await openMarket('Will the e2e suite pass today?', 'Passes');
    resolvedSlug = created.slug;
    await marketBuy(trader, created.options[0]!.id, 10);
    await call('POST', `/api/admin/events/${created.id}/close`, admin.token);
    await call('POST', `/api/admin/events/${created.id}/resolve`, admin.token, {
      outcomes: [{ optionId: created.options[0]!.id, outcome: 'YES' }],
    });

    await page.goto(`/markets/${resolvedSlug}`);
    const outcome = page.getByRole('region', { name: 'Outcome' });
    await expect.poll(() => outcome.getByTestId('outcome').textContent()).toBe('Yes');
    expect(await page.getByTestId('option-chance').textContent()).toBe('Resolved Yes');
    expect(await page.getByRole('region', { name: 'Trade', exact: true }).count()).toBe(0);
    expect(await page.getByRole('table', { name: /Bids/ }).count()).toBe(0);
    const position = page.getByRole('region', { name: 'Your activity' }).getByTestId('position');
    await expect.poll(() => position.textContent()).toContain('100¢');
    expect(await position.getByRole('button', { name: /protections/ }).count()).toBe(0);
    await expect.poll(() => outcome.getByTestId('payout').textContent()).toContain('pays 10.00 credits');

    await outcome.getByRole('button', { name: 'Dispute the result' }).click();
    await outcome.getByLabel('Why is the result wrong?').fill('The suite was red at noon.');
    await docsScreenshot(page, 'market-resolved-desktop');
    await outcome.getByRole('button', { name: 'File dispute' }).click();
    await expect.poll(() => outcome.getByRole('status').textContent()).toContain('Dispute filed');
    const again = await fetch(`${server.url}/api/events/${created.id}/dispute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${trader.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'again' }),
    });
    expect(((await again.json()) as { code: string }).code).toBe('ALREADY_DISPUTED');
  });

  it('offers the dispute to a former holder who sold out, and not to a trader who never held the market', async () => {
    const created = await openMarket('Will the former holder be heard?', 'Heard');
    const optionId = created.options[0]!.id;
    await marketBuy(other, optionId, 5);
    await call('POST', '/api/trades', other.token, {
      optionId,
      side: 'YES',
      action: 'SELL',
      quantity: 5,
      priceCents: 1,
    });
    await call('POST', `/api/admin/events/${created.id}/close`, admin.token);
    await call('POST', `/api/admin/events/${created.id}/resolve`, admin.token, {
      outcomes: [{ optionId, outcome: 'NO' }],
    });

    const formerContext = await browser.newContext({
      baseURL: server.url,
      viewport: { width: 1366, height: 768 },
    });
    try {
      const former = await formerContext.newPage();
      await signIn(former, other);
      await former.goto(`/markets/${created.slug}`);
      const outcome = former.getByRole('region', { name: 'Outcome' });
      await expect
        .poll(() => outcome.getByRole('button', { name: 'Dispute the result' }).isVisible())
        .toBe(true);
      expect(
        await former.getByRole('region', { name: 'Your activity' }).getByTestId('position').count(),
      ).toBe(0);
    } finally {
      await formerContext.close();
    }

    await page.goto(`/markets/${created.slug}`);
    const outcome = page.getByRole('region', { name: 'Outcome' });
    await expect.poll(() => outcome.getByTestId('outcome').textContent()).toBe('No');
    await expect.poll(() => page.getByText('No trades here yet.').isVisible()).toBe(true);
    expect(await outcome.getByRole('button', { name: 'Dispute the result' }).count()).toBe(0);
  });

  it('applies the status filter everywhere: no open Featured row under Resolved', async () => {
    await page.goto('/?status=resolved');
    await expect.poll(() => page.getByRole('link', { name: /e2e suite pass/ }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Featured' }).count()).toBe(0);
  });

  it('answers an unknown market or trader with a not-found page and a way back', async () => {
    for (const [path, heading] of [
      ['/markets/no-such-market', 'Market not found'],
      ['/users/no_such_trader', 'Trader not found'],
    ] as const) {
      await page.goto(path);
      await expect.poll(() => page.getByRole('heading', { level: 1, name: heading }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      expect(await page.getByRole('main').getByRole('link', { name: 'Browse the markets' }).count()).toBe(1);
    }
  });

  it('fits a 390 px phone: no page scrolls sideways, the Account page included', async () => {
    const phone = await context.newPage();
    const phoneProblems = watchForErrors(phone);
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const path of [
      '/account',
      '/',
      `/markets/${LIVE_MARKET}`,
      `/markets/${resolvedSlug}`,
      '/portfolio',
    ]) {
      await phone.goto(path);
      await phone.waitForLoadState('networkidle');
      expect(await phone.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(
        390,
      );
    }
    await phone.close();
    expect(phoneProblems).toEqual([]);
  });

  /** The main pages; the phone pass covers the ones whose layout changes most at 390 px. */
  const mainPages = (): { path: string; name: string; phone: boolean }[] => [
    { path: '/', name: 'markets', phone: true },
    { path: `/markets/${LIVE_MARKET}`, name: 'market', phone: true },
    { path: `/markets/${resolvedSlug}`, name: 'market-resolved', phone: true },
    { path: '/portfolio', name: 'portfolio', phone: true },
    { path: '/account', name: 'account', phone: true },
    { path: '/notifications', name: 'notifications', phone: false },
    { path: '/leaderboard', name: 'leaderboard', phone: false },
    { path: '/leaderboard?board=trending', name: 'trending', phone: false },
    { path: '/watchlist', name: 'watchlist', phone: true },
    { path: '/notes', name: 'notes', phone: false },
    { path: '/tournaments', name: 'tournaments', phone: true },
    { path: '/challenges', name: 'challenges', phone: false },
    { path: '/progress', name: 'progress', phone: false },
    { path: '/users/asha_k', name: 'profile', phone: false },
    { path: '/no-such-page', name: 'not-found', phone: false },
  ];

  it.each(['light', 'dark'] as const)(
    'passes axe-core on every main page in %s, with screenshots at 1366 and 390 wide',
    async (theme) => {
      const phone = await context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      // No colour transitions: axe measures contrast on the colours as they settle, not halfway through a fade.
      for (const target of [page, phone]) await target.emulateMedia({ reducedMotion: 'reduce' });
      await call('PATCH', '/api/me/preferences', trader.token, { darkMode: theme === 'dark' });
      await page.evaluate(`localStorage.setItem('pmx.theme', '${theme}')`);
      const suffix = theme === 'dark' ? '-dark' : '';
      for (const { path, name, phone: onPhone } of mainPages()) {
        for (const [target, width] of [
          [page, 'desktop'] as const,
          ...(onPhone ? [[phone, 'phone'] as const] : []),
        ]) {
          await target.goto(path);
          await expect.poll(() => target.locator('html').getAttribute('data-theme')).toBe(theme);
          await target.waitForLoadState('networkidle');
          expect(await axeViolations(target), `${path} ${theme} ${width}`).toEqual([]);
          await docsScreenshot(target, `${name}-${width}${suffix}`);
        }
      }
      await phone.close();
    },
    120_000,
  );

  it('reported no script errors or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
