import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { SoftwareAuthenticator } from '../../support/authenticator.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';

/**
 * Passkeys through HTTP, checked by @simplewebauthn/server against a software authenticator (an EC P-256 key,
 * attestation none): registering one, a login's second step and a sign-in without a password with it, no answer
 * accepted twice or from another site, and a passkey proving the fresh factor that removing one needs.
 */

let t: TestApp;
let app: FastifyInstance;
let origin: string;
let rpId: string;
let clock = Date.now();

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  origin = new URL(t.config.publicUrl).origin;
  rpId = new URL(t.config.publicUrl).hostname;
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  vi.useRealTimers();
});

function tick(ms: number): void {
  clock += ms;
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock);
}

function post(token: string | null, url: string, payload: object = {}) {
  return app.inject({ method: 'POST', url, headers: token ? bearer(token) : {}, payload });
}

const authenticator = (verifiesUser = true) => new SoftwareAuthenticator(origin, rpId, verifiesUser);

async function register(user: TestUser, key: SoftwareAuthenticator, name = 'Laptop') {
  const options = await post(user.token, '/api/me/passkeys/options');
  expect(options.statusCode, options.body).toBe(200);
  expect(options.json()).toMatchObject({ rp: { id: rpId }, attestation: 'none' });
  return post(user.token, '/api/me/passkeys', {
    name,
    response: key.create(options.json()),
    password: user.password,
  });
}

async function loginChallenge(user: TestUser): Promise<string> {
  const res = await post(null, '/api/auth/login', { email: user.email, password: user.password });
  expect(res.json()).toMatchObject({ secondFactorRequired: true });
  return res.json().challengeToken;
}

async function secondStep(user: TestUser, key: SoftwareAuthenticator) {
  const challengeToken = await loginChallenge(user);
  const options = await post(null, '/api/auth/passkey/options', { challengeToken });
  expect(options.statusCode, options.body).toBe(200);
  const passkey = key.get(options.json());
  return {
    challengeToken,
    passkey,
    res: await post(null, '/api/auth/login/second-factor', { challengeToken, passkey }),
  };
}

describe('registering a passkey', () => {
  it('stores it, answers the first factor’s recovery codes, and makes login two steps', async () => {
    const user = await newUser(app);
    const key = authenticator();
    const added = await register(user, key);
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().passkey).toMatchObject({
      name: 'Laptop',
      transports: ['internal'],
      lastUsedAt: null,
    });
    expect(added.json().recoveryCodes).toHaveLength(10);
    const list = await app.inject({ url: '/api/me/passkeys', headers: bearer(user.token) });
    expect(list.json().data).toHaveLength(1);
    const status = await app.inject({ url: '/api/me/second-factors', headers: bearer(user.token) });
    expect(status.json()).toMatchObject({ totp: null, passkeys: 1, recoveryCodesLeft: 10 });
    const login = await post(null, '/api/auth/login', { email: user.email, password: user.password });
    expect(login.json()).toMatchObject({ secondFactorRequired: true, factors: ['passkey'] });
    expect(login.json().token).toBeUndefined();
    // The options name the account's passkey; registering the same one again is refused by the authenticator's id.
    const again = await post(user.token, '/api/me/passkeys/options');
    expect(again.json().excludeCredentials).toEqual([
      { id: key.id, type: 'public-key', transports: ['internal'] },
    ]);
  });

  it('refuses an answer made for another site, and an answer given twice', async () => {
    const user = await newUser(app);
    const options = (await post(user.token, '/api/me/passkeys/options')).json();
    const elsewhere = new SoftwareAuthenticator('https://evil.example', 'evil.example');
    const foreign = await post(user.token, '/api/me/passkeys', {
      name: 'x',
      response: elsewhere.create(options),
      password: user.password,
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().code).toBe('INVALID_PASSKEY');
    const fresh = (await post(user.token, '/api/me/passkeys/options')).json();
    const answer = authenticator().create(fresh);
    const first = { name: 'a', response: answer, password: user.password };
    expect((await post(user.token, '/api/me/passkeys', first)).statusCode).toBe(201);
    // Its challenge is spent (and the account now has a factor proved by making it).
    const twice = await post(user.token, '/api/me/passkeys', { name: 'b', response: answer });
    expect(twice.json().code).toBe('INVALID_PASSKEY');
  });
});

