import { sql } from 'kysely';
import { generate } from 'otplib';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { keyIdOf, newKeyText } from '../../../src/platform/secrets.js';
import {
  createTestApp,
  createTestDatabase,
  TEST_SECRETS_KEY,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';

/**
 * Authenticator app (TOTP) secrets are kept sealed under SECRETS_KEY's keyring like webhook signing secrets, bound to
 * their owner: no row of any table holds one as given, a secret stored plain is sealed at start, a rotation reseals
 * (and sign-in with a code still works after it), a key the keyring lacks stops the start, and a sealed secret moved
 * to another account's row accepts no code.
 */

const K2 = newKeyText();
const K3 = newKeyText();
const idOf = (key: string) => keyIdOf(Buffer.from(key, 'base64'));

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
afterEach(() => {
  vi.useRealTimers();
});

let clock = Date.now();
/** Moves the clock on by a TOTP step, so that each code the test sends is a new one. */
function tick(): void {
  clock += 30_000;
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock);
}
const code = (secret: string) => generate({ secret, epoch: Math.floor(clock / 1000) });

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function instance(db: TestDatabase, env: Record<string, string> = {}): Promise<TestApp> {
  const t = await createTestApp({ database: db, env });
  cleanups.push(() => t.close());
  return t;
}

function post(t: TestApp, url: string, token: string | null, payload: object = {}) {
  return t.app.inject({ method: 'POST', url, headers: token ? bearer(token) : {}, payload });
}

async function enrol(t: TestApp, user: TestUser): Promise<string> {
  tick();
  const started = await post(t, '/api/me/second-factors/totp', user.token);
  expect(started.statusCode, started.body).toBe(201);
  const { secret } = started.json();
  const confirmed = await post(t, '/api/me/second-factors/totp/confirm', user.token, {
    code: await code(secret),
    password: user.password,
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return secret;
}

/** Signs in with the password and a code; the status of the second step. */
async function signIn(t: TestApp, user: TestUser, secret: string): Promise<number> {
  tick();
  const first = await post(t, '/api/auth/login', null, { email: user.email, password: user.password });
  expect(first.json().secondFactorRequired, first.body).toBe(true);
  const second = await post(t, '/api/auth/login/second-factor', null, {
    challengeToken: first.json().challengeToken,
    code: await code(secret),
  });
  return second.statusCode;
}

async function stored(t: TestApp, user: TestUser): Promise<string> {
  const row = await t.database.db
    .selectFrom('second_factors')
    .select('secret')
    .where('user_id', '=', Number(user.id))
    .executeTakeFirstOrThrow();
  return row.secret;
}

async function setStored(t: TestApp, user: TestUser, secret: string): Promise<void> {
  await t.database.db
    .updateTable('second_factors')
    .set({ secret })
    .where('user_id', '=', Number(user.id))
    .execute();
}

/** Every row of every table, as text. */
async function everyRow(t: TestApp): Promise<string> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(t.database.db);
  const texts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(name)} t`.execute(
      t.database.db,
    );
    texts.push(...rows.map((r) => r.row));
  }
  return texts.join('\n');
}

describe('TOTP secrets at rest', () => {
  it('are never stored as given, in any table, and sign-in with a code works', async () => {
    const t = await instance(await database());
    const user = await newUser(t.app);
    const secret = await enrol(t, user);
    expect(await stored(t, user)).toMatch(
      new RegExp(`^enc:v1:${idOf(TEST_SECRETS_KEY)}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`),
    );
    const all = await everyRow(t);
    expect(all).toContain('enc:v1:');
    for (const form of [secret, secret.toLowerCase(), Buffer.from(secret).toString('base64')])
      expect(all).not.toContain(form);
    expect(await signIn(t, user, secret)).toBe(200);
  });

  it('seals at start a secret stored plain, which keeps working', async () => {
    const db = await database();
    const before = await instance(db);
    const user = await newUser(before.app);
    const secret = await enrol(before, user);
    await setStored(before, user, secret);
    // Until the next start, the plain one still works.
    expect(await signIn(before, user, secret)).toBe(200);
    const after = await instance(db);
    expect(await stored(after, user)).toMatch(new RegExp(`^enc:v1:${idOf(TEST_SECRETS_KEY)}:`));
    expect(await signIn(after, user, secret)).toBe(200);
  });

  it('reseals with a new key, signs in after it, and the old key can go; without the key nothing starts', async () => {
    const db = await database();
    const first = await instance(db);
    const user = await newUser(first.app);
    const secret = await enrol(first, user);
    const rotating = await instance(db, { SECRETS_KEY: `${K2},${TEST_SECRETS_KEY}` });
    expect(await stored(rotating, user)).toMatch(new RegExp(`^enc:v1:${idOf(K2)}:`));
    expect(await rotating.app.services.secrets.status()).toMatchObject({
      currentKeyId: idOf(K2),
      columns: { 'second_factors.secret': [{ keyId: idOf(K2), count: 1, known: true }] },
    });
    expect(await signIn(rotating, user, secret)).toBe(200);
    const rotated = await instance(db, { SECRETS_KEY: K2 });
    expect(await signIn(rotated, user, secret)).toBe(200);
    await expect(instance(db, { SECRETS_KEY: K3 })).rejects.toThrow(
      `authenticator app (TOTP) secrets are sealed with keys the service does not have (1 with key ${idOf(K2)})`,
    );
    expect(await stored(rotated, user)).toMatch(new RegExp(`^enc:v1:${idOf(K2)}:`));
  });

  it('accepts no code for a sealed secret moved to another account’s row', async () => {
    const t = await instance(await database());
    const owner = await newUser(t.app);
    const thief = await newUser(t.app);
    const secret = await enrol(t, owner);
    const thiefSecret = await enrol(t, thief);
    expect(thiefSecret).not.toBe(secret);
    await setStored(t, thief, await stored(t, owner));
    expect(await signIn(t, thief, secret)).toBe(401);
    expect(await signIn(t, owner, secret)).toBe(200);
  });
});
