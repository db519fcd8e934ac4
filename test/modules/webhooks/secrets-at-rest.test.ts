import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { keyIdOf, newKeyText, parseKeys, SecretBox } from '../../../src/platform/secrets.js';
import {
  createTestApp,
  createTestDatabase,
  TEST_SECRETS_KEY,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket, limitOrder } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';

/**
 * Webhook signing secrets are kept sealed (AES-256-GCM) under SECRETS_KEY's keyring, on both databases: what the
 * table holds is never the secret, deliveries still verify, a rotation reseals, a missing key stops the start.
 */

const K2 = newKeyText();
const K3 = newKeyText();
const idOf = (key: string) => keyIdOf(Buffer.from(key, 'base64'));

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function instance(db: TestDatabase, env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({ database: db, env: { WEBHOOK_TIMEOUT_MS: '2000', ...env } });
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

async function subscribe(t: TestApp, user: TestUser, url: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/me/webhooks',
    headers: bearer(user.token),
    payload: { url },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; secret: string };
}

async function storedSecret(t: TestApp, subscriptionId: string): Promise<string> {
  const row = await t.database.db
    .selectFrom('webhook_subscriptions')
    .select('secret')
    .where('id', '=', Number(subscriptionId))
    .executeTakeFirstOrThrow();
  return row.secret;
}

async function setStoredSecret(t: TestApp, subscriptionId: string, secret: string): Promise<void> {
  await t.database.db
    .updateTable('webhook_subscriptions')
    .set({ secret })
    .where('id', '=', Number(subscriptionId))
    .execute();
}

/** One event for the user's subscriptions: a limit order placed and cancelled (order.cancelled). */
async function oneEvent(t: TestApp, admin: TestUser, user: TestUser): Promise<void> {
  const market = await createMarket(t.app, admin.token);
  const order = await limitOrder(t.app, user.token, {
    optionId: market.options[0]!.id,
    side: 'YES',
    action: 'BUY',
    quantity: 1,
    price: 20,
  });
  const cancel = await t.app.inject({
    method: 'DELETE',
    url: `/api/limit-orders/${order.json().id}`,
    headers: bearer(user.token),
  });
  expect(cancel.statusCode).toBe(200);
}

/** Every delivery the receiver got verifies with the secret shown at creation, as `standardwebhooks` checks. */
function expectVerified(r: Receiver, secret: string): void {
  expect(r.received.length).toBeGreaterThan(0);
  const verifier = new Webhook(secret);
  for (const w of r.received) {
    const headers = Object.fromEntries(Object.entries(w.headers).map(([k, v]) => [k, String(v)]));
    expect(verifier.verify(w.body, headers)).toEqual(JSON.parse(w.body));
    expect(() => new Webhook(`whsec_${K3}`).verify(w.body, headers)).toThrow();
  }
}

