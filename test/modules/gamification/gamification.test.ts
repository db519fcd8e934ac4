import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BADGES } from '../../../src/modules/gamification/badges.js';
import { BADGE_SCAN_JOB } from '../../../src/modules/gamification/service.js';
import { levelOf } from '../../../src/modules/gamification/xp.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';
import { insertTradeRow } from '../../support/trade-rows.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

interface BadgeBody {
  earned: { id: string; name: string; description: string; criteria: string; earnedAt: string }[];
  locked: { id: string; progress: { current: number; target: number } }[];
}

async function badgesOf(user: TestUser): Promise<BadgeBody> {
  const res = await t.app.inject({ url: '/api/me/badges', headers: bearer(user.token) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function notificationsOf(user: TestUser, type: string) {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) });
  return (res.json().data as { type: string; data: Record<string, unknown> }[]).filter(
    (n) => n.type === type,
  );
}

async function trade(user: TestUser, fields: { quantity?: number; priceCents?: number } = {}) {
  const event = await insertEvent(t.database);
  return insertTradeRow(t.database, { userId: user.id, optionId: event.options[0]!.id, ...fields });
}

const scan = () => t.app.jobs.runNow(BADGE_SCAN_JOB);

describe('GET /api/me/badges', () => {
  it('needs authentication', async () => {
    expect((await t.app.inject({ url: '/api/me/badges' })).statusCode).toBe(401);
  });

  it('shows a new user the whole catalogue locked, with zero progress', async () => {
    const user = await newUser(t.app);
    const body = await badgesOf(user);
    expect(body.earned).toEqual([]);
    expect(body.locked.length).toBe(BADGES.length);
    expect(body.locked.length).toBeGreaterThanOrEqual(10);
    for (const id of [
      'first-trade',
      'volume-bronze',
      'profit-bronze',
      'streak-3',
      'streak-7',
      'streak-30',
      'first-correct-prediction',
      'first-referral',
      'tournament-podium',
    ]) {
      const badge = body.locked.find((b) => b.id === id);
      expect(badge, id).toMatchObject({ progress: { current: 0 } });
      expect(badge?.progress.target).toBeGreaterThan(0);
    }
  });

  it('is awarded by the background scan once, with one badge.earned notification', async () => {
    const user = await newUser(t.app);
    await trade(user, { quantity: 10, priceCents: 50 });
    expect(await scan()).toBeGreaterThan(0);
    expect(await scan()).toBe(0);

    const body = await badgesOf(user);
    expect(body.earned.map((b) => b.id)).toEqual(['first-trade']);
    expect(body.earned[0]).toMatchObject({ name: 'First Trade', criteria: 'Complete 1 trade' });
    expect(Number.isNaN(Date.parse(body.earned[0]!.earnedAt))).toBe(false);
    expect(body.locked.find((b) => b.id === 'volume-bronze')?.progress).toEqual({
      current: 500,
      target: 10_000,
      unit: 'cents',
    });

    await trade(user);
    await scan();
    await badgesOf(user);
    const notices = await notificationsOf(user, 'badge.earned');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.data).toMatchObject({ badgeId: 'first-trade' });
  });

  it('awards what is due when the user looks, even before the scan runs', async () => {
    const user = await newUser(t.app);
    await trade(user, { quantity: 300, priceCents: 40 });
    const body = await badgesOf(user);
    expect(body.earned.map((b) => b.id).sort()).toEqual(['first-trade', 'volume-bronze']);
    expect(body.locked.find((b) => b.id === 'volume-silver')?.progress).toEqual({
      current: 12_000,
      target: 100_000,
      unit: 'cents',
    });
    await scan();
    expect(await notificationsOf(user, 'badge.earned')).toHaveLength(2);
  });

  it('awards streak badges by the longest streak', async () => {
    const user = await newUser(t.app);
    await t.database.db
      .updateTable('users')
      .set({ streak_longest: 7 })
      .where('id', '=', Number(user.id))
      .execute();
    await scan();
    const body = await badgesOf(user);
    expect(body.earned.map((b) => b.id).sort()).toEqual(['streak-3', 'streak-7']);
    expect(body.locked.find((b) => b.id === 'streak-30')?.progress).toEqual({
      current: 7,
      target: 30,
      unit: 'count',
    });
  });

  it('awards the first correct prediction and profit tiers from settled holdings', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database, { options: ['Yes', 'No'] });
    const [won, lost] = event.options;
    await insertTradeRow(t.database, { userId: user.id, optionId: won!.id, quantity: 40, priceCents: 60 });
    await insertTradeRow(t.database, { userId: user.id, optionId: lost!.id, quantity: 10, priceCents: 30 });
    await scan();
    await t.database.db
      .insertInto('positions')
      .values([
        { user_id: Number(user.id), option_id: won!.id, side: 'YES', realized_pnl_cents: 1_600 },
        { user_id: Number(user.id), option_id: lost!.id, side: 'YES', realized_pnl_cents: -300 },
      ])
      .execute();
    await t.database.db
      .insertInto('position_settlements')
      .values([
        {
          user_id: Number(user.id),
          option_id: won!.id,
          event_id: event.id,
          side: 'YES',
          outcome: 'YES',
          quantity: 40,
          payout_cents: 4_000,
          pnl_cents: 1_600,
          created_at: new Date(Date.now() - 60_000),
        },
        {
          user_id: Number(user.id),
          option_id: lost!.id,
          event_id: event.id,
          side: 'YES',
          outcome: 'NO',
          quantity: 10,
          payout_cents: 0,
          pnl_cents: -300,
          created_at: new Date(Date.now() - 60_000),
        },
      ])
      .execute();
    expect(await scan()).toBeGreaterThan(0);
    const notices = await notificationsOf(user, 'badge.earned');
    expect(notices.map((n) => n.data.badgeId).sort()).toEqual([
      'first-correct-prediction',
      'first-trade',
      'profit-bronze',
    ]);
    const body = await badgesOf(user);
    expect(body.locked.find((b) => b.id === 'oracle')?.progress).toEqual({
      current: 1,
      target: 10,
      unit: 'count',
    });
    expect(body.locked.find((b) => b.id === 'profit-silver')?.progress).toEqual({
      current: 1_300,
      target: 10_000,
      unit: 'cents',
    });
  });

  it('awards tournament placings from the final standings', async () => {
    const user = await newUser(t.app);
    const { rows } = await sql<{ id: number }>`
      INSERT INTO tournaments (slug, title, starts_at, ends_at, entry_closes_at, finished_at)
      VALUES (${`cup-${user.id}`}, 'Cup', now() - interval '2 days', now() - interval '1 day',
              now() - interval '1 day', now())
      RETURNING id`.execute(t.database.db);
    await sql`
      INSERT INTO tournament_results (tournament_id, user_id, rank, score_bps, pnl_cents, cost_cents, trades)
      VALUES (${rows[0]!.id}, ${Number(user.id)}, 1, 1200, 500, 1000, 3)`.execute(t.database.db);
    await scan();
    const body = await badgesOf(user);
    expect(body.earned.map((b) => b.id).sort()).toEqual(['tournament-podium', 'tournament-winner']);
  });

  it('never awards a badge twice when scans and reads race', async () => {
    const user = await newUser(t.app);
    await trade(user);
    await Promise.all([scan(), scan(), badgesOf(user), badgesOf(user)]);
    await scan();
    expect(await notificationsOf(user, 'badge.earned')).toHaveLength(1);
    const rows = await t.database.db
      .selectFrom('user_badges')
      .select('badge_id')
      .where('user_id', '=', Number(user.id))
      .execute();
    expect(rows.map((r) => r.badge_id)).toEqual(['first-trade']);
  });
});

