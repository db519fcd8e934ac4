import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerRepository } from '../../../src/modules/ledger/repository.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket, type Market } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser, uniqueEmail } from '../../support/factories.js';

let t: TestApp;
let admin: TestUser;

const START = 100_000;

beforeAll(async () => {
  t = await createTestApp({ env: { DISPUTE_WINDOW_HOURS: '0' } });
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

function create(user: TestUser, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/challenges', headers: bearer(user.token), payload });
}

function accept(user: TestUser, code: string) {
  return t.app.inject({ method: 'POST', url: `/api/challenges/${code}/accept`, headers: bearer(user.token) });
}

async function market(liquidityCents = 0): Promise<Market> {
  return createMarket(t.app, admin.token, { options: [{ label: 'Yes', liquidityCents }] });
}

async function stakesHeld(): Promise<number> {
  const row = await t.database.db
    .selectFrom('ledger_accounts')
    .select('balance')
    .where('kind', '=', 'stakes')
    .executeTakeFirstOrThrow();
  return row.balance ?? 0;
}

/** The stakes account always holds exactly the stakes of open and accepted challenges. */
async function expectStakesMatchChallenges(): Promise<void> {
  const rows = await t.database.db
    .selectFrom('challenges')
    .select(['status', 'stake_cents'])
    .where('status', 'in', ['open', 'accepted'])
    .execute();
  const expected = rows.reduce((sum, r) => sum + r.stake_cents * (r.status === 'accepted' ? 2 : 1), 0);
  expect(await stakesHeld()).toBe(expected);
}

async function feed(user: TestUser) {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) });
  return res.json().data as { type: string; data: Record<string, unknown> }[];
}

/** Moves a user's cash to house fees through the ledger, so a test can make someone short of cash. */
async function spendCash(user: TestUser, cents: number): Promise<void> {
  await t.database.db.transaction().execute((trx) =>
    new LedgerRepository().post(trx, {
      kind: 'challenge_stake',
      memo: 'test: spend cash',
      postings: [
        { account: { kind: 'cash', userId: Number(user.id) }, amount: -cents },
        { account: { kind: 'fees' }, amount: cents },
      ],
    }),
  );
}

