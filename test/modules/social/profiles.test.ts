import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, type Market, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp({ env: { DISPUTE_WINDOW_HOURS: '0' } });
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function liquidMarket(): Promise<Market> {
  return createMarket(t.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 100_000 }] });
}

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
    trades: trades.length,
    volume: trades.reduce((sum, tr) => sum + tr.quantity * tr.priceCents, 0),
    cost: trades.reduce((sum, tr) => sum + tr.quantity * tr.priceCents + tr.feeCents, 0),
    shares: trades.reduce((sum, tr) => sum + tr.quantity, 0),
  };
}

async function settle(m: Market, outcome: 'YES' | 'NO') {
  const post = (url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });
  expect(
    (await post(`/api/admin/events/${m.id}/resolve`, { outcomes: [{ optionId: m.options[0]!.id, outcome }] }))
      .statusCode,
  ).toBe(200);
  expect((await post(`/api/admin/events/${m.id}/settle`)).statusCode).toBe(200);
}

function profile(username: string) {
  return t.app.inject({ url: `/api/users/${username}` });
}

describe('public profile', () => {
  it('shows a newcomer with empty stats and nothing private', async () => {
    const user = await newUser(t.app);
    const res = await profile(user.username);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: user.id,
      username: user.username,
      displayName: null,
      bio: '',
      avatarUrl: null,
      level: 1,
      badges: [],
      followers: 0,
      following: 0,
      joinedAt: expect.any(String),
      stats: {
        trades: 0,
        volumeCents: 0,
        realizedPnlCents: 0,
        settledPositions: 0,
        winningPositions: 0,
        winRateBps: null,
        currentStreak: 0,
      },
    });
    expect(res.body).not.toContain(user.email);
    expect(res.body).not.toMatch(/cash|balance|email/i);
  });

  it('shows display name, bio and follower counts chosen in the account', async () => {
    const [user, fan] = [await newUser(t.app), await newUser(t.app)];
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: bearer(user.token),
      payload: { displayName: 'Queen of Spin', bio: 'Cricket nerd <b>bold</b>' },
    });
    expect(patch.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/follow/${user.id}`, headers: bearer(fan.token) }))
        .statusCode,
    ).toBeLessThan(300);
    const body = (await profile(user.username)).json();
    expect(body).toMatchObject({
      displayName: 'Queen of Spin',
      bio: 'Cricket nerd <b>bold</b>',
      followers: 1,
      following: 0,
    });
    expect((await profile(fan.username)).json()).toMatchObject({ followers: 0, following: 1 });

    const created = await t.app.inject({
      method: 'POST',
      url: '/api/posts',
      headers: bearer(user.token),
      payload: { eventSlug: (await liquidMarket()).slug, text: 'hello' },
    });
    expect(created.json().author).toEqual({
      id: user.id,
      username: user.username,
      displayName: 'Queen of Spin',
      avatarUrl: null,
    });
  });

  it('derives trading stats, win rate and winning streak from real trades', async () => {
    const user = await newUser(t.app);
    const [won1, won2, lost, open] = [
      await liquidMarket(),
      await liquidMarket(),
      await liquidMarket(),
      await liquidMarket(),
    ];
    const fills = [
      await buy(user, lost, 'YES', 10),
      await buy(user, won1, 'YES', 10),
      await buy(user, won2, 'NO', 10),
      await buy(user, open, 'YES', 5),
    ];
    await settle(lost, 'NO');
    await settle(won1, 'YES');
    await settle(won2, 'NO');

    const body = (await profile(user.username)).json();
    const positions = await t.database.db
      .selectFrom('positions')
      .select(sql<number>`coalesce(sum(realized_pnl_cents), 0)::bigint`.as('pnl'))
      .where('user_id', '=', Number(user.id))
      .executeTakeFirstOrThrow();
    expect(body.stats).toEqual({
      trades: fills.reduce((sum, f) => sum + f.trades, 0),
      volumeCents: fills.reduce((sum, f) => sum + f.volume, 0),
      realizedPnlCents: Number(positions.pnl),
      settledPositions: 3,
      winningPositions: 2,
      winRateBps: 6667,
      currentStreak: 2,
    });
    expect(body.level).toBeGreaterThanOrEqual(1);
    expect(body.badges.map((b: { id: string }) => b.id)).toContain('first-trade');
  });

  it('404s an unknown user and 400s an impossible username', async () => {
    expect((await profile('nobody_here')).statusCode).toBe(404);
    expect((await profile('no')).statusCode).toBe(400);
    expect((await profile('bad%20name')).statusCode).toBe(400);
  });
});

describe('trending users', () => {
  it('ranks recent traders by trades × 100 + profit and leaves out suspended users', async () => {
    const m = await liquidMarket();
    const [busy, quiet, banned] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    for (let i = 0; i < 3; i += 1) await buy(busy, m, 'YES', 5);
    await buy(quiet, m, 'NO', 5);
    await buy(banned, m, 'YES', 5);
    await t.database.db
      .updateTable('users')
      .set({ suspended_at: new Date() })
      .where('id', '=', Number(banned.id))
      .execute();

    const res = await t.app.inject({ url: '/api/trending-users?limit=200' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.windowDays).toBe(7);
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(7 * 86_400_000);
    const ids = body.data.map((u: { userId: string }) => u.userId);
    expect(ids).toContain(busy.id);
    expect(ids).toContain(quiet.id);
    expect(ids).not.toContain(banned.id);
    for (const entry of body.data) {
      expect(entry.score).toBe(entry.trades * 100 + entry.profitCents);
    }
    const scores = body.data.map((u: { score: number }) => u.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body.data.map((u: { rank: number }) => u.rank)).toEqual(
      body.data.map((_: unknown, i: number) => i + 1),
    );

    const first = await t.app.inject({ url: '/api/trending-users?limit=1' });
    expect(first.json().data).toHaveLength(1);
    const second = await t.app.inject({
      url: `/api/trending-users?limit=1&cursor=${first.json().nextCursor}`,
    });
    expect(second.json().data[0].rank).toBe(2);
    expect((await t.app.inject({ url: '/api/trending-users?limit=0' })).statusCode).toBe(400);
  });

  it('ignores trades older than the window', async () => {
    const m = await liquidMarket();
    const old = await newUser(t.app);
    await buy(old, m, 'YES', 5);
    await sql`UPDATE trades SET created_at = now() - interval '8 days' WHERE user_id = ${Number(old.id)}`.execute(
      t.database.db,
    );
    const body = (await t.app.inject({ url: '/api/trending-users?limit=200' })).json();
    expect(body.data.map((u: { userId: string }) => u.userId)).not.toContain(old.id);
  });
});