describe('GET /api/me/xp', () => {
  it('needs authentication', async () => {
    expect((await t.app.inject({ url: '/api/me/xp' })).statusCode).toBe(401);
  });

  it('starts at level 1 with no XP', async () => {
    const user = await newUser(t.app);
    const res = await t.app.inject({ url: '/api/me/xp', headers: bearer(user.token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      xp: 0,
      level: 1,
      levelXp: 0,
      nextLevelXp: 100,
      progressBps: 0,
      breakdown: { trades: 0, volume: 0, streakDays: 0, correctPredictions: 0, badges: 0 },
    });
  });

  it('adds up trades, volume, streak days and badges by the documented table', async () => {
    const user = await newUser(t.app);
    for (let i = 0; i < 3; i++) await trade(user, { quantity: 10, priceCents: 50 });
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(login.json().streak.awardedCents).toBeGreaterThan(0);
    const res = await t.app.inject({ url: '/api/me/xp', headers: bearer(user.token) });
    // 3 trades × 10 + 1500 cents / 100 × 1 + 1 streak day × 5 + 1 badge (first-trade) × 50 = 100: level 2 exactly.
    expect(res.json()).toEqual({
      xp: 100,
      level: 2,
      levelXp: 100,
      nextLevelXp: 300,
      progressBps: 0,
      breakdown: { trades: 30, volume: 15, streakDays: 5, correctPredictions: 0, badges: 50 },
    });
    await trade(user, { quantity: 100, priceCents: 50 });
    const more = (await t.app.inject({ url: '/api/me/xp', headers: bearer(user.token) })).json();
    // +10 for the trade, +50 volume XP: 160, 30% of the way from 100 to 300.
    expect(more).toMatchObject({ xp: 160, level: 2, progressBps: 3000 });
  });

  it('follows the level curve 100·(L−1)·L/2', () => {
    expect(levelOf(0)).toMatchObject({ level: 1, levelXp: 0, nextLevelXp: 100, progressBps: 0 });
    expect(levelOf(99)).toMatchObject({ level: 1, progressBps: 9900 });
    expect(levelOf(100)).toMatchObject({ level: 2, levelXp: 100, nextLevelXp: 300 });
    expect(levelOf(299)).toMatchObject({ level: 2 });
    expect(levelOf(300)).toMatchObject({ level: 3, nextLevelXp: 600 });
    expect(levelOf(4_500)).toMatchObject({ level: 10, levelXp: 4_500, nextLevelXp: 5_500 });
    for (let xp = 0; xp < 20_000; xp += 37) {
      const view = levelOf(xp);
      expect(view.levelXp).toBeLessThanOrEqual(xp);
      expect(view.nextLevelXp).toBeGreaterThan(xp);
      expect(view.progressBps).toBeGreaterThanOrEqual(0);
      expect(view.progressBps).toBeLessThan(10_000);
    }
  });
});