describe('signing in with a passkey', () => {
  it('answers a login’s second step once, never with another account’s passkey', async () => {
    const user = await newUser(app);
    const key = authenticator();
    expect((await register(user, key)).statusCode).toBe(201);
    const { res, passkey } = await secondStep(user, key);
    expect(res.statusCode, res.body).toBe(200);
    expect((await app.inject({ url: '/api/auth/me', headers: bearer(res.json().token) })).json().id).toBe(
      user.id,
    );
    const replay = await post(null, '/api/auth/login/second-factor', {
      challengeToken: await loginChallenge(user),
      passkey,
    });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().code).toBe('INVALID_SECOND_FACTOR');

    const other = await newUser(app);
    const otherKey = authenticator();
    expect((await register(other, otherKey)).statusCode).toBe(201);
    const challengeToken = await loginChallenge(user);
    const options = (await post(null, '/api/auth/passkey/options', { challengeToken })).json();
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([key.id]);
    const wrong = await post(null, '/api/auth/login/second-factor', {
      challengeToken,
      passkey: otherKey.get(options),
    });
    expect(wrong.json().code).toBe('INVALID_SECOND_FACTOR');
    const list = await app.inject({ url: '/api/me/passkeys', headers: bearer(res.json().token) });
    expect(list.json().data[0].lastUsedAt).not.toBeNull();
  });

  it('signs in without a password when the passkey verified its user, and not otherwise', async () => {
    const user = await newUser(app);
    const key = authenticator();
    expect((await register(user, key)).statusCode).toBe(201);
    const options = (await post(null, '/api/auth/passkey/options', {})).json();
    expect(options).toMatchObject({ userVerification: 'required', rpId });
    const signedIn = await post(null, '/api/auth/passkey', { response: key.get(options) });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().user.id).toBe(user.id);
    // The session proved a factor: a key that may trade is made at once.
    expect((await post(signedIn.json().token, '/api/me/api-keys', { name: 'bot' })).statusCode).toBe(201);

    const presenceOnly = authenticator(false);
    const other = await newUser(app);
    expect((await register(other, presenceOnly)).statusCode).toBe(201);
    const unverified = await post(null, '/api/auth/passkey', {
      response: presenceOnly.get((await post(null, '/api/auth/passkey/options', {})).json()),
    });
    expect(unverified.statusCode).toBe(401);
    expect(unverified.json().code).toBe('INVALID_CREDENTIALS');
    const unknown = await post(null, '/api/auth/passkey', {
      response: authenticator().get((await post(null, '/api/auth/passkey/options', {})).json()),
    });
    expect(unknown.json().code).toBe('INVALID_CREDENTIALS');
  });
});

describe('a passkey as the fresh factor', () => {
  it('is demanded to add or remove a passkey, and a passkey gives it', async () => {
    tick(0);
    const user = await newUser(app);
    const key = authenticator();
    const added = await register(user, key);
    expect(added.statusCode).toBe(201);
    tick(11 * 60_000);
    const stale = await register(user, authenticator(), 'Phone');
    expect(stale.statusCode).toBe(403);
    expect(stale.json().code).toBe('FRESH_SECOND_FACTOR_REQUIRED');
    const path = `/api/me/passkeys/${added.json().passkey.id}`;
    const refused = await app.inject({ method: 'DELETE', url: path, headers: bearer(user.token) });
    expect(refused.json().code).toBe('FRESH_SECOND_FACTOR_REQUIRED');

    const options = (await post(user.token, '/api/me/second-factors/passkey-options')).json();
    const proved = await post(user.token, '/api/me/second-factors/verify', { passkey: key.get(options) });
    expect(proved.statusCode, proved.body).toBe(204);
    const removed = await app.inject({ method: 'DELETE', url: path, headers: bearer(user.token) });
    expect(removed.statusCode).toBe(204);
    // The last factor gone, its recovery codes go, and login is one step again.
    const status = await app.inject({ url: '/api/me/second-factors', headers: bearer(user.token) });
    expect(status.json()).toMatchObject({ passkeys: 0, recoveryCodesLeft: 0 });
    const login = await post(null, '/api/auth/login', { email: user.email, password: user.password });
    expect(login.json().token).toBeTruthy();
    const none = await post(user.token, '/api/me/second-factors/passkey-options');
    expect(none.statusCode).toBe(404);
  });
});
