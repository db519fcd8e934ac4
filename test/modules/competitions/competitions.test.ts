import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket, type Market, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/** Challenges and tournaments played with real trades against the house market maker. */

let t: TestApp;
let admin: TestUser;

const START = 100_000;

beforeAll(async () => {
  t = await createTestApp({ env: { DISPUTE_WINDOW_HOURS: '0', TAKER_FEE_BPS: '100' } });
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

function adminPost(url: string, payload?: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: bearer(admin.token),
    ...(payload ? { payload } : {}),
  });
}

async function liquidMarket(): Promise<Market> {
  return createMarket(t.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 100_000 }] });
}

/** Buys at market and returns what the buy cost (price × quantity + fees) and the shares it got. */
async function buy(user: TestUser, m: Market, side: 'YES' | 'NO', quantity: number) {
  const res = await marketTrade(t.app, user.token, {
    optionId: m.options[0]!.id,
    side,
    action: 'BUY',
    quantity,
    price: 80,
  });
  expect(res.statusCode).toBe(201);
  const trades = res.json().trades as { quantity: number; priceCents: number; feeCents: number }[];
  return {
    cost: trades.reduce((sum, tr) => sum + tr.quantity * tr.priceCents + tr.feeCents, 0),
    shares: trades.reduce((sum, tr) => sum + tr.quantity, 0),
  };
}

async function settleYes(m: Market) {
  const resolved = await adminPost(`/api/admin/events/${m.id}/resolve`, {
    outcomes: [{ optionId: m.options[0]!.id, outcome: 'YES' }],
  });
  expect(resolved.statusCode).toBe(200);
  const settled = await adminPost(`/api/admin/events/${m.id}/settle`);
  expect(settled.statusCode).toBe(200);
}

async function lastYesPrice(m: Market): Promise<number> {
  const row = await t.database.db
    .selectFrom('options')
    .select('last_yes_price')
    .where('id', '=', Number(m.options[0]!.id))
    .executeTakeFirstOrThrow();
  return row.last_yes_price as number;
}

async function stakesHeld(): Promise<number> {
  const row = await t.database.db
    .selectFrom('ledger_accounts')
    .select('balance')
    .where('kind', '=', 'stakes')
    .executeTakeFirstOrThrow();
  return row.balance ?? 0;
}

async function feed(user: TestUser) {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) });
  return res.json().data as { type: string; data: Record<string, unknown> }[];
}

