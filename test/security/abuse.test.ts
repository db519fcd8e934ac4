import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../support/exchange.js';
import { bearer, newAdmin, newUser, uniqueEmail } from '../support/factories.js';
import { createLoggedApp, type LoggedApp } from './logged-app.js';

function login(t: TestApp, email: string, password: string, remoteAddress: string, headers = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    remoteAddress,
    headers,
  });
}

describe('login brute force', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { LOGIN_MAX_FAILURES: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '5', LOGIN_WINDOW_MINUTES: '15' },
    });
  });
  afterAll(() => t.close());

  it('gives the same 401 for an unknown email and a wrong password', async () => {
    const victim = await newUser(t.app);
    const wrong = await login(t, victim.email, 'not the password', '10.10.0.1');
    const unknown = await login(t, uniqueEmail(), 'not the password', '10.10.0.2');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('slows one email down from the address that failed five times, not from the others', async () => {
    const victim = await newUser(t.app);
    for (let i = 0; i < 5; i++) {
      expect((await login(t, victim.email, `guess ${i}`, '10.11.0.1')).statusCode).toBe(401);
    }
    const right = await login(t, victim.email, victim.password, '10.11.0.1');
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe('RATE_LIMITED');
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(t, victim.email, victim.password, '10.11.0.99')).statusCode).toBe(200);
  });

  it('throttles one address after five failures, whatever emails it tries', async () => {
    const other = await newUser(t.app);
    for (let i = 0; i < 5; i++) {
      expect((await login(t, uniqueEmail(), 'password guess', '10.12.0.1')).statusCode).toBe(401);
    }
    expect((await login(t, other.email, other.password, '10.12.0.1')).statusCode).toBe(429);
    expect((await login(t, other.email, other.password, '10.12.0.2')).statusCode).toBe(200);
  });

  it('ignores a spoofed X-Forwarded-For: rotating it does not reset the count of an address', async () => {
    const other = await newUser(t.app);
    for (let i = 0; i < 5; i++) {
      const spoofed = { 'x-forwarded-for': `203.0.113.${i}` };
      expect((await login(t, uniqueEmail(), 'password guess', '10.13.0.1', spoofed)).statusCode).toBe(401);
    }
    const again = await login(t, other.email, other.password, '10.13.0.1', {
      'x-forwarded-for': '198.51.100.7',
    });
    expect(again.statusCode).toBe(429);
  });
});

