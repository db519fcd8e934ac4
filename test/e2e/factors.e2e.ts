import { generate } from 'otplib';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser, screenshot, watchForErrors } from './support/browser.js';
import { type RunningServer, startServer } from './support/server.js';

const PASSWORD = 'correct horse battery';

interface Session {
  token: string;
  user: { id: string };
}

/**
 * Second factors, keys and the security log on the account page, in a real Chromium against the real service:
 * setting up an authenticator app (its codes made here with otplib) and a passkey (Chromium's virtual
 * authenticator, through the DevTools protocol's WebAuthn domain), then signing in with each and with the passkey
 * alone; a key made with scopes, an allow-list, an expiry and a limit, then changed; at 1366 and 390 px, light and
 * dark, axe-clean. Passkeys belong to a host name, so the browser uses the server's PUBLIC_URL, localhost.
 */
describe('second factors, keys and the security log in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId = '';
  let problems: string[];
  let trader: Session;
  let email = '';
  let secret = '';

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

  const sessionInBrowser = () => page.evaluate<string | null>(`localStorage.getItem('pmx.session')`);
  const signOut = async () => {
    await page.evaluate(`localStorage.removeItem('pmx.session')`);
    await page.goto('/login');
  };
  const card = (name: string) => page.getByRole('region', { name, exact: true });

  async function screenshots(name: string): Promise<void> {
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
        await screenshot(page, `${name}-${suffix}${theme === 'dark' ? '-dark' : ''}`);
      }
    }
    await page.evaluate(`document.documentElement.setAttribute('data-theme', 'light')`);
    await page.setViewportSize({ width: 1366, height: 900 });
  }

  async function logInWithPassword(): Promise<void> {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Second step' }).count()).toBe(1);
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const stamp = Date.now() % 1_000_000;
    email = `guard${stamp}@e2e.example`;
    trader = await call<Session>('POST', '/api/auth/register', null, {
      email,
      username: `guard${stamp}`,
      password: PASSWORD,
    });
    const baseURL = server.url.replace('127.0.0.1', 'localhost');
    context = await browser.newContext({ baseURL, viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    problems = watchForErrors(page);
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
    await page.goto('/');
    await page.evaluate(`localStorage.setItem('pmx.session', ${JSON.stringify(trader.token)})`);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('sets up an authenticator app with a code from it, and shows the recovery codes once', async () => {
    await page.goto('/account');
    const factors = card('Second factors');
    await factors.getByRole('button', { name: 'Set up an authenticator app' }).click();
    secret = await page.getByTestId('totp-secret').inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expect.poll(() => page.getByTestId('totp-qr').isVisible()).toBe(true);
    await screenshots('factors-totp-setup');
    await factors.getByLabel('Code from the app').fill(await generate({ secret }));
    // The account's first factor needs the password too.
    expect(await factors.getByRole('button', { name: 'Turn on' }).isDisabled()).toBe(true);
    await factors.getByLabel('Your password', { exact: true }).fill(PASSWORD);
    await factors.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.getByTestId('recovery-codes').getByRole('listitem').count()).toBe(10);
    await screenshots('factors-recovery-codes');
    await factors.getByRole('button', { name: 'I have saved them' }).click();
    await expect.poll(() => factors.getByText('Remove the app').count()).toBe(1);
  });

  it('adds a passkey made by the browser’s authenticator', async () => {
    const factors = card('Second factors');
    // With the app on, the session's fresh factor stands in for the password.
    expect(await factors.getByLabel('Your password for the passkey').count()).toBe(0);
    await factors.getByLabel('Passkey name').fill('This laptop');
    await factors.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.getByTestId('passkey-row').count()).toBe(1);
    expect(await page.getByTestId('passkey-row').textContent()).toContain('This laptop');
    // The authenticator keeps it as a discoverable credential: it can sign in without a password.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials.map((credential) => credential.isResidentCredential)).toEqual([true]);
  });

  it('makes a key with scopes, an allow-list, an expiry and a limit, and changes it', async () => {
    const keys = card('API keys');
    const create = keys.getByRole('form', { name: 'Create key' });
    await create.getByLabel('Key name').fill('watchdog');
    await create.getByRole('checkbox', { name: /^trade/ }).uncheck();
    await create.getByRole('checkbox', { name: /^account/ }).uncheck();
    await create.getByText('Addresses, expiry and limits').click();
    await create.getByLabel(/^Allowed addresses/).fill('127.0.0.1\n::1');
    await create.getByLabel(/^Stops working after/).fill('2099-12-31');
    await create.getByLabel('Largest order (credits)').fill('25');
    await create.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByTestId('new-api-key').count()).toBe(1);
    const [made] = (await call<{ data: Record<string, unknown>[] }>('GET', '/api/me/api-keys', trader.token))
      .data;
    expect(made).toMatchObject({
      name: 'watchdog',
      scopes: ['read', 'cancel'],
      allowedCidrs: ['127.0.0.1/32', '::1/128'],
      expiresAt: '2099-12-31T23:59:59.000Z',
      limits: { maxOrderCents: 2500, maxOpenOrders: null },
    });
    const row = page.getByTestId('api-key-row');
    await expect
      .poll(() => row.textContent())
      .toMatch(/readcancel.*From 127\.0\.0\.1\/32, ::1\/128.*Order ≤ 25/);
    await row.getByRole('button', { name: 'Edit watchdog' }).click();
    const edit = page.getByRole('form', { name: 'Save key' });
    await edit.getByLabel('Open orders at once').fill('40');
    await edit.getByLabel(/^Allowed addresses/).fill('');
    await edit.getByRole('button', { name: 'Save key' }).click();
    await expect.poll(() => row.textContent()).toMatch(/≤ 40 open orders/);
    expect(await row.textContent()).not.toContain('From 127.0.0.1');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect.poll(() => page.getByTestId('security-entry').count()).toBeGreaterThanOrEqual(5);
    await screenshots('factors-account');
  });

  it('signs in with the password and the passkey', async () => {
    await signOut();
    await logInWithPassword();
    await screenshots('login-second-step');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await expect.poll(sessionInBrowser).not.toBeNull();
    await expect.poll(() => page.url()).not.toContain('/login');
  });

  it('signs in with the password and a code from the app', async () => {
    await signOut();
    await logInWithPassword();
    // The code of the next time step: the one of this step was spent setting the app up.
    await page
      .getByLabel('The 6-digit code from your authenticator app')
      .fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await expect.poll(sessionInBrowser).not.toBeNull();
  });

  it('signs in with the passkey alone, and the log shows each way in', async () => {
    await signOut();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(sessionInBrowser).not.toBeNull();
    const token = (await sessionInBrowser()) as string;
    const log = await call<{ data: { kind: string; details: { method?: string } | null }[] }>(
      'GET',
      '/api/me/security-log',
      token,
    );
    const logins = log.data.filter((entry) => entry.kind === 'login').map((entry) => entry.details?.method);
    expect(logins.slice(0, 3)).toEqual(['passkey', 'password+totp', 'password+passkey']);
    await page.goto('/account');
    await expect
      .poll(() => page.getByTestId('security-entry').first().textContent())
      .toMatch(/Signed in with a passkey/);
    expect(problems).toEqual([]);
  });
});