function inHours(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

describe('creating a challenge', () => {
  it('on a market: returns an invite code and holds the stake', async () => {
    const m = await market();
    const alice = await newUser(t.app);
    const res = await create(alice, { eventSlug: m.slug, stakeCents: 2_500 });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'open',
      event: { slug: m.slug },
      startsAt: null,
      endsAt: null,
      stakeCents: 2_500,
      creator: { id: alice.id, username: alice.username },
      opponent: null,
      acceptedAt: null,
      result: null,
    });
    expect(body.code).toMatch(/^[A-Z2-9]{8}$/);
    expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(47 * 3_600_000);
    expect((await balanceOf(t.app, alice.token)).cashCents).toBe(START - 2_500);
    await expectStakesMatchChallenges();
  });

  it('over a time window, with the invite expiring no later than the window', async () => {
    const alice = await newUser(t.app);
    const endsAt = inHours(3);
    const res = await create(alice, { endsAt, expiresInHours: 24 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ event: null, endsAt, expiresAt: endsAt, stakeCents: 0 });
    expect((await balanceOf(t.app, alice.token)).cashCents).toBe(START);
  });

  it.each([
    [{}, 'body.eventSlug'],
    [{ eventSlug: 'x', endsAt: inHours(2) }, 'body.eventSlug'],
    [{ startsAt: inHours(1) }, 'body.endsAt'],
    [{ endsAt: inHours(-1) }, 'body.endsAt'],
    [{ startsAt: inHours(5), endsAt: inHours(4) }, 'body.endsAt'],
    [{ endsAt: inHours(31 * 24) }, 'body.endsAt'],
    [{ endsAt: inHours(2), stakeCents: 100_001 }, 'body.stakeCents'],
    [{ endsAt: inHours(2), stakeCents: -1 }, 'body.stakeCents'],
    [{ endsAt: inHours(2), stakeCents: 1.5 }, 'body.stakeCents'],
    [{ endsAt: inHours(2), expiresInHours: 0 }, 'body.expiresInHours'],
    [{ endsAt: inHours(2), expiresInHours: 169 }, 'body.expiresInHours'],
    [{ endsAt: 'soon' }, 'body.endsAt'],
    [{ endsAt: inHours(2), bet: 5 }, 'body.bet'],
  ])('rejects %j with a 400 naming the field', async (payload, field) => {
    const user = await newUser(t.app);
    const res = await create(user, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await balanceOf(t.app, user.token)).cashCents).toBe(START);
  });

  it('404s an unknown market or opponent, 409s a market that is not open, 400s challenging yourself', async () => {
    const alice = await newUser(t.app);
    expect((await create(alice, { eventSlug: 'no-such-market' })).statusCode).toBe(404);
    const draft = await createMarket(t.app, admin.token, { open: false });
    expect((await create(alice, { eventSlug: draft.slug })).statusCode).toBe(404);
    const closed = await market();
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${closed.id}/close`,
      headers: bearer(admin.token),
    });
    const notOpen = await create(alice, { eventSlug: closed.slug });
    expect(notOpen.statusCode).toBe(409);
    expect(notOpen.json().code).toBe('EVENT_NOT_OPEN');
    expect((await create(alice, { endsAt: inHours(2), opponentUsername: 'nobody_at_all' })).statusCode).toBe(
      404,
    );
    const self = await create(alice, { endsAt: inHours(2), opponentUsername: alice.username });
    expect(self.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: '/api/challenges', payload: {} })).statusCode).toBe(
      401,
    );
  });

  it('402s a stake above the cash and holds nothing', async () => {
    const poor = await newUser(t.app);
    await spendCash(poor, 99_000);
    const res = await create(poor, { endsAt: inHours(2), stakeCents: 1_001 });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      details: { neededCents: 1_001, availableCents: 1_000 },
    });
    expect((await balanceOf(t.app, poor.token)).cashCents).toBe(1_000);
    expect((await create(poor, { endsAt: inHours(2), stakeCents: 1_000 })).statusCode).toBe(201);
    expect((await balanceOf(t.app, poor.token)).cashCents).toBe(0);
  });
});

describe('accepting a challenge', () => {
  it('holds the opponent stake, notifies the creator and cannot be accepted twice', async () => {
    const m = await market();
    const [alice, bob, carol] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const { code } = (await create(alice, { eventSlug: m.slug, stakeCents: 1_000 })).json();
    const res = await accept(bob, code.toLowerCase());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'accepted',
      opponent: { id: bob.id, username: bob.username },
    });
    expect(res.json().acceptedAt).not.toBeNull();
    expect((await balanceOf(t.app, bob.token)).cashCents).toBe(START - 1_000);
    expect((await feed(alice)).find((n) => n.type === 'challenge.accepted')?.data).toMatchObject({ code });

    const again = await accept(carol, code);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('CHALLENGE_NOT_OPEN');
    expect((await balanceOf(t.app, carol.token)).cashCents).toBe(START);
    await expectStakesMatchChallenges();
  });

  it('refuses your own challenge, an unknown code, someone else’s invite and a stake you cannot cover', async () => {
    const [alice, bob, carol] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const { code } = (await create(alice, { endsAt: inHours(2), stakeCents: 500 })).json();
    const own = await accept(alice, code);
    expect(own.statusCode).toBe(409);
    expect(own.json().code).toBe('CANNOT_ACCEPT_OWN_CHALLENGE');
    expect((await accept(bob, 'NOSUCHCODE')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: `/api/challenges/${code}/accept` })).statusCode).toBe(
      401,
    );

    const direct = (await create(alice, { endsAt: inHours(2), opponentUsername: bob.username })).json();
    expect(direct.opponent).toMatchObject({ id: bob.id });
    expect((await feed(bob)).find((n) => n.type === 'challenge.invited')?.data).toMatchObject({
      code: direct.code,
    });
    expect((await accept(carol, direct.code)).statusCode).toBe(403);
    expect((await accept(bob, direct.code)).statusCode).toBe(200);

    const big = (await create(alice, { endsAt: inHours(2), stakeCents: 90_000 })).json();
    const broke = await newUser(t.app);
    await spendCash(broke, 50_000);
    const tooPoor = await accept(broke, big.code);
    expect(tooPoor.statusCode).toBe(402);
    expect(
      (await t.app.inject({ url: `/api/challenges/${big.code}`, headers: bearer(alice.token) })).json()
        .status,
    ).toBe('open');
    await expectStakesMatchChallenges();
  });

  it('lets exactly one of two simultaneous acceptors win', async () => {
    const [alice, bob, carol] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const { code } = (await create(alice, { endsAt: inHours(2), stakeCents: 700 })).json();
    const results = await Promise.all([accept(bob, code), accept(carol, code)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const cash = [
      (await balanceOf(t.app, bob.token)).cashCents,
      (await balanceOf(t.app, carol.token)).cashCents,
    ];
    expect(cash.sort((a, b) => a - b)).toEqual([START - 700, START]);
    await expectStakesMatchChallenges();
  });

  it('lists my challenges, as creator or opponent, and shows one by code', async () => {
    const [alice, bob] = [await newUser(t.app), await newUser(t.app)];
    const first = (await create(alice, { endsAt: inHours(2) })).json();
    const second = (await create(bob, { endsAt: inHours(2) })).json();
    await accept(alice, second.code);
    const mine = await t.app.inject({ url: '/api/challenges', headers: bearer(alice.token) });
    expect(mine.json().data.map((c: { code: string }) => c.code)).toEqual([second.code, first.code]);
    const open = await t.app.inject({ url: '/api/challenges?status=open', headers: bearer(alice.token) });
    expect(open.json().data.map((c: { code: string }) => c.code)).toEqual([first.code]);
    const paged = await t.app.inject({ url: '/api/challenges?limit=1', headers: bearer(alice.token) });
    expect(paged.json().nextCursor).not.toBeNull();
    const one = await t.app.inject({ url: `/api/challenges/${first.code}`, headers: bearer(bob.token) });
    expect(one.json()).toMatchObject({ code: first.code, creator: { id: alice.id } });
    expect((await t.app.inject({ url: '/api/challenges/NOPE', headers: bearer(bob.token) })).statusCode).toBe(
      404,
    );
    expect((await t.app.inject({ url: '/api/challenges' })).statusCode).toBe(401);
  });
});

describe('registering with an invite code', () => {
  it('accepts the challenge in the registration, paying the stake from the starting balance', async () => {
    const alice = await newUser(t.app);
    const { code } = (await create(alice, { endsAt: inHours(2), stakeCents: 3_000 })).json();
    const newcomer = await newUser(t.app, { inviteCode: code });
    const view = (
      await t.app.inject({ url: `/api/challenges/${code}`, headers: bearer(alice.token) })
    ).json();
    expect(view).toMatchObject({ status: 'accepted', opponent: { id: newcomer.id } });
    expect((await balanceOf(t.app, newcomer.token)).cashCents).toBe(START - 3_000);
    await expectStakesMatchChallenges();
  });

  it('refuses an unknown, taken, expired or addressed code with 400 and creates no account', async () => {
    const [alice, bob] = [await newUser(t.app), await newUser(t.app)];
    const taken = (await create(alice, { endsAt: inHours(2) })).json();
    await accept(bob, taken.code);
    const addressed = (await create(alice, { endsAt: inHours(2), opponentUsername: bob.username })).json();
    const expired = (await create(alice, { endsAt: inHours(2) })).json();
    await t.database.db
      .updateTable('challenges')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('code', '=', expired.code)
      .execute();
    for (const code of ['UNKNOWN1', taken.code, addressed.code, expired.code]) {
      const email = uniqueEmail();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email, password: 'a long enough password', inviteCode: code },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe('body.inviteCode');
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: 'a long enough password' },
      });
      expect(login.statusCode).toBe(401);
    }
  });
});

describe('expiry', () => {
  it('expires unaccepted challenges (past expiry, or their market no longer open) and returns the stake', async () => {
    const alice = await newUser(t.app);
    const late = (await create(alice, { endsAt: inHours(2), stakeCents: 1_200 })).json();
    const m = await market();
    const onMarket = (await create(alice, { eventSlug: m.slug, stakeCents: 800 })).json();
    const fresh = (await create(alice, { endsAt: inHours(2), stakeCents: 100 })).json();
    expect((await balanceOf(t.app, alice.token)).cashCents).toBe(START - 2_100);
    await t.database.db
      .updateTable('challenges')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('code', '=', late.code)
      .execute();
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${m.id}/close`,
      headers: bearer(admin.token),
    });

    expect(await t.app.jobs.runNow('challenges.expire')).toBeGreaterThanOrEqual(2);
    const status = async (code: string) =>
      (await t.app.inject({ url: `/api/challenges/${code}`, headers: bearer(alice.token) })).json().status;
    expect(await status(late.code)).toBe('expired');
    expect(await status(onMarket.code)).toBe('expired');
    expect(await status(fresh.code)).toBe('open');
    expect((await balanceOf(t.app, alice.token)).cashCents).toBe(START - 100);
    expect((await feed(alice)).filter((n) => n.type === 'challenge.expired')).toHaveLength(2);
    const bob = await newUser(t.app);
    const tooLate = await accept(bob, late.code);
    expect(tooLate.statusCode).toBe(409);
    expect(tooLate.json().code).toBe('CHALLENGE_NOT_OPEN');
    expect(await t.app.jobs.runNow('challenges.expire')).toBe(0);
    await expectStakesMatchChallenges();
  });
});