async function deliveriesOf(t: TestApp, user: TestUser, subscriptionId: string) {
  const res = await t.app.inject({
    url: `/api/me/webhooks/${subscriptionId}/deliveries`,
    headers: bearer(user.token),
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { status: string; attempts: { error: string | null }[] }[];
}

describe('webhook signing secrets at rest', () => {
  it('stores the secret sealed, never as given, and deliveries verify with the secret shown once', async () => {
    const db = await database();
    const t = await instance(db);
    cleanups.push(() => t.close());
    const admin = await newAdmin(t.app);
    const user = await newUser(t.app);
    const r = await receiver();
    const sub = await subscribe(t, user, r.url);

    const stored = await storedSecret(t, sub.id);
    expect(stored).toMatch(new RegExp(`^enc:v1:${idOf(TEST_SECRETS_KEY)}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    const key = sub.secret.slice('whsec_'.length);
    for (const form of [sub.secret, key, Buffer.from(key, 'base64').toString('hex')])
      expect(stored).not.toContain(form);
    // Sealed twice, the same secret reads differently (a fresh nonce each time).
    const again = await subscribe(t, user, r.url);
    expect(await storedSecret(t, again.id)).not.toBe(stored);

    await oneEvent(t, admin, user);
    await t.app.jobs.runNow('webhooks.deliver');
    // Both subscriptions got the event; each delivery verifies with its own subscription's secret only.
    expect(r.received.length).toBeGreaterThanOrEqual(2);
    const used = r.received.map((w) => {
      const headers = Object.fromEntries(Object.entries(w.headers).map(([k, v]) => [k, String(v)]));
      return [sub.secret, again.secret].filter((secret) => {
        try {
          new Webhook(secret).verify(w.body, headers);
          return true;
        } catch {
          return false;
        }
      });
    });
    expect(used.every((secrets) => secrets.length === 1)).toBe(true);
    expect(new Set(used.flat())).toEqual(new Set([sub.secret, again.secret]));
  });

  it('seals at start the secrets stored plain before sealing existed, and they keep signing', async () => {
    const db = await database();
    const before = await instance(db);
    const admin = await newAdmin(before.app);
    const user = await newUser(before.app);
    const r = await receiver();
    const sub = await subscribe(before, user, r.url);
    await setStoredSecret(before, sub.id, sub.secret);
    // Until the next start, the plain one still signs.
    await oneEvent(before, admin, user);
    await before.app.jobs.runNow('webhooks.deliver');
    expectVerified(r, sub.secret);
    await before.close();

    const after = await instance(db);
    cleanups.push(() => after.close());
    const stored = await storedSecret(after, sub.id);
    expect(stored.startsWith(`enc:v1:${idOf(TEST_SECRETS_KEY)}:`)).toBe(true);
    expect(stored).not.toContain(sub.secret.slice(6));
    r.received.length = 0;
    await oneEvent(after, admin, user);
    await after.app.jobs.runNow('webhooks.deliver');
    expectVerified(r, sub.secret);
  });

  it('rotates: a new first key reseals everything at start, after which the old key can go', async () => {
    const db = await database();
    const old = await instance(db);
    const admin = await newAdmin(old.app);
    const user = await newUser(old.app);
    const r = await receiver();
    const sub = await subscribe(old, user, r.url);
    await old.close();

    const rotating = await instance(db, { SECRETS_KEY: `${K2},${TEST_SECRETS_KEY}` });
    expect(await rotating.app.services.webhooks.secrets.status()).toEqual({
      currentKeyId: idOf(K2),
      byKey: [{ keyId: idOf(K2), count: 1, known: true }],
    });
    await rotating.close();

    const rotated = await instance(db, { SECRETS_KEY: K2 });
    cleanups.push(() => rotated.close());
    await oneEvent(rotated, admin, user);
    await rotated.app.jobs.runNow('webhooks.deliver');
    expectVerified(r, sub.secret);
    expect((await deliveriesOf(rotated, user, sub.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('refuses to start without the key a secret was sealed with, naming the key', async () => {
    const db = await database();
    const sealing = await instance(db);
    const user = await newUser(sealing.app);
    await subscribe(sealing, user, 'http://127.0.0.1:9/hooks');
    await subscribe(sealing, user, 'http://127.0.0.1:9/hooks');
    await sealing.close();

    await expect(instance(db, { SECRETS_KEY: K3 })).rejects.toThrow(
      `webhook signing secrets are sealed with keys the service does not have (2 with key ${idOf(TEST_SECRETS_KEY)})`,
    );
    // Nothing was changed by the refused start: the right key still opens them.
    const back = await instance(db);
    cleanups.push(() => back.close());
    expect((await back.app.services.webhooks.secrets.status()).byKey).toEqual([
      { keyId: idOf(TEST_SECRETS_KEY), count: 2, known: true },
    ]);
  });

  it('never sends a delivery whose secret does not open: moved to another account, or of a missing key', async () => {
    const db = await database();
    const t = await instance(db);
    cleanups.push(() => t.close());
    const admin = await newAdmin(t.app);
    const [owner, other, third] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const r = await receiver();
    const own = await subscribe(t, owner, r.url);
    const moved = await subscribe(t, other, r.url);
    const lost = await subscribe(t, third, r.url);
    // Another account's sealed secret copied over this one's; a secret sealed with a key nobody has.
    await setStoredSecret(t, moved.id, await storedSecret(t, own.id));
    const stranger = new SecretBox(parseKeys(K3)).seal(
      lost.secret,
      `webhook_subscriptions.secret:user:${third.id}`,
    );
    await setStoredSecret(t, lost.id, stranger);

    await oneEvent(t, admin, other);
    await expect(t.app.jobs.runNow('webhooks.deliver')).rejects.toThrow(
      /does not open: it was altered or moved/,
    );
    await oneEvent(t, admin, third);
    await expect(t.app.jobs.runNow('webhooks.deliver')).rejects.toThrow(
      `sealed with key ${idOf(K3)}, which is not in SECRETS_KEY`,
    );
    expect(r.received).toHaveLength(0);
    for (const [user, sub] of [
      [other, moved],
      [third, lost],
    ] as const) {
      const [delivery] = await deliveriesOf(t, user, sub.id);
      expect(delivery?.status).toBe('pending');
      expect(delivery?.attempts[0]?.error).toMatch(/^not sent: the exchange could not open/);
    }
  });

  it('without SECRETS_KEY makes a key in DATA_DIR at the first start, private to its owner, and keeps it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pmx-secrets-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { SECRETS_KEY: '', DATA_DIR: dataDir };
    const db = await database();
    const first = await instance(db, env);
    const file = join(dataDir, 'secrets.key');
    const key = readFileSync(file, 'utf8');
    expect(parseKeys(key)).toHaveLength(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const user = await newUser(first.app);
    const sub = await subscribe(first, user, 'http://127.0.0.1:9/hooks');
    expect(await storedSecret(first, sub.id)).toMatch(new RegExp(`^enc:v1:${idOf(key.trim())}:`));
    await first.close();

    const second = await instance(db, env);
    cleanups.push(() => second.close());
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect((await second.app.services.webhooks.secrets.status()).byKey).toEqual([
      { keyId: idOf(key.trim()), count: 1, known: true },
    ]);
  });
});
