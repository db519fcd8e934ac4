import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser, screenshot, unlabelled, watchForErrors } from './support/browser.js';
import { becomeOperator, type RunningServer, startServer } from './support/server.js';

const PASSWORD = 'correct horse battery';

interface Account {
  token: string;
  id: string;
  username: string;
  email: string;
}
interface Operator {
  userId: string;
  username: string;
}

/**
 * The console's roles and admin log screens, in a real Chromium against the real service: an operator grants the
 * role by email, revokes it (never from the last operator), and reads every change in the admin log, filtered and
 * paged; at 1366 and 390 px, light and dark, axe-clean.
 */
describe('operators and the admin log in the console', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let boss: Account;
  let deputy: Account;

  async function call<T>(method: string, url: string, token: string | null, body?: unknown) {
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

  async function register(prefix: string): Promise<Account> {
    const username = `${prefix}${Date.now() % 1_000_000}`;
    const email = `${username}@operators.example`;
    const res = await call<{ token: string; user: { id: string } }>('POST', '/api/auth/register', null, {
      email,
      password: PASSWORD,
      username,
    });
    expect(res.status).toBe(201);
    return { token: res.body.token, id: res.body.user.id, username, email };
  }

  const operatorNames = async () =>
    (await call<{ data: Operator[] }>('GET', '/api/admin/operators', boss.token)).body.data
      .map((o) => o.username)
      .sort();
  const rows = () => page.getByTestId('operator');
  const entries = () => page.getByTestId('admin-action');

  /** The page at 1366 and 390 px wide, light and dark: axe-clean, every control named, no sideways scroll. */
  async function screenshots(name: string): Promise<void> {
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate(`document.documentElement.setAttribute('data-theme', '${theme}')`);
      for (const [width, suffix] of [
        [1366, 'desktop'],
        [390, 'phone'],
      ] as const) {
        await page.setViewportSize({ width, height: 900 });
        expect(await axeViolations(page), `${name} ${theme} ${width}`).toEqual([]);
        expect(await unlabelled(page)).toEqual([]);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          width,
        );
        await screenshot(page, `${name}-${suffix}${theme === 'dark' ? '-dark' : ''}`);
      }
    }
    await page.evaluate(`document.documentElement.setAttribute('data-theme', 'light')`);
    await page.setViewportSize({ width: 1366, height: 900 });
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    boss = await register('boss');
    deputy = await register('deputy');
    await becomeOperator(server.url, boss.token);
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(10_000);
    await context.addInitScript(`localStorage.setItem('pmx.session', ${JSON.stringify(boss.token)})`);
    page = await context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    problems = watchForErrors(page);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('lists the operators, and grants the role by email in any letter case', async () => {
    await page.goto('/admin');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Roles' }).click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().locator('.break').textContent()).toBe(`${boss.username}you${boss.email}`);
    // The last operator keeps the role: nothing to click.
    expect(await page.getByRole('button', { name: `Revoke ${boss.username}` }).isDisabled()).toBe(true);

    const account = page.getByLabel('Account: email address, username or id');
    await account.fill('nobody@operators.example');
    await page.getByRole('button', { name: 'Grant the admin role' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('No account has that email address, username or id.');
    expect(await operatorNames()).toEqual([boss.username]);

    await account.fill(deputy.email.toUpperCase());
    await page.getByRole('button', { name: 'Grant the admin role' }).click();
    await expect
      .poll(() => page.getByTestId('granted').textContent())
      .toBe(`${deputy.username} is an operator now, on every instance at once.`);
    await expect.poll(() => rows().count()).toBe(2);
    expect(await operatorNames()).toEqual([boss.username, deputy.username].sort());
    // At once: the deputy's own session reaches the admin API.
    expect((await call('GET', '/api/admin/operators', deputy.token)).status).toBe(200);
    await screenshots('console-operators');
  });

  it('revokes the role after a confirmation that says what follows', async () => {
    await page.getByRole('button', { name: `Revoke ${deputy.username}` }).click();
    const dialog = page.getByRole('alertdialog');
    expect(await dialog.textContent()).toContain(
      `${deputy.username} loses this console and the admin API at once, on every instance.`,
    );
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await operatorNames()).toEqual([boss.username]);
    expect((await call('GET', '/api/admin/operators', deputy.token)).status).toBe(403);
  });

  it('shows every change in the admin log: who, how, from where, what was sent; filtered and paged', async () => {
    // Forty changes of a flag, so that the log runs past one page.
    for (let i = 0; i < 20; i++) {
      for (const enabled of [true, false]) {
        const res = await call('PUT', '/api/admin/flags/copyTrading', boss.token, { enabled });
        expect(res.status).toBe(200);
      }
    }
    await page.getByRole('link', { name: 'Role changes in the admin log' }).click();
    await expect.poll(() => page.getByLabel('Acted on').inputValue()).toBe('user');
    // The bootstrap, the grant and the revoke, newest first.
    await expect.poll(() => entries().count()).toBe(3);
    const summaries = await entries().locator('strong').allTextContents();
    expect(summaries).toEqual(['Revoked the admin role', 'Granted the admin role', 'Granted the admin role']);
    const revoke = (await entries().first().textContent()) ?? '';
    expect(revoke).toContain(`user ${deputy.id}`);
    expect(revoke).toContain(`${boss.username} through the console or API, from 127.0.0.1`);
    expect(await entries().nth(2).textContent()).toContain(`${boss.username} with the bootstrap token`);
    await entries().first().getByText('What was sent').click();
    expect(JSON.parse((await entries().first().locator('pre').textContent()) ?? '')).toEqual({
      username: deputy.username,
    });

    // One account's changes only.
    await page.getByLabel('Id or key').fill(boss.id);
    await page.getByLabel('Id or key').press('Enter');
    await expect.poll(() => entries().count()).toBe(1);
    expect(new URL(page.url()).search).toBe(`?targetType=user&targetId=${boss.id}`);

    await page.getByLabel('Acted on').selectOption('flag');
    await expect.poll(() => entries().count()).toBe(30);
    expect(await page.getByLabel('Id or key').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => entries().count()).toBe(40);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(await entries().first().textContent()).toContain('flag copyTrading');

    await page.getByLabel('Acted on').selectOption('');
    await expect.poll(() => entries().count()).toBe(30);
    await page.getByLabel('Acted on').selectOption('user');
    await expect.poll(() => entries().count()).toBe(3);
    await screenshots('console-admin-log');
    expect(problems).toEqual([]);
  });
});
