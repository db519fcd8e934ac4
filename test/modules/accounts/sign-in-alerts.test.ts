import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { type Mailbox, startMailbox } from '../../support/mailbox.js';

/**
 * A sign-in from an address and browser the account has not used for 90 days (when it has signed in before) is
 * announced: a feed item `security.new_login` with the address and agent, and a mail through the service's SMTP
 * server (a local one here) when the address is proven. The owner can turn it off in the preferences.
 */

let t: TestApp;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await createTestApp({ env: { SMTP_URL: mailbox.url } });
});
afterAll(async () => {
  await t.close();
  await mailbox.close();
});

async function login(user: TestUser, agent: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'user-agent': agent },
    payload: { email: user.email, password: user.password },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().token as string;
}

interface FeedItem {
  type: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
}

async function alerts(user: TestUser): Promise<FeedItem[]> {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=100', headers: bearer(user.token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.filter((item: FeedItem) => item.type === 'security.new_login');
}

async function verifiedUser(): Promise<TestUser> {
  const user = await newUser(t.app);
  const mail = await mailbox.next(user.email);
  const verified = await t.app.inject({
    method: 'POST',
    url: '/api/auth/verify-email',
    payload: { token: mailbox.linkToken(mail) },
  });
  expect(verified.statusCode).toBe(200);
  return user;
}

/** Waits a moment for mail that might (wrongly) still be on its way, then says what reached the address. */
async function mailTo(email: string): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return mailbox.received.filter((mail) => mail.to.includes(email)).map((mail) => mail.subject);
}

describe('a sign-in from a new address and browser', () => {
  it('is announced in the feed and by mail, once per address and browser', async () => {
    const user = await verifiedUser();
    await login(user, 'Firefox/1 (home)');
    // The first sign-in of the account is not announced.
    expect(await alerts(user)).toEqual([]);
    await login(user, 'Firefox/1 (home)');
    expect(await alerts(user)).toEqual([]);

    await login(user, 'Curl/8 (elsewhere)');
    const [alert, ...more] = await alerts(user);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      title: 'New sign-in to your account',
      data: { address: '127.0.0.1', userAgent: 'Curl/8 (elsewhere)', method: 'password' },
    });
    expect(alert?.body).toContain('Curl/8 (elsewhere)');
    const mail = await mailbox.next(user.email);
    expect(mail.subject).toBe('New sign-in to your account');
    expect(mail.text).toContain('127.0.0.1');
    expect(mail.text).toContain('Curl/8 (elsewhere)');

    // Seen now: not again.
    await login(user, 'Curl/8 (elsewhere)');
    expect(await alerts(user)).toHaveLength(1);
    expect(await mailTo(user.email)).toEqual([]);
  });

  it('is announced again once the pair has not been used for 90 days', async () => {
    const user = await verifiedUser();
    await login(user, 'Old/1');
    await login(user, 'Old/1');
    expect(await alerts(user)).toEqual([]);
    await sql`UPDATE security_events SET created_at = now() - interval '91 days'
              WHERE user_id = ${Number(user.id)}`.execute(t.database.db);
    await login(user, 'Old/1');
    expect(await alerts(user)).toHaveLength(1);
    expect((await mailbox.next(user.email)).subject).toBe('New sign-in to your account');
  });

  it('is not mailed to an address that is not proven, but is in the feed', async () => {
    const user = await newUser(t.app);
    await mailbox.next(user.email); // the verification link, not followed
    await login(user, 'Home/1');
    await login(user, 'Away/1');
    expect(await alerts(user)).toHaveLength(1);
    expect(await mailTo(user.email)).toEqual([]);
  });

  it('is not announced when the owner turned it off, a preference that is on by default', async () => {
    const user = await verifiedUser();
    const preferences = await t.app.inject({ url: '/api/me/preferences', headers: bearer(user.token) });
    expect(preferences.json().notifications.newSignIn).toBe(true);
    const off = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: bearer(user.token),
      payload: { notifications: { newSignIn: false } },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().notifications).toMatchObject({ newSignIn: false, trades: true });
    await login(user, 'Home/2');
    await login(user, 'Away/2');
    expect(await alerts(user)).toEqual([]);
    expect(await mailTo(user.email)).toEqual([]);
  });
});