describe('a head-to-head challenge on a market', () => {
  it('scores trades after acceptance, pays the pot to the winner and tells both', async () => {
    const m = await liquidMarket();
    const [alice, bob, carol] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const stakesBefore = await stakesHeld();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/challenges',
      headers: bearer(alice.token),
      payload: { eventSlug: m.slug, stakeCents: 5_000 },
    });
    const { code } = created.json();
    const early = await buy(alice, m, 'YES', 10); // before acceptance: not part of the challenge
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/challenges/${code}/accept`,
          headers: bearer(bob.token),
        })
      ).statusCode,
    ).toBe(200);
    expect(await stakesHeld()).toBe(stakesBefore + 10_000);

    const aliceBuy = await buy(alice, m, 'YES', 20);
    const bobBuy = await buy(bob, m, 'NO', 20);
    await buy(carol, m, 'NO', 5);
    expect(await t.app.jobs.runNow('challenges.settle')).toBe(0);

    await settleYes(m);
    expect(await t.app.jobs.runNow('challenges.settle')).toBe(1);
    expect(await t.app.jobs.runNow('challenges.settle')).toBe(0);

    const alicePnl = aliceBuy.shares * 100 - aliceBuy.cost;
    const bobPnl = -bobBuy.cost;
    const view = (await t.app.inject({ url: `/api/challenges/${code}`, headers: bearer(bob.token) })).json();
    expect(view).toMatchObject({
      status: 'settled',
      result: { creatorPnlCents: alicePnl, opponentPnlCents: bobPnl, winner: { id: alice.id } },
    });
    expect(view.settledAt).not.toBeNull();

    const aliceCash =
      START - 5_000 - early.cost - aliceBuy.cost + (early.shares + aliceBuy.shares) * 100 + 10_000;
    expect((await balanceOf(t.app, alice.token)).cashCents).toBe(aliceCash);
    expect((await balanceOf(t.app, bob.token)).cashCents).toBe(START - 5_000 - bobBuy.cost);
    expect(await stakesHeld()).toBe(stakesBefore);

    const won = (await feed(alice)).find((n) => n.type === 'challenge.settled');
    expect(won?.data).toMatchObject({ code, result: 'won', myPnlCents: alicePnl, payoutCents: 10_000 });
    const lost = (await feed(bob)).find((n) => n.type === 'challenge.settled');
    expect(lost?.data).toMatchObject({ code, result: 'lost', myPnlCents: bobPnl, payoutCents: 0 });
    await expectInvariants(t.database);
  });
});

describe('a head-to-head challenge over a time window', () => {
  it('marks open positions at the last price when the window ends, counting every market', async () => {
    const [m1, m2] = [await liquidMarket(), await liquidMarket()];
    const [alice, bob] = [await newUser(t.app), await newUser(t.app)];
    const { code } = (
      await t.app.inject({
        method: 'POST',
        url: '/api/challenges',
        headers: bearer(alice.token),
        payload: { endsAt: new Date(Date.now() + 3_600_000).toISOString(), stakeCents: 1_000 },
      })
    ).json();
    await t.app.inject({ method: 'POST', url: `/api/challenges/${code}/accept`, headers: bearer(bob.token) });
    const aliceBuy = await buy(alice, m1, 'YES', 30);
    const bobBuy = await buy(bob, m2, 'NO', 10);
    expect(await t.app.jobs.runNow('challenges.settle')).toBe(0);

    await t.database.db
      .updateTable('challenges')
      .set({ ends_at: sql<Date>`now()`, expires_at: sql<Date>`now()` })
      .where('code', '=', code)
      .execute();
    await buy(bob, m2, 'NO', 50); // after the window: not counted
    expect(await t.app.jobs.runNow('challenges.settle')).toBe(1);

    const alicePnl = aliceBuy.shares * (await lastYesPrice(m1)) - aliceBuy.cost;
    const bobPnl = bobBuy.shares * (100 - (await lastYesPrice(m2))) - bobBuy.cost;
    const view = (
      await t.app.inject({ url: `/api/challenges/${code}`, headers: bearer(alice.token) })
    ).json();
    expect(view.result).toMatchObject({ creatorPnlCents: alicePnl, opponentPnlCents: bobPnl });
    const winner = alicePnl > bobPnl ? alice : alicePnl < bobPnl ? bob : null;
    expect(view.result.winner?.id ?? null).toBe(winner?.id ?? null);
    await expectInvariants(t.database);
  });

  it('is a draw when neither side trades: both stakes come back', async () => {
    const [alice, bob] = [await newUser(t.app), await newUser(t.app)];
    const { code } = (
      await t.app.inject({
        method: 'POST',
        url: '/api/challenges',
        headers: bearer(alice.token),
        payload: { endsAt: new Date(Date.now() + 3_600_000).toISOString(), stakeCents: 2_000 },
      })
    ).json();
    await t.app.inject({ method: 'POST', url: `/api/challenges/${code}/accept`, headers: bearer(bob.token) });
    await t.database.db
      .updateTable('challenges')
      .set({ ends_at: sql<Date>`now()`, expires_at: sql<Date>`now()` })
      .where('code', '=', code)
      .execute();
    expect(await t.app.jobs.runNow('challenges.settle')).toBe(1);
    const view = (
      await t.app.inject({ url: `/api/challenges/${code}`, headers: bearer(alice.token) })
    ).json();
    expect(view.result).toEqual({ creatorPnlCents: 0, opponentPnlCents: 0, winner: null });
    for (const user of [alice, bob]) {
      expect((await balanceOf(t.app, user.token)).cashCents).toBe(START);
      expect((await feed(user)).find((n) => n.type === 'challenge.settled')?.data).toMatchObject({
        result: 'draw',
        payoutCents: 2_000,
      });
    }
  });
});

describe('a tournament', () => {
  it('ranks entrants by return on trades in its markets during its window and pays prizes once', async () => {
    const [m1, m2] = [await liquidMarket(), await liquidMarket()];
    const [alice, bob, carol, dave] = [
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
    ];
    const before = await buy(alice, m1, 'NO', 10); // before the window: not counted
    const created = await adminPost('/api/admin/tournaments', {
      slug: `weekly-${Date.now()}`,
      title: 'Weekly cup',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      eventSlugs: [m1.slug],
      prizes: [5_000, 2_000],
    });
    expect(created.statusCode).toBe(201);
    const slug = created.json().slug as string;
    for (const user of [alice, bob, carol]) {
      const joined = await t.app.inject({
        method: 'POST',
        url: `/api/tournaments/${slug}/join`,
        headers: bearer(user.token),
      });
      expect(joined.statusCode).toBe(200);
    }
    const aliceBuy = await buy(alice, m1, 'YES', 20);
    const bobBuy = await buy(bob, m1, 'NO', 20);
    await buy(carol, m2, 'YES', 10); // another market: carol stays unranked
    await buy(dave, m1, 'YES', 10); // not an entrant

    const live = (
      await t.app.inject({ url: `/api/tournaments/${slug}`, headers: bearer(alice.token) })
    ).json();
    expect(live).toMatchObject({ status: 'active', joined: true, participants: 3 });
    const mark = await lastYesPrice(m1);
    const liveAlice = aliceBuy.shares * mark - aliceBuy.cost;
    expect(live.leaderboard.find((e: { userId: string }) => e.userId === alice.id)).toMatchObject({
      trades: expect.any(Number),
      costCents: aliceBuy.cost,
      pnlCents: liveAlice,
      returnBps: Math.floor((liveAlice * 10_000) / aliceBuy.cost),
    });
    expect(live.leaderboard.map((e: { userId: string }) => e.userId)).not.toContain(dave.id);
    expect(live.leaderboard.at(-1)).toMatchObject({ userId: carol.id, rank: null, trades: 0, prizeCents: 0 });

    await settleYes(m1);
    expect(await t.app.jobs.runNow('tournaments.finish')).toBe(0);
    await t.database.db
      .updateTable('tournaments')
      .set({ ends_at: sql<Date>`now()`, entry_closes_at: sql<Date>`now()` })
      .where('slug', '=', slug)
      .execute();
    const aliceCashBefore = (await balanceOf(t.app, alice.token)).cashCents;
    const bobCashBefore = (await balanceOf(t.app, bob.token)).cashCents;
    expect(await t.app.jobs.runNow('tournaments.finish')).toBe(1);
    expect(await t.app.jobs.runNow('tournaments.finish')).toBe(0);

    const alicePnl = aliceBuy.shares * 100 - aliceBuy.cost;
    const bobPnl = -bobBuy.cost;
    const final = (await t.app.inject({ url: `/api/tournaments/${slug}` })).json();
    expect(final.status).toBe('finished');
    expect(final.leaderboard).toEqual([
      {
        rank: 1,
        userId: alice.id,
        username: alice.username,
        trades: expect.any(Number),
        costCents: aliceBuy.cost,
        pnlCents: alicePnl,
        returnBps: Math.floor((alicePnl * 10_000) / aliceBuy.cost),
        prizeCents: 5_000,
      },
      {
        rank: 2,
        userId: bob.id,
        username: bob.username,
        trades: expect.any(Number),
        costCents: bobBuy.cost,
        pnlCents: bobPnl,
        returnBps: -10_000,
        prizeCents: 2_000,
      },
      {
        rank: null,
        userId: carol.id,
        username: carol.username,
        trades: 0,
        costCents: 0,
        pnlCents: 0,
        returnBps: 0,
        prizeCents: 0,
      },
    ]);
    expect(before.cost).toBeGreaterThan(0);

    expect((await balanceOf(t.app, alice.token)).cashCents).toBe(aliceCashBefore + 5_000);
    expect((await balanceOf(t.app, bob.token)).cashCents).toBe(bobCashBefore + 2_000);
    const prizes = await t.database.db
      .selectFrom('journal_entries')
      .select(['user_id'])
      .where('kind', '=', 'tournament_prize')
      .where('ref_type', '=', 'tournament')
      .where('ref_id', '=', await tournamentId(slug))
      .execute();
    expect(prizes.map((p) => String(p.user_id)).sort()).toEqual([alice.id, bob.id].sort());
    expect((await feed(alice)).find((n) => n.type === 'tournament.prize')?.data).toMatchObject({
      tournamentSlug: slug,
      rank: 1,
      prizeCents: 5_000,
    });
    expect((await feed(carol)).some((n) => n.type === 'tournament.prize')).toBe(false);

    const results = await t.database.db
      .selectFrom('tournament_results')
      .select(['user_id', 'rank', 'prize_cents'])
      .where('tournament_id', '=', await tournamentId(slug))
      .orderBy('user_id')
      .execute();
    expect(results).toHaveLength(3);

    const late = await t.app.inject({
      method: 'POST',
      url: `/api/tournaments/${slug}/join`,
      headers: bearer(dave.token),
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('TOURNAMENT_CLOSED');
    const finished = (await t.app.inject({ url: '/api/tournaments?status=finished' })).json();
    expect(finished.data.map((x: { slug: string }) => x.slug)).toContain(slug);
    const liveList = (await t.app.inject({ url: '/api/tournaments' })).json();
    expect(liveList.data.map((x: { slug: string }) => x.slug)).not.toContain(slug);
    await expectInvariants(t.database);
  });
});

async function tournamentId(slug: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('tournaments')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  return row.id;
}
