import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Mailbox, startMailbox } from '../support/mailbox.js';
import { axeViolations, launchBrowser, SCREENSHOT_DIR, watchForErrors } from './support/browser.js';
import { type RunningServer, startServer } from './support/server.js';

const SHOTS = path.join(SCREENSHOT_DIR, 'addresses');
const PASSWORD = 'correct horse battery';

/**
 * Proving an address and resetting a password by mail, as a person does it in Chromium against the real service
 * with a local SMTP server: registration with password feedback, the notice for an unproven address, the
 * verification page, forgot-password and reset pages, at 1366 and 390 wide, light and dark, each axe-clean.
 */
describe('addresses and passwords by mail', () => {
  let server: RunningServer;
  let browser: Browser;
  let mailbox: Mailbox;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    const page = await context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    problems.push(watchForErrors(page));
    return page;
  }

  /** The screen at 1366 and 390 wide, light and dark, with no axe violation in any of them. */
  async function shootClean(page: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const theme of ['light', 'dark']) {
        await page.evaluate(`document.documentElement.dataset.theme = '${theme}'`);
        await page.waitForTimeout(150);
        await page.screenshot({ path: path.join(SHOTS, `${name}-${width}-${theme}.png`), fullPage: true });
        expect(await axeViolations(page), `${name} at ${width} in ${theme}`).toEqual([]);
      }
    }
    await page.setViewportSize({ width: 1366, height: 900 });
  }

  beforeAll(async () => {
    mailbox = await startMailbox();
    [server, browser] = await Promise.all([
      startServer({ SMTP_URL: mailbox.url, SEED_DEMO: 'false' }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
    await mailbox?.close();
    expect(problems.flat()).toEqual([]);
  });

  it('registers with password feedback, shows the notice, and the mailed link proves the address once', async () => {
    const page = await newPage();
    const email = `mailed${Date.now() % 1_000_000}@addresses.example`;
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.locator('#register-password').fill('password1');
    await expect
      .poll(() => page.locator('#register-password-hint').textContent())
      .toContain('choose a harder one');
    await shootClean(page, '1-register-weak');
    await page.locator('#register-password').fill(PASSWORD);
    await expect.poll(() => page.locator('#register-password-hint').textContent()).toContain('Very strong');
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect.poll(() => page.locator('.verify-notice').textContent()).toContain(email);
    await shootClean(page, '2-unverified-notice');

    const token = mailbox.linkToken(await mailbox.next(email));
    await page.goto(`/verify-email#token=${token}`);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('is confirmed');
    await shootClean(page, '3-verified');
    await expect.poll(() => page.locator('.verify-notice').count()).toBe(0);

    // A fresh load, as a second click on the link in the mail would be.
    await page.goto('/');
    await page.goto(`/verify-email#token=${token}`);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('no longer works');
    await shootClean(page, '4-link-used');
  });

  it('mails a reset link from the forgot-password page, and the reset page sets a new password once', async () => {
    const email = `reset${Date.now() % 1_000_000}@addresses.example`;
    const registered = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(registered.status).toBe(201);
    await mailbox.next(email);

    const page = await newPage();
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await shootClean(page, '5-forgot');
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('on its way');
    await shootClean(page, '6-forgot-sent');

    const token = mailbox.linkToken(await mailbox.next(email));
    await page.goto(`/reset-password#token=${token}`);
    await page.getByLabel('New password').fill('a fresh start for me');
    await expect.poll(() => page.locator('#reset-password-hint').textContent()).toContain('strong');
    await shootClean(page, '7-reset');
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Your password is changed');
    await shootClean(page, '8-reset-done');

    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'a fresh start for me' }),
    });
    expect(login.status).toBe(200);
  });
});