describe('the request rate limit and forwarding headers', () => {
  // A public read (health probes are not counted).
  const publicRead = (t: TestApp, remoteAddress: string, forwardedFor?: string) =>
    t.app.inject({
      url: '/api/events?limit=1',
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    });

  it('without TRUST_PROXY, counts the connecting address whatever X-Forwarded-For says', async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_MAX: '5' } });
    try {
      for (let i = 0; i < 5; i++)
        expect((await publicRead(t, '10.20.0.1', `203.0.113.${i}`)).statusCode).toBe(200);
      expect((await publicRead(t, '10.20.0.1', '198.51.100.1')).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY=true, counts the forwarded client address', async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_MAX: '5', TRUST_PROXY: 'true' } });
    try {
      for (let i = 0; i < 5; i++)
        expect((await publicRead(t, '10.0.0.1', '203.0.113.1')).statusCode).toBe(200);
      expect((await publicRead(t, '10.0.0.1', '203.0.113.1')).statusCode).toBe(429);
      // Another client behind the same proxy has its own budget.
      expect((await publicRead(t, '10.0.0.1', '203.0.113.2')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY set to the proxy network, honours the header only from that network', async () => {
    const t = await createTestApp({
      env: {
        RATE_LIMIT_MAX: '5',
        TRUST_PROXY: '10.0.0.0/8',
        LOGIN_MAX_FAILURES: '3',
        LOGIN_MAX_FAILURES_PER_ADDRESS: '3',
      },
    });
    try {
      // A client outside the proxy network cannot choose its address.
      for (let i = 0; i < 5; i++)
        expect((await publicRead(t, '192.0.2.9', `203.0.113.${i}`)).statusCode).toBe(200);
      expect((await publicRead(t, '192.0.2.9', '203.0.113.200')).statusCode).toBe(429);
      // Through the proxy, each forwarded client counts on its own.
      for (let i = 0; i < 5; i++)
        expect((await publicRead(t, '10.1.2.3', '198.51.100.1')).statusCode).toBe(200);
      expect((await publicRead(t, '10.1.2.3', '198.51.100.1')).statusCode).toBe(429);
      expect((await publicRead(t, '10.1.2.3', '198.51.100.2')).statusCode).toBe(200);

      // The login throttle counts the forwarded client too.
      const viaProxy = (client: string) => ({ 'x-forwarded-for': client });
      for (let i = 0; i < 3; i++) {
        const response = await login(t, uniqueEmail(), 'guess', '10.1.2.4', viaProxy('198.51.100.50'));
        expect(response.statusCode).toBe(401);
      }
      expect((await login(t, uniqueEmail(), 'guess', '10.1.2.4', viaProxy('198.51.100.50'))).statusCode).toBe(
        429,
      );
      expect((await login(t, uniqueEmail(), 'guess', '10.1.2.4', viaProxy('198.51.100.51'))).statusCode).toBe(
        401,
      );
    } finally {
      await t.close();
    }
  });
});

describe('bounded bodies and uploads', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { BODY_LIMIT_BYTES: '4096' } });
    token = (await newUser(t.app)).token;
  });
  afterAll(() => t.close());

  it('answers a JSON body over BODY_LIMIT_BYTES with 413 before reading it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(5000) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('bounds the bodies of public routes too', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(10_000) }),
    });
    expect(response.statusCode).toBe(413);
  });

  function multipart(parts: { name: string; filename?: string; body: Buffer }[]) {
    const boundary = `b${randomBytes(8).toString('hex')}`;
    const chunks: Buffer[] = [];
    for (const part of parts) {
      const file = part.filename ? `; filename="${part.filename}"\r\nContent-Type: image/png` : '';
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}\r\n\r\n`),
      );
      chunks.push(part.body, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return {
      payload: Buffer.concat(chunks),
      headers: { ...bearer(token), 'content-type': `multipart/form-data; boundary=${boundary}` },
    };
  }

  it('accepts an avatar under 2 MB and answers one over 2 MB with 413', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } })
      .png()
      .toBuffer();
    const small = await t.app.inject({
      method: 'POST',
      url: '/api/me/avatar',
      ...multipart([{ name: 'file', filename: 'a.png', body: png }]),
    });
    expect(small.statusCode).toBe(200);

    const big = Buffer.concat([png, randomBytes(2 * 1024 * 1024 + 1 - png.length + 1)]);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/me/avatar',
      ...multipart([{ name: 'file', filename: 'a.png', body: big }]),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers a multipart body with too many parts with 413, and a whole body far over the limit with 413', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, body: Buffer.from('x') }));
    const parts = await t.app.inject({ method: 'POST', url: '/api/me/avatar', ...multipart(many) });
    expect(parts.statusCode).toBe(413);
    expect(parts.json().code).toBe('PAYLOAD_TOO_LARGE');
    const huge = await t.app.inject({
      method: 'POST',
      url: '/api/me/avatar',
      ...multipart([{ name: 'file', filename: 'a.png', body: randomBytes(3 * 1024 * 1024) }]),
    });
    expect(huge.statusCode).toBe(413);
  });
});

describe('secrets never reach the logs or the database', () => {
  let t: LoggedApp;
  let receiver: Server;
  let receiverUrl: string;
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    t = await createLoggedApp({ LOG_LEVEL: 'info', LOGIN_MAX_FAILURES: '3' });
    let calls = 0;
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        calls += 1;
        // The first delivery fails, so the retry path (and whatever it logs) runs too.
        response.statusCode = calls === 1 ? 500 : 204;
        response.end(calls === 1 ? 'temporary failure' : '');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await t.close();
  });

  it('keeps passwords, API keys, session tokens and webhook secrets out of every log line', async () => {
    const { app } = t;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    secrets.password = password;
    const wrongPassword = `wrong-${randomBytes(12).toString('hex')}`;
    secrets.wrongPassword = wrongPassword;

    const admin = await newAdmin(app, {
      password: `admin-${randomBytes(12).toString('hex')}`,
    });
    secrets.adminPassword = admin.password;
    secrets.adminSession = admin.token;
    const register = await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail('logs'), password },
    });
    expect(register.statusCode).toBe(201);
    const { token: session, user } = register.json();
    secrets.registerSession = session;

    for (const attempt of [wrongPassword, wrongPassword, password]) {
      await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password: attempt },
      });
    }
    const loginResponse = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password },
      remoteAddress: '10.50.0.1',
    });
    const loginSession: string = loginResponse.json().token;
    secrets.loginSession = loginSession;

    const key = await app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(session),
      payload: { name: 'bot' },
    });
    const apiKey: string = key.json().key;
    secrets.apiKey = apiKey;
    secrets.apiKeyHash = createHash('sha256').update(apiKey).digest('hex');

    const hookPath = `/hooks/${randomBytes(16).toString('hex')}`;
    const hookToken = randomBytes(16).toString('hex');
    secrets.webhookUrlPath = hookPath;
    secrets.webhookUrlToken = hookToken;
    const hook = await app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(apiKey),
      payload: { url: `${receiverUrl}${hookPath}?token=${hookToken}` },
    });
    expect(hook.statusCode).toBe(201);
    const webhookSecret: string = hook.json().secret;
    secrets.webhookSecret = webhookSecret;

    // Use the key for real work, so that fills, notifications and webhook deliveries happen.
    const market = await createMarket(app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 20_000 }],
    });
    const optionId = market.options[0]?.id as string;
    expect(
      (
        await marketTrade(app, apiKey, {
          optionId,
          side: 'YES',
          action: 'BUY',
          quantity: 2,
          price: 90,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await limitOrder(app, apiKey, { optionId, side: 'NO', action: 'BUY', quantity: 1, price: 3 }))
        .statusCode,
    ).toBe(201);
    await app.jobs.runNow('webhooks.deliver');
    await app.inject({
      method: 'POST',
      url: '/api/admin/events',
      headers: bearer(admin.token),
      payload: { bad: 1 },
    });

    // Failures that carry credentials: a revoked key, a logged-out session, garbage, a key in the wrong header.
    await app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(loginSession) });
    await app.inject({ url: '/api/auth/me', headers: bearer(loginSession) });
    const revokable = await app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(session),
      payload: { name: 'revoked' },
    });
    const revokedKey: string = revokable.json().key;
    secrets.revokedKey = revokedKey;
    await app.inject({
      method: 'DELETE',
      url: `/api/me/api-keys/${revokable.json().id}`,
      headers: bearer(session),
    });
    await app.inject({ url: '/api/positions', headers: bearer(revokedKey) });
    await app.inject({
      url: '/api/positions',
      headers: { 'x-api-key': apiKey, cookie: `session=${session}` },
    });
    await app.inject({
      method: 'POST',
      url: '/api/trades',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      payload: `{"password":"${password}",`,
    });
    await app.inject({ url: '/api/no-such-route', headers: bearer(apiKey) });

    expect(received.length).toBeGreaterThan(0);
    const log = t.lines.join('');
    expect(t.lines.length).toBeGreaterThan(20);
    expect(log).toContain('incoming request');
    const leaked = Object.entries(secrets)
      .filter(([, secret]) => log.includes(secret))
      .map(([name]) => name);
    expect(leaked).toEqual([]);
    // The webhook receiver gets a signature, never the secret.
    for (const delivery of received) {
      expect(JSON.stringify(delivery)).not.toContain(webhookSecret);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,/);
    }
  });

  it('stores no password, API key or session token in plain text anywhere in the database', async () => {
    expect(Object.keys(secrets).length).toBeGreaterThan(5);
    const stored = await databaseText(t.database);
    expect(stored).toContain('scrypt$');
    // The webhook's URL must be stored to be called; everything else must not be, the signing secret (sealed, and
    // so not even its key bytes) included.
    const mustNotBeStored = Object.entries(secrets).filter(
      ([name]) => !name.startsWith('webhookUrl') && name !== 'apiKeyHash',
    );
    expect(mustNotBeStored.filter(([, secret]) => stored.includes(secret)).map(([name]) => name)).toEqual([]);
    expect(stored).not.toContain((secrets.webhookSecret as string).slice('whsec_'.length));
    expect(stored).toContain(secrets.apiKeyHash);
  });
});

/** Every row of every table as text. */
async function databaseText(database: Database): Promise<string> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(database.db);
  const parts: string[] = [];
  for (const { table_name: table } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT r::text AS row FROM ${sql.table(table)} AS r`.execute(
      database.db,
    );
    parts.push(...rows.rows.map((r) => r.row));
  }
  return parts.join('\n');
}
