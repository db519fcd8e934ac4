import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';
import { launchBrowser, unlabelled, watchForErrors } from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';

/** Screenshots of the console's main screens, kept in the repository and shown in docs/operators.md. */
const DOCS_SCREENSHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const ADMIN_EMAIL = 'ops@example.com';
const PASSWORD = 'correct horse battery';

interface Account {
  token: string;
  id: string;
  username: string;
  email: string;
}

/**
 * The operators' console and the trader screens around it, in a real headless Chromium against the real service:
 * an admin runs a market from creation to settlement, decides a dispute, handles a report and a suggestion and
 * switches on copy trading; traders buy, report, suggest, copy a trader and change their password.
 */
describe('operators’ console and trader screens in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let admin: Account;
  let trader: Account;
  let leader: Account;
  let ops: Page;
  let desk: Page;
  const problems: string[][] = [];
  let eventId = '';
  let eventSlug = '';
  let receiver: Receiver;

  async function call<T>(
    method: string,
    url: string,
    token: string | null,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as T };
  }

  async function register(prefix: string, email?: string): Promise<Account> {
    const username = `${prefix}${Date.now() % 1_000_000}`;
    const mail = email ?? `${username}@example.com`;
    const res = await call<{ token: string; user: { id: string } }>('POST', '/api/auth/register', null, {
      email: mail,
      password: PASSWORD,
      username,
    });
    expect(res.status).toBe(201);
    return { token: res.body.token, id: res.body.user.id, username, email: mail };
  }

  /** A browser window signed in as `account` (its session token in the app's storage). */
  async function signedInPage(account: Account): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 768 } });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(account.token)})`);
    const page = await context.newPage();
    problems.push(watchForErrors(page));
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    await page.waitForLoadState('networkidle');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(DOCS_SCREENSHOTS, `console-${name}.png`), fullPage: true });
    expect(await unlabelled(page)).toEqual([]);
  }

  async function confirm(page: Page, button: string | RegExp): Promise<void> {
    await page.getByRole('button', { name: button }).first().click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('alertdialog').count()).toBe(0);
  }

  async function cash(account: Account): Promise<number> {
    const me = await call<{ balance: { cashCents: number } }>('GET', '/api/auth/me', account.token);
    return me.body.balance.cashCents;
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ JOB_INTERVAL_MS: '500', WEBHOOK_ALLOW_PRIVATE: 'true' }),
      launchBrowser(),
    ]);
    admin = await register('ops', ADMIN_EMAIL);
    await becomeOperator(server.url, admin.token);
    trader = await register('ann');
    leader = await register('lead');
    receiver = await startReceiver();
    ops = await signedInPage(admin);
    desk = await signedInPage(trader);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('shows a trader "Page not found" at /admin, and the admin API refuses the trader’s key', async () => {
    await desk.goto('/admin');
    await expect.poll(() => desk.getByRole('heading', { name: 'Page not found' }).isVisible()).toBe(true);
    expect(await desk.getByRole('link', { name: 'Console' }).count()).toBe(0);
    const key = await call<{ key: string }>('POST', '/api/me/api-keys', trader.token, { name: 'bot' });
    for (const url of ['/api/admin/events', '/api/admin/audit', '/api/admin/disputes', '/api/admin/flags']) {
      const refused = await call<{ code: string }>('GET', url, key.body.key);
      expect([url, refused.status, refused.body.code]).toEqual([url, 403, 'FORBIDDEN']);
    }
  });

  it('lets the admin create an event with two options and house liquidity, and open it', async () => {
    await ops.goto('/');
    await ops.getByRole('link', { name: 'Console' }).click();
    await expect.poll(() => ops.getByRole('heading', { name: 'Operators’ console' }).isVisible()).toBe(true);
    await expect.poll(() => ops.getByRole('table', { name: 'Events' }).isVisible()).toBe(true);
    await ops.getByLabel('Title', { exact: true }).fill('Who wins the console final?');
    await ops.getByLabel('Category').fill('cricket');
    await ops.getByLabel('Option 1 label').fill('Mumbai');
    await ops.getByLabel('Option 1 liquidity (credits)').fill('200');
    await ops.getByRole('button', { name: 'Add an option' }).click();
    await ops.getByLabel('Option 2 label').fill('Chennai');
    await ops.getByLabel('Option 2 liquidity (credits)').fill('150');
    await shot(ops, 'events');
    await ops.getByRole('button', { name: 'Create event' }).click();
    await ops.waitForURL(/\/admin\/events\/\d+$/);
    eventId = new URL(ops.url()).pathname.split('/').pop() ?? '';
    const options = ops.getByRole('table', { name: 'Options' });
    await expect.poll(() => options.textContent()).toContain('200.00 credits');
    expect(await options.textContent()).toContain('150.00 credits');
    await confirm(ops, 'Open for trading');
    await expect.poll(() => ops.getByRole('link', { name: 'Market page' }).isVisible()).toBe(true);
    const detail = await call<{ slug: string; status: string }>(
      'GET',
      `/api/admin/events/${eventId}`,
      admin.token,
    );
    expect(detail.body.status).toBe('open');
    eventSlug = detail.body.slug;
    await shot(ops, 'event-open');
  });

  it('lets a trader buy, and the admin close, resolve and settle: the trader’s cash rises by the payout', async () => {
    await desk.goto(`/markets/${eventSlug}`);
    const ticket = desk.getByRole('region', { name: 'Trade', exact: true });
    await expect.poll(() => desk.getByRole('table', { name: /Bids/ }).isVisible()).toBe(true);
    await ticket.getByLabel('Shares').fill('10');
    await ticket.getByLabel('Highest price (¢)').fill('90');
    await ticket.getByRole('button', { name: 'Buy Yes' }).click();
    await expect.poll(() => ticket.getByRole('status').last().textContent()).toMatch(/Bought 10 Yes/);

    await ops.reload();
    await confirm(ops, 'Close trading');
    await ops.getByLabel('Outcome of Mumbai').selectOption('YES');
    await ops.getByLabel('Outcome of Chennai').selectOption('NO');
    await ops.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => ops.getByRole('alertdialog').textContent()).toContain('Mumbai: YES, Chennai: NO');
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(() => ops.getByTestId('settlement-preview').textContent())
      .toContain('Settling pays 10.00 credits to 1 holder');
    await ops.getByRole('button', { name: 'Settle now' }).click();
    await expect
      .poll(() => ops.getByRole('alertdialog').textContent())
      .toContain('This pays 10.00 credits to 1 holder');
    await shot(ops, 'settle');
    const before = await cash(trader);
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => ops.getByText(/every holder has been paid/).isVisible()).toBe(true);
    expect((await cash(trader)) - before).toBe(1000);
    await desk.reload();
    const header = `${((before + 1000) / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })} credits`;
    await expect.poll(() => desk.getByTestId('header-balance').textContent()).toBe(header);
  });

  it('upholds a dispute filed by a holder, correcting the outcome', async () => {
    const market = await call<{ id: string; slug: string; options: { id: string }[] }>(
      'POST',
      '/api/admin/events',
      admin.token,
      {
        title: 'Disputed console market',
        category: 'cricket',
        closesAt: new Date(Date.now() + 86_400_000).toISOString(),
        options: [{ label: 'Rain', liquidityCents: 10_000 }],
        open: true,
      },
    );
    const optionId = market.body.options[0]?.id;
    const buy = await call('POST', '/api/trades', trader.token, {
      optionId,
      side: 'NO',
      action: 'BUY',
      quantity: 5,
      priceCents: 90,
    });
    expect(buy.status).toBe(201);
    await call('POST', `/api/admin/events/${market.body.id}/resolve`, admin.token, {
      outcomes: [{ optionId, outcome: 'YES' }],
    });
    // The holder files it from the market page.
    await desk.goto(`/markets/${market.body.slug}`);
    await desk.getByRole('button', { name: 'Dispute the result' }).click();
    await desk
      .getByLabel('Why is the result wrong?')
      .fill('It did not rain at the ground: see the official report.');
    await desk.getByRole('button', { name: 'File dispute' }).click();
    await expect.poll(() => desk.getByText('Dispute filed.').isVisible()).toBe(true);

    await ops.getByRole('link', { name: 'Disputes' }).click();
    const dispute = ops.getByTestId('dispute').first();
    await expect.poll(() => dispute.textContent()).toContain('It did not rain');
    await dispute.getByLabel(/Rain \(now YES\)/).selectOption('NO');
    await dispute.getByLabel('Note to the disputer (optional)').fill('Checked the report: it stayed dry.');
    await shot(ops, 'disputes');
    await dispute.getByRole('button', { name: 'Uphold' }).click();
    await expect.poll(() => ops.getByRole('alertdialog').textContent()).toContain('Rain: NO');
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => ops.getByText('No disputes.').isVisible()).toBe(true);
    const after = await call<{ options: { resolution: string }[] }>(
      'GET',
      `/api/admin/events/${market.body.id}`,
      admin.token,
    );
    expect(after.body.options[0]?.resolution).toBe('NO');
    const decided = await call<{ data: { status: string }[] }>(
      'GET',
      '/api/admin/disputes?status=upheld',
      admin.token,
    );
    expect(decided.body.data).toHaveLength(1);
  });

  it('lets the admin create an exclusive event with a catch-all, resolve it with one winner, and correct the winner on a dispute', async () => {
    await ops.getByRole('link', { name: 'Events', exact: true }).click();
    await ops.getByLabel('Title', { exact: true }).fill('Who wins the console league?');
    await ops.getByLabel('Category').fill('cricket');
    await ops.getByLabel('Option 1 label').fill('Mumbai');
    await ops.getByRole('button', { name: 'Add an option' }).click();
    await ops.getByLabel('Option 2 label').fill('Chennai');
    await ops.getByRole('checkbox', { name: /^Exactly one option wins/ }).check();
    // One maker for the whole market, a starting chance per option, and a catch-all suggested.
    expect(await ops.getByLabel('Option 1 liquidity (credits)').count()).toBe(0);
    await ops.getByLabel(/^House liquidity of the market/).fill('500');
    await expect.poll(() => ops.getByTestId('catch-all').textContent()).toContain('Any other team');
    await ops.getByRole('button', { name: /Add a catch-all option/ }).click();
    await expect.poll(() => ops.getByLabel('Option 3 label').inputValue()).toBe('Any other outcome');
    // The new label has the keyboard, its last word selected to be typed over.
    await expect
      .poll(() => ops.evaluate(`document.activeElement?.id + ':' + document.getSelection()?.toString()`))
      .toBe('option-label-2:outcome');
    await ops.keyboard.type('team');
    expect(await ops.getByLabel('Option 3 label').inputValue()).toBe('Any other team');
    expect(await ops.getByTestId('catch-all').count()).toBe(0);
    await ops.getByLabel('Option 1 starting chance (%)').fill('50');
    expect(await ops.getByTestId('exclusive-problem').textContent()).toBe(
      'Give every option a starting chance, or none for even odds.',
    );
    expect(await ops.getByRole('button', { name: 'Create event' }).isDisabled()).toBe(true);
    await ops.getByLabel('Option 2 starting chance (%)').fill('40');
    await ops.getByLabel('Option 3 starting chance (%)').fill('10');
    await ops.getByRole('checkbox', { name: /^Open for trading at once/ }).check();
    await shot(ops, 'exclusive-create');
    await ops.getByRole('button', { name: 'Create event' }).click();
    await ops.waitForURL(/\/admin\/events\/\d+$/);
    const id = new URL(ops.url()).pathname.split('/').pop() ?? '';
    await expect.poll(() => ops.getByTestId('event-kind').textContent()).toContain('500.00 credits');
    const created = await call<{
      slug: string;
      exclusive: boolean;
      houseLiquidityCents: number;
      options: { id: string; label: string; probabilityBps: number }[];
    }>('GET', `/api/admin/events/${id}`, admin.token);
    expect(created.body.exclusive).toBe(true);
    expect(created.body.houseLiquidityCents).toBe(50_000);
    // The maker opens at those chances, to the nearest whole share of its inventory.
    expect(created.body.options.map((o) => [o.label, Math.round(o.probabilityBps / 100)])).toEqual([
      ['Mumbai', 50],
      ['Chennai', 40],
      ['Any other team', 10],
    ]);
    const mumbai = created.body.options[0]!;
    const buy = await call('POST', '/api/trades', trader.token, {
      optionId: mumbai.id,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      priceCents: 90,
    });
    expect(buy.status).toBe(201);

    // Resolving offers one winner (or none), never an outcome per option.
    await ops.reload();
    expect(await ops.getByLabel(/^Outcome of/).count()).toBe(0);
    const resolve = ops.getByRole('group', { name: /^Resolve: the one winner/ });
    await resolve.getByRole('radio', { name: 'Chennai wins' }).check();
    await ops.getByRole('button', { name: 'Resolve' }).click();
    await expect
      .poll(() => ops.getByRole('alertdialog').textContent())
      .toContain('Chennai wins: Chennai YES, and NO for Mumbai, Any other team.');
    await shot(ops, 'exclusive-resolve');
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => ops.getByTestId('settlement-preview').isVisible()).toBe(true);
    const outcomes = async () =>
      (
        await call<{ options: { resolution: string }[] }>('GET', `/api/admin/events/${id}`, admin.token)
      ).body.options.map((o) => o.resolution);
    expect(await outcomes()).toEqual(['NO', 'YES', 'NO']);

    // The holder disputes; upholding it names the corrected winner, as the API takes it.
    await desk.goto(`/markets/${created.body.slug}`);
    await desk.getByRole('button', { name: 'Dispute the result' }).click();
    await desk.getByLabel('Why is the result wrong?').fill('Mumbai won the final on the last ball.');
    await desk.getByRole('button', { name: 'File dispute' }).click();
    await expect.poll(() => desk.getByText('Dispute filed.').isVisible()).toBe(true);
    await ops.getByRole('link', { name: 'Disputes' }).click();
    const dispute = ops.getByTestId('dispute').filter({ hasText: 'last ball' });
    const winner = dispute.getByRole('group', { name: /^Corrected winner/ });
    await expect.poll(() => winner.getByRole('radio', { name: 'Chennai wins' }).isChecked()).toBe(true);
    await winner.getByRole('radio', { name: 'Mumbai wins' }).check();
    await dispute.getByRole('button', { name: 'Uphold' }).click();
    await expect
      .poll(() => ops.getByRole('alertdialog').textContent())
      .toContain('Mumbai wins: Mumbai YES, and NO for Chennai, Any other team.');
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(outcomes).toEqual(['YES', 'NO', 'NO']);
  });

  it('lets a trader report a user and the admin handle the report', async () => {
    await desk.goto(`/users/${leader.username}`);
    await desk.getByRole('button', { name: 'Report this user' }).click();
    await desk.getByLabel('Why are you reporting this user?').fill('Spams the discussion with links');
    await desk.getByRole('button', { name: 'Send report' }).click();
    await expect.poll(() => desk.getByText('Reported. Thank you.').isVisible()).toBe(true);

    await ops.getByRole('link', { name: 'Reports' }).click();
    const report = ops.getByTestId('report').first();
    await expect.poll(() => report.textContent()).toContain('Spams the discussion');
    await shot(ops, 'reports');
    await report.getByLabel('Moderation note (optional)').fill('Links are on topic');
    await confirm(ops, 'Dismiss');
    await expect.poll(() => ops.getByText('No reports.').isVisible()).toBe(true);
    const resolved = await call<{ data: { status: string; resolutionNote: string }[] }>(
      'GET',
      '/api/admin/reports?status=resolved',
      admin.token,
    );
    expect(resolved.body.data[0]).toMatchObject({
      status: 'dismissed',
      resolutionNote: 'Links are on topic',
    });
  });

  it('lets a trader report a post and a comment in a discussion, and the admin hide the post', async () => {
    const post = await call<{ id: string }>('POST', '/api/posts', leader.token, {
      eventSlug,
      text: 'Guaranteed profit, copy me at spam.example',
    });
    expect(post.status).toBe(201);
    const comment = await call('POST', `/api/posts/${post.body.id}/comments`, leader.token, {
      text: 'A sure thing, trust me',
    });
    expect(comment.status).toBe(201);

    await desk.goto(`/markets/${eventSlug}`);
    const discussion = desk.getByRole('region', { name: 'Discussion' });
    // The discussion is read when scrolled to.
    await discussion.scrollIntoViewIfNeeded();
    const item = discussion.locator('li.post').filter({ hasText: 'Guaranteed profit' });
    await item.getByRole('button', { name: 'Report this post' }).click();
    await item.getByLabel('Why are you reporting this post?').fill('Spam link in a market discussion');
    await item.getByRole('button', { name: 'Send report' }).click();
    await expect.poll(() => item.getByText('Reported. Thank you.').isVisible()).toBe(true);
    await item.getByRole('button', { name: /^Comments/ }).click();
    const reply = item.locator('li.comment').filter({ hasText: 'A sure thing' });
    await reply.getByRole('button', { name: 'Report this comment' }).click();
    await reply.getByLabel('Why are you reporting this comment?').fill('Same spam in a comment');
    await reply.getByRole('button', { name: 'Send report' }).click();
    await expect.poll(() => reply.getByText('Reported. Thank you.').isVisible()).toBe(true);

    await ops.getByRole('link', { name: 'Reports' }).click();
    await ops.reload(); // the console was left on Reports by the test before
    const postReport = ops.getByTestId('report').filter({ hasText: 'Spam link in a market discussion' });
    const commentReport = ops.getByTestId('report').filter({ hasText: 'Same spam in a comment' });
    await expect.poll(() => postReport.textContent()).toContain('Post by');
    expect(await postReport.textContent()).toContain('Guaranteed profit');
    expect(await commentReport.textContent()).toContain('Comment by');
    await postReport.getByRole('button', { name: 'Hide content' }).click();
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => postReport.count()).toBe(0);
    await commentReport.getByRole('button', { name: 'Dismiss' }).click();
    await ops.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => ops.getByText('No reports.').isVisible()).toBe(true);

    await desk.reload();
    await expect.poll(() => desk.getByRole('region', { name: 'Discussion' }).isVisible()).toBe(true);
    await expect.poll(() => discussion.getByText('Guaranteed profit').count()).toBe(0);
    const hidden = await call('GET', `/api/posts/${post.body.id}`, null);
    expect(hidden.status).toBe(404);
  });

  it('lets a trader suggest a market and follow its review, approved by the admin into a draft event', async () => {
    await desk.goto('/');
    await desk.getByRole('link', { name: 'Suggest a market' }).click();
    await desk.getByLabel('Question').fill('Will the monsoon reach Kerala by 1 June?');
    await desk.getByLabel('Category').fill('weather');
    await desk.getByLabel('Options, separated by commas').fill('Yes');
    await desk.getByRole('button', { name: 'Send suggestion' }).click();
    const mine = desk.getByTestId('my-suggestion').first();
    await expect.poll(() => mine.textContent()).toContain('Waiting for review');

    await ops.getByRole('link', { name: 'Suggestions' }).click();
    await expect.poll(() => ops.getByTestId('suggestion').first().textContent()).toContain('monsoon');
    await shot(ops, 'suggestions');
    await confirm(ops, 'Approve into a draft event');
    await expect.poll(() => ops.getByText('No suggestions.').isVisible()).toBe(true);
    await ops.getByRole('link', { name: 'Events', exact: true }).click();
    await ops.getByLabel('Status').selectOption('draft');
    await expect
      .poll(() => ops.getByRole('table', { name: 'Events' }).textContent())
      .toContain('Will the monsoon reach Kerala by 1 June?');
    await desk.reload();
    await expect.poll(() => desk.getByTestId('my-suggestion').first().textContent()).toContain('Approved');

    // The draft gets house liquidity before it opens.
    await ops.getByRole('link', { name: 'Will the monsoon reach Kerala by 1 June?' }).click();
    await ops.getByLabel('House liquidity of Yes (credits)').fill('250');
    await ops.getByRole('button', { name: 'Save option Yes' }).click();
    await expect
      .poll(() => ops.getByRole('table', { name: 'Options' }).textContent())
      .toContain('250.00 credits');
    await shot(ops, 'draft');
    await confirm(ops, 'Open for trading');
    await expect.poll(() => ops.getByRole('link', { name: 'Market page' }).isVisible()).toBe(true);
  });

  it('lets a trader copy another, and shows the copied trade', async () => {
    await ops.getByRole('link', { name: 'Feature flags' }).click();
    // Copy trading is on by default: switch it off, then on again.
    const flag = ops.getByTestId('flag-copyTrading');
    await confirm(ops, 'Switch off copyTrading');
    await expect.poll(() => flag.locator('.status-pill').textContent()).toBe('off');
    await desk.goto('/copy-trading');
    await expect.poll(() => desk.getByRole('alert').first().textContent()).toContain('switched off');
    await confirm(ops, 'Switch on copyTrading');
    await expect.poll(() => flag.locator('.status-pill').textContent()).toBe('on');
    await shot(ops, 'flags');

    await desk.goto(`/users/${leader.username}`);
    await desk.getByRole('link', { name: 'Copy their trades' }).click();
    await expect.poll(() => desk.getByLabel('Trader’s username').inputValue()).toBe(leader.username);
    await desk.getByLabel('Shares per copy', { exact: true }).fill('3');
    // The trader's webhook hears of the copy's fill; the account page shows the delivery below.
    const hook = await call('POST', '/api/me/webhooks', trader.token, {
      url: receiver.url,
      events: ['trade.executed'],
    });
    expect(hook.status).toBe(201);
    await desk.getByRole('button', { name: 'Start copying' }).click();
    await expect.poll(() => desk.getByTestId('copy-follow').textContent()).toContain('3 shares a copy');

    const market = await call<{ options: { id: string }[] }>('POST', '/api/admin/events', admin.token, {
      title: 'Copied console market',
      category: 'cricket',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: [{ label: 'Sixes' }],
      open: true,
    });
    // A resting offer of 20 YES at 50¢ (a BUY NO at 50¢), enough for the leader's trade and the copy at one price.
    const offer = await call('POST', '/api/limit-orders', admin.token, {
      optionId: market.body.options[0]?.id,
      side: 'NO',
      action: 'BUY',
      quantity: 20,
      limitPriceCents: 50,
    });
    expect(offer.status).toBe(201);
    const bought = await call('POST', '/api/trades', leader.token, {
      optionId: market.body.options[0]?.id,
      side: 'YES',
      action: 'BUY',
      quantity: 8,
      priceCents: 95,
    });
    expect(bought.status).toBe(201);
    // Copies are made by a background job within a second or two; then the page shows them.
    await expect
      .poll(async () => {
        const mirrors = await call<{ data: { status: string }[] }>(
          'GET',
          '/api/copy-trader/mirrors',
          trader.token,
        );
        return mirrors.body.data.map((m) => m.status);
      })
      .toEqual(['placed']);
    await desk.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect
      .poll(() => desk.getByTestId('mirror-row').first().textContent())
      .toMatch(/BUY 8 YES Sixes.*3 of 3 filled.*placed/);
    await shot(desk, 'copy-trading');
    const positions = await call<{ data: { eventSlug: string; quantity: number }[] }>(
      'GET',
      '/api/positions',
      trader.token,
    );
    expect(positions.body.data.some((p) => p.quantity === 3)).toBe(true);
  });

  it('lets the admin create a tournament and edit it: a new title, a later end and higher prizes', async () => {
    const slug = `console-cup-${Date.now() % 1_000_000}`;
    await ops.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tournaments' }).click();
    const form = ops.getByRole('form', { name: 'Create a tournament' });
    await form.getByLabel('Title', { exact: true }).fill('Console cup');
    await form.getByLabel('Slug', { exact: true }).fill(slug);
    await form.getByLabel('Market slugs, separated by commas').fill(eventSlug);
    await form.getByLabel(/^Prizes in credits/).fill('10, 5');
    await form.getByRole('button', { name: 'Create tournament' }).click();
    const row = ops.getByTestId('tournament').filter({ hasText: 'Console cup' });
    await expect.poll(() => row.textContent()).toContain('10.00');

    await row.getByRole('button', { name: 'Edit Console cup' }).click();
    const edit = ops.getByRole('form', { name: 'Edit Console cup' });
    await edit.getByLabel('Title', { exact: true }).fill('Console cup, week one');
    const later = new Date(Date.now() + 10 * 86_400_000);
    later.setMinutes(later.getMinutes() - later.getTimezoneOffset(), 0, 0);
    await edit.getByLabel('Ends', { exact: true }).fill(later.toISOString().slice(0, 16));
    await edit.getByLabel(/^Prizes in credits/).fill('20, 5, 1');
    await shot(ops, 'tournaments');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const edited = ops.getByTestId('tournament').filter({ hasText: 'Console cup, week one' });
    await expect.poll(() => edited.textContent()).toContain('20.00');

    const saved = await call<{ title: string; prizes: number[]; endsAt: string }>(
      'GET',
      `/api/tournaments/${slug}`,
      null,
    );
    expect(saved.body).toMatchObject({ title: 'Console cup, week one', prizes: [2_000, 500, 100] });
    expect(Date.parse(saved.body.endsAt)).toBeGreaterThan(Date.now() + 9 * 86_400_000);
  });

  it('ends the other sessions when the password is changed', async () => {
    const phone = await call<{ token: string }>('POST', '/api/auth/login', null, {
      email: trader.email,
      password: PASSWORD,
    });
    expect(phone.status).toBe(200);
    // The delivery job runs on its own tick: the page is opened once the delivery has succeeded, since it reads
    // the attempts when it opens.
    const hookId = (await call<{ data: { id: string }[] }>('GET', '/api/me/webhooks', trader.token)).body
      .data[0]?.id;
    await expect
      .poll(async () => {
        const deliveries = await call<{ data: { status: string }[] }>(
          'GET',
          `/api/me/webhooks/${hookId}/deliveries?limit=20`,
          trader.token,
        );
        return deliveries.body.data.length > 0 && deliveries.body.data.every((d) => d.status === 'succeeded');
      })
      .toBe(true);
    await desk.goto('/account');
    await expect.poll(() => desk.getByTestId('session-row').count()).toBe(2);
    await desk.getByText('Delivery attempts').click();
    await expect
      .poll(() => desk.getByTestId('delivery').first().textContent())
      .toMatch(/trade\.executed.*succeeded.*HTTP 200/);
    expect(receiver.received.map((r) => r.json.type)).toContain('trade.executed');
    await desk.getByLabel('Current password').fill(PASSWORD);
    await desk.getByLabel('New password (8 or more characters)').fill('a much better password');
    await desk.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => desk.getByText('1 other session(s) ended.').isVisible()).toBe(true);
    await expect.poll(() => desk.getByTestId('session-row').count()).toBe(1);
    expect((await call('GET', '/api/auth/me', phone.body.token)).status).toBe(401);
    expect((await call('GET', '/api/auth/me', trader.token)).status).toBe(200);
    const relogin = await call('POST', '/api/auth/login', null, {
      email: trader.email,
      password: 'a much better password',
    });
    expect(relogin.status).toBe(200);
    await shot(desk, 'account-security');
  });

  it('shows the audit’s result, and the pages reported no errors', async () => {
    await ops.getByRole('link', { name: 'Audit' }).click();
    await expect
      .poll(() => ops.getByTestId('audit-summary').textContent())
      .toContain('Every invariant holds.');
    await shot(ops, 'audit');
    expect(problems.flat()).toEqual([]);
  });
});
