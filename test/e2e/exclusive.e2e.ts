import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, docsScreenshot, launchBrowser, watchForErrors } from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';

const ADMIN_EMAIL = 'admin@exclusive.example';
const PASSWORD = 'correct horse battery';
/** The demo's exclusive event: five teams, one of them "Any other team", one house maker. */
const IPL = 'ipl-2027-champion';

interface Session {
  token: string;
  user: { id: string; username: string };
}

interface Market {
  id: string;
  slug: string;
  exclusive: boolean;
  options: { id: string; label: string; probabilityBps: number }[];
}

interface Holding {
  optionId: string;
  side: 'YES' | 'NO';
  quantity: number;
}

/**
 * An exclusive event ("who wins?") traded and converted from the market page in Chromium against the real service:
 * one chart and one ticket for every option, chances that move together and add up to 100 %, and the conversions
 * (No into Yes on every other option, split, merge) offered only where the holder can use them.
 */
describe('an exclusive event in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let admin: Session;
  let trader: Session;

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

  const market = (slug: string) => call<Market>('GET', `/api/events/${slug}`, null);
  const cash = async () =>
    (await call<{ balance: { cashCents: number } }>('GET', '/api/auth/me', trader.token)).balance.cashCents;
  /** The trader's shares in an event, "label side" → quantity. */
  async function holdings(event: Market): Promise<Record<string, number>> {
    const positions = await call<{ data: Holding[] }>('GET', '/api/positions', trader.token);
    const held: Record<string, number> = {};
    for (const position of positions.data) {
      const option = event.options.find((o) => o.id === position.optionId);
      if (option && position.quantity > 0) held[`${option.label} ${position.side}`] = position.quantity;
    }
    return held;
  }

  const ticket = () => page.getByRole('region', { name: 'Trade', exact: true });
  const conversions = () => page.getByRole('region', { name: 'Conversions' });
  /** The chances the options table shows, in percent, by option. */
  async function chancesShown(): Promise<Record<string, number>> {
    const rows = page.getByTestId('option-row');
    const shown: Record<string, number> = {};
    for (const row of await rows.all()) {
      const label = (await row.getByRole('rowheader').textContent()) ?? '';
      shown[label] = Number.parseFloat((await row.getByTestId('option-chance').textContent()) ?? '');
    }
    return shown;
  }
  /** Whether the chances shown are the service's, each to a tenth of a percent, adding up to exactly 100.0 %. */
  const showsChancesOf = (event: Market, shown: Record<string, number>) =>
    event.options.every((o) => Math.abs((shown[o.label] ?? -1) - o.probabilityBps / 100) <= 0.1) &&
    Math.round(total(shown) * 10) === 1000;
  const total = (chances: Record<string, number>) =>
    Object.values(chances).reduce((sum, chance) => sum + chance, 0);

  /** A market order from the ticket: the option picked by name, then the side and the shares. */
  async function placeFromTicket(optionLabel: string, side: 'Yes' | 'No', shares: number) {
    const option = (await market(IPL)).options.find((o) => o.label === optionLabel)!;
    await ticket().getByLabel('Option', { exact: true }).selectOption(option.id);
    await ticket()
      .getByRole('radio', { name: new RegExp(`^${side} `) })
      .check();
    await ticket().getByLabel('Shares').fill(String(shares));
    await expect.poll(() => ticket().getByTestId('estimate').textContent()).toMatch(/^Estimate: /);
    await ticket()
      .getByRole('button', { name: `Buy ${side}` })
      .click();
    // An order that could cost more than 100 credits is shown for review first.
    const review = ticket().getByRole('region', { name: 'Review your order' });
    const answered = ticket().getByRole('status');
    await expect.poll(async () => (await review.isVisible()) || (await answered.count()) > 0).toBe(true);
    if (await review.isVisible()) await review.getByRole('button', { name: 'Confirm buy' }).click();
    await expect
      .poll(() => ticket().getByRole('status').last().textContent())
      .toMatch(new RegExp(`^Bought ${shares} ${side} at \\d+¢`));
  }

  /** The market page at 1366 and 390 wide, light and dark, checked by axe-core and saved for the README. */
  async function shootAndCheck(name: string): Promise<void> {
    for (const theme of ['light', 'dark'] as const) {
      for (const [width, height, suffix] of [
        [1366, 900, 'desktop'],
        [390, 844, 'phone'],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.evaluate(`localStorage.setItem('pmx.theme', '${theme}')`);
        await page.reload();
        await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(theme);
        await expect.poll(() => conversions().isVisible()).toBe(true);
        await page.waitForLoadState('networkidle');
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
          suffix,
        ).toBeLessThanOrEqual(width);
        expect(await axeViolations(page), `${name} ${theme} ${suffix}`).toEqual([]);
        await docsScreenshot(page, `${name}-${suffix}${theme === 'dark' ? '-dark' : ''}`);
      }
    }
    await page.evaluate(`localStorage.setItem('pmx.theme', 'light')`);
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.reload();
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const stamp = Date.now() % 1_000_000;
    [admin, trader] = await Promise.all([
      call<Session>('POST', '/api/auth/register', null, {
        email: ADMIN_EMAIL,
        username: `boss${stamp}`,
        password: PASSWORD,
      }),
      call<Session>('POST', '/api/auth/register', null, {
        email: `fan${stamp}@e2e.example`,
        username: `fan${stamp}`,
        password: PASSWORD,
      }),
    ]);
    await becomeOperator(server.url, admin.token);
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(10_000);
    await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(trader.token)})`);
    page = await context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    problems = watchForErrors(page);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows the market as one: one winner, every option on one chart, chances that add up to 100 %', async () => {
    const ipl = await market(IPL);
    expect(ipl.exclusive).toBe(true);
    await page.goto(`/markets/${IPL}`);
    await expect
      .poll(() => page.getByTestId('one-winner').textContent())
      .toContain('Exactly one option wins');
    await expect.poll(() => page.getByTestId('chances-sum').textContent()).toBe('100.0%');
    const shown = await chancesShown();
    expect(showsChancesOf(ipl, shown)).toBe(true);

    const legend = page.getByTestId('chart-legend');
    await expect.poll(() => legend.locator('.legend-item').count()).toBe(5);
    expect(await legend.getByTestId('chances-total').textContent()).toMatch(/together 100\.0%$/);
    const colours = await legend
      .locator('.swatch line')
      .evaluateAll((lines) => lines.map((line) => line.getAttribute('stroke')));
    expect(new Set(colours).size).toBe(5);
    const items = await legend.locator('.legend-item').allTextContents();
    expect(items.map((item) => item.replace(/\s+/g, ' ').trim())).toEqual(
      ipl.options.map((o) => `${o.label} ${shown[o.label]!.toFixed(1)}% · no trade yet`),
    );

    // The markets page says it is one market, and its card's chances add up too.
    await page.goto('/');
    const card = page.getByTestId('market-card').filter({ hasText: 'Who will win IPL 2027?' }).first();
    await expect.poll(() => card.textContent()).toContain('One winner');
    const cardChances = (await card.getByTestId('card-chance').allTextContents()).map((t) =>
      Number.parseFloat(t),
    );
    expect(cardChances).toHaveLength(4);
    expect(cardChances.reduce((sum, chance) => sum + chance, 0)).toBeCloseTo(100, 5);
    expect(await card.textContent()).toMatch(/2 other options/);
  });

  it('buys Yes on one team from the one ticket: every option’s chance moves, and they still add up', async () => {
    await page.goto(`/markets/${IPL}`);
    await expect.poll(() => page.getByRole('table', { name: /Asks/ }).isVisible()).toBe(true);
    const before = await chancesShown();
    const cashBefore = await cash();
    await page.evaluate('window.stillTheSamePage = true');

    await placeFromTicket('Chennai Super Kings', 'Yes', 300);

    const after = await market(IPL);
    // The page follows without a reload: each option's chance as the service now gives it, still 100 % together.
    await expect.poll(async () => showsChancesOf(after, await chancesShown())).toBe(true);
    expect(await page.evaluate('window.stillTheSamePage')).toBe(true);
    const shown = await chancesShown();
    for (const [label, chance] of Object.entries(shown)) {
      if (label === 'Chennai Super Kings') expect(chance).toBeGreaterThan(before[label]!);
      else expect(chance).toBeLessThan(before[label]!);
    }
    expect(total(shown)).toBeCloseTo(100, 5);
    expect(await page.getByTestId('chances-sum').textContent()).toBe('100.0%');
    await expect
      .poll(() => page.getByTestId('chart-legend').locator('.legend-item').first().textContent())
      .toContain(`${shown['Mumbai Indians']!.toFixed(1)}%`);
    expect(await holdings(after)).toEqual({ 'Chennai Super Kings YES': 300 });
    expect(cashBefore - (await cash())).toBeGreaterThan(0);
    // Only Yes shares held, and no whole set: nothing to convert or merge, only a split, shown when asked for.
    const split = conversions().getByRole('button', { name: 'Split credits into a Yes of every option' });
    await expect.poll(() => split.isVisible()).toBe(true);
    expect(await conversions().getByRole('button', { name: 'Split…' }).count()).toBe(0);
    await split.click();
    expect(await conversions().getByRole('radio').count()).toBe(0);
    expect(await conversions().getByRole('button', { name: 'Split…' }).isVisible()).toBe(true);
  });

  it('converts No on one team into Yes on every other team, at no cost', async () => {
    await placeFromTicket('Mumbai Indians', 'No', 10);
    const ipl = await market(IPL);
    await expect.poll(() => conversions().getByRole('radio', { name: 'Convert No' }).isChecked()).toBe(true);
    await expect.poll(() => conversions().getByLabel('Shares of each option').inputValue()).toBe('10');
    expect(
      await conversions()
        .getByRole('checkbox', { name: /Mumbai Indians/ })
        .isChecked(),
    ).toBe(true);
    expect(await conversions().getByTestId('conversion-headline').textContent()).toBe(
      'Turn your 10 No Mumbai Indians into 10 Yes on every other option.',
    );
    expect(await conversions().getByTestId('conversion-give').textContent()).toBe('10 No Mumbai Indians');
    expect(await conversions().getByTestId('conversion-get').textContent()).toBe(
      '10 Yes Chennai Super Kings, 10 Yes Royal Challengers Bengaluru, 10 Yes Kolkata Knight Riders and 10 Yes Any other team',
    );
    // More than is held is refused before anything is sent.
    await conversions().getByLabel('Shares of each option').fill('11');
    await expect
      .poll(() => conversions().getByTestId('conversion-problem').textContent())
      .toBe('You have 10 free No shares of Mumbai Indians.');
    expect(await conversions().getByRole('button', { name: 'Convert No…' }).isDisabled()).toBe(true);
    await conversions().getByRole('button', { name: 'Max 10' }).click();
    await shootAndCheck('market-exclusive');

    const cashBefore = await cash();
    await conversions().getByRole('button', { name: 'Convert No…' }).click();
    const review = conversions().getByRole('region', { name: 'Review the conversion' });
    await expect.poll(() => review.textContent()).toContain('You give 10 No Mumbai Indians and get 10 Yes');
    expect(await holdings(ipl)).toMatchObject({ 'Mumbai Indians NO': 10 });
    await review.getByRole('button', { name: 'Confirm convert no' }).click();
    await expect
      .poll(() => conversions().getByTestId('conversion-result').textContent())
      .toMatch(
        /^Done: you gave 10 No Mumbai Indians and got 10 Yes Chennai Super Kings, .* and 10 Yes Any other team\.$/,
      );
    expect(await holdings(ipl)).toEqual({
      'Chennai Super Kings YES': 310,
      'Royal Challengers Bengaluru YES': 10,
      'Kolkata Knight Riders YES': 10,
      'Any other team YES': 10,
    });
    expect(await cash()).toBe(cashBefore);
    // No No shares left: converting is no longer offered.
    await expect.poll(() => conversions().getByRole('radio', { name: 'Convert No' }).count()).toBe(0);
    expect(await conversions().getByRole('group', { name: 'Give the No shares of' }).count()).toBe(0);
  });

  it('splits credits into a Yes of every team, and merges a whole set back into credits', async () => {
    const ipl = await market(IPL);
    const cashBefore = await cash();
    await expect.poll(() => conversions().getByRole('button', { name: 'Split…' }).isVisible()).toBe(true);
    await conversions().getByLabel('Shares of each option').fill('5');
    expect(await conversions().getByTestId('conversion-give').textContent()).toBe('5.00 credits');
    expect(await conversions().getByTestId('conversion-get').textContent()).toBe('5 Yes of every option');
    await conversions().getByRole('button', { name: 'Split…' }).click();
    await conversions().getByRole('button', { name: 'Confirm split' }).click();
    await expect
      .poll(() => conversions().getByTestId('conversion-result').textContent())
      .toBe('Done: you gave 5.00 credits and got 5 Yes of every option.');
    expect(cashBefore - (await cash())).toBe(500);
    expect(await holdings(ipl)).toEqual({
      'Mumbai Indians YES': 5,
      'Chennai Super Kings YES': 315,
      'Royal Challengers Bengaluru YES': 15,
      'Kolkata Knight Riders YES': 15,
      'Any other team YES': 15,
    });

    // A whole set is held now: a merge is offered, up to the fewest Yes of any option.
    await expect.poll(() => conversions().getByRole('radio', { name: 'Merge' }).isVisible()).toBe(true);
    await conversions().getByRole('radio', { name: 'Merge' }).check();
    await expect.poll(() => conversions().getByLabel('Shares of each option').inputValue()).toBe('5');
    expect(await conversions().getByTestId('conversion-headline').textContent()).toBe(
      'Turn 5 Yes of every option into 5.00 credits.',
    );
    await conversions().getByLabel('Shares of each option').fill('3');
    await conversions().getByRole('button', { name: 'Merge…' }).click();
    await conversions().getByRole('button', { name: 'Confirm merge' }).click();
    await expect
      .poll(() => conversions().getByTestId('conversion-result').textContent())
      .toBe('Done: you gave 3 Yes of every option and got 3.00 credits.');
    expect(cashBefore - (await cash())).toBe(200);
    expect(await holdings(ipl)).toMatchObject({ 'Mumbai Indians YES': 2, 'Any other team YES': 12 });

    await conversions().getByRole('button', { name: 'Show your conversions here' }).click();
    await expect.poll(() => conversions().getByTestId('conversion-history').locator('li').count()).toBe(3);
    expect(await conversions().getByTestId('conversion-history').textContent()).toMatch(
      /Merge: gave 3 Yes of every option, got 3\.00 credits.*Split: gave 5\.00 credits, got 5 Yes of every option.*Convert No: gave 10 No Mumbai Indians/,
    );
  });

  it('says what a refused split costs, and offers no conversion once the market is resolved', async () => {
    await conversions().getByRole('radio', { name: 'Split' }).check();
    await conversions().getByLabel('Shares of each option').fill('1000000');
    await expect
      .poll(() => conversions().getByTestId('conversion-problem').textContent())
      .toMatch(
        /^A split of 1,000,000 costs 1,000,000\.00 credits, more than the [\d,.]+ credits you have available\.$/,
      );
    expect(await conversions().getByRole('button', { name: 'Split…' }).isDisabled()).toBe(true);

    // An exclusive event of the admin's: conversions while it trades and once closed, none once resolved.
    const created = await call<Market>('POST', '/api/admin/events', admin.token, {
      title: 'Who tops the e2e table?',
      category: 'cricket',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      exclusive: true,
      liquidityCents: 50_000,
      options: [{ label: 'Red' }, { label: 'Blue' }, { label: 'Any other team' }],
      open: true,
    });
    await call('POST', '/api/trades', trader.token, {
      optionId: created.options[0]!.id,
      side: 'NO',
      action: 'BUY',
      quantity: 4,
      priceCents: 99,
    });
    await call('POST', `/api/admin/events/${created.id}/close`, admin.token);
    // The page hears the resolution on the market's channel: it is resolved once the page follows that channel.
    const following = new Promise<void>((resolve) => {
      page.on('websocket', (socket) =>
        socket.on('framereceived', ({ payload }) => {
          const frame = String(payload);
          if (frame.includes('"subscribed"') && frame.includes(`"event:${created.id}"`)) resolve();
        }),
      );
    });
    await page.goto(`/markets/${created.slug}`);
    await expect.poll(() => conversions().getByRole('checkbox', { name: /Red/ }).isChecked()).toBe(true);
    await following;
    await call('POST', `/api/admin/events/${created.id}/resolve`, admin.token, {
      outcomes: [
        { optionId: created.options[0]!.id, outcome: 'NO' },
        { optionId: created.options[1]!.id, outcome: 'YES' },
        { optionId: created.options[2]!.id, outcome: 'NO' },
      ],
    });
    // The resolution arrives on the stream: the page shows the outcome and offers no conversion.
    await expect.poll(() => page.getByRole('region', { name: 'Outcome' }).isVisible()).toBe(true);
    expect(await page.getByTestId('winner').textContent()).toMatch(/^Blue won: /);
    expect(await conversions().count()).toBe(0);

    // An independent market never offers one.
    await page.goto('/markets/rbi-repo-rate-cut-february');
    await expect.poll(() => ticket().isVisible()).toBe(true);
    expect(await conversions().count()).toBe(0);
    expect(await page.getByTestId('one-winner').count()).toBe(0);
  });

  it('reported no script errors or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
