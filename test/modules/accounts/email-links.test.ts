import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser, uniqueEmail } from '../../support/factories.js';
import { type Mailbox, startMailbox } from '../../support/mailbox.js';

let t: TestApp;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await createTestApp({
    env: {
      SMTP_URL: mailbox.url,
      MAIL_FROM: 'Exchange <no-reply@exchange.example>',
      PUBLIC_URL: 'https://x.example',
    },
  });
});
afterAll(async () => {
  await t.close();
  await mailbox.close();
});

const post = (url: string, payload: unknown, token?: string) =>
  t.app.inject({ method: 'POST', url, payload: payload as object, headers: token ? bearer(token) : {} });

const createKey = (token: string) => post('/api/me/api-keys', { name: 'bot' }, token);

async function registeredWithMail(): Promise<{ user: TestUser; token: string }> {
  const user = await newUser(t.app);
  const mail = await mailbox.next(user.email);
  expect(mail.subject).toBe('Confirm your email address');
  expect(mail.text).toContain('https://x.example/verify-email#token=');
  return { user, token: mailbox.linkToken(mail) };
}

describe('proving an address', () => {
  it('mails a link at registration; the link proves the address once, and only then may the account create API keys', async () => {
    const { user, token } = await registeredWithMail();
    const before = await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) });
    expect(before.json().emailVerified).toBe(false);
    const refused = await createKey(user.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('EMAIL_NOT_VERIFIED');

    const verified = await post('/api/auth/verify-email', { token });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({ emailVerified: true });
    const after = await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) });
    expect(after.json().emailVerified).toBe(true);
    expect((await createKey(user.token)).statusCode).toBe(201);

    const again = await post('/api/auth/verify-email', { token });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('LINK_INVALID');
  });

  it('stores only the SHA-256 of a link, and an expired link does not work', async () => {
    const { user, token } = await registeredWithMail();
    const rows = await t.database.db.selectFrom('email_links').select(['token_hash']).execute();
    const hash = createHash('sha256').update(token).digest('hex');
    expect(rows.map((row) => row.token_hash)).toContain(hash);
    expect(JSON.stringify(rows)).not.toContain(token);
    await t.database.db
      .updateTable('email_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', hash)
      .execute();
    const expired = await post('/api/auth/verify-email', { token });
    expect(expired.json().code).toBe('LINK_INVALID');
    expect(
      (await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).json().emailVerified,
    ).toBe(false);
  });

  it('mails the link again on request, and answers 409 once the address is proven', async () => {
    const { user } = await registeredWithMail();
    await sql`UPDATE email_links SET created_at = now() - interval '2 minutes'`.execute(t.database.db);
    const resent = await post('/api/me/email/verification', undefined, user.token);
    expect(resent.statusCode).toBe(202);
    const token = mailbox.linkToken(await mailbox.next(user.email));
    expect((await post('/api/auth/verify-email', { token })).statusCode).toBe(200);
    const proven = await post('/api/me/email/verification', undefined, user.token);
    expect(proven.statusCode).toBe(409);
    expect(proven.json().code).toBe('EMAIL_ALREADY_VERIFIED');
  });
});

describe('resetting a password by mail', () => {
  it('answers 202 whether or not the address is registered, mailing only a registered one', async () => {
    const { user } = await registeredWithMail();
    const stranger = uniqueEmail('nobody');
    const known = await post('/api/auth/forgot-password', { email: user.email.toUpperCase() });
    const unknown = await post('/api/auth/forgot-password', { email: stranger });
    expect([known.statusCode, unknown.statusCode]).toEqual([202, 202]);
    expect(known.body).toBe(unknown.body);
    const mail = await mailbox.next(user.email);
    expect(mail.subject).toBe('Reset your password');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailbox.received.filter((m) => m.to.includes(stranger))).toHaveLength(0);
  });

  it('sets a new password once with the link, ending every session; a weak password leaves the link working', async () => {
    const { user } = await registeredWithMail();
    const otherSession = (
      await post('/api/auth/login', { email: user.email, password: user.password })
    ).json().token as string;
    await post('/api/auth/forgot-password', { email: user.email });
    const token = mailbox.linkToken(await mailbox.next(user.email));

    const weak = await post('/api/auth/reset-password', { token, password: 'password' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().code).toBe('WEAK_PASSWORD');

    const reset = await post('/api/auth/reset-password', { token, password: 'a fresh start for me' });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ endedSessions: 2 });
    expect(reset.headers['cache-control']).toBe('no-store');
    for (const session of [user.token, otherSession]) {
      expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(session) })).statusCode).toBe(401);
    }
    expect((await post('/api/auth/login', { email: user.email, password: user.password })).statusCode).toBe(
      401,
    );
    const signedIn = await post('/api/auth/login', { email: user.email, password: 'a fresh start for me' });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().user.emailVerified).toBe(true);

    const again = await post('/api/auth/reset-password', { token, password: 'yet another new password' });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('LINK_INVALID');
  });
});

describe('without SMTP_URL', () => {
  it('says in its log and in /api/flags that addresses are not verified, and lets accounts act unproven', async () => {
    const lines: string[] = [];
    const plain = await createTestApp({
      env: { LOG_LEVEL: 'warn' },
      logStream: { write: (line) => void lines.push(line) },
    });
    try {
      expect(lines.join('')).toContain('addresses are not verified');
      expect((await plain.app.inject({ url: '/api/flags' })).json().addressesVerified).toBe(false);
      expect((await t.app.inject({ url: '/api/flags' })).json().addressesVerified).toBe(true);
      const user = await newUser(plain.app);
      const key = await plain.app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(user.token),
        payload: { name: 'bot' },
      });
      expect(key.statusCode).toBe(201);
      const forgot = await plain.app.inject({
        method: 'POST',
        url: '/api/auth/forgot-password',
        payload: { email: user.email },
      });
      expect(forgot.statusCode).toBe(503);
      expect(forgot.json().code).toBe('PROVIDER_NOT_CONFIGURED');
    } finally {
      await plain.close();
    }
  });
});
