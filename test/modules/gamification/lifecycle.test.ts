import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERRAL_REWARD_JOB } from '../../../src/modules/gamification/referral-service.js';
import { BADGE_SCAN_JOB } from '../../../src/modules/gamification/service.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket, marketTrade } from '../../support/exchange.js';
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

const adminPost = (url: string, payload?: unknown) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: bearer(admin.token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function earnedBadges(user: TestUser): Promise<string[]> {
  const res = await t.app.inject({ url: '/api/me/badges', headers: bearer(user.token) });
  return res.json().earned.map((b: { id: string }) => b.id);
}

describe('account features over real trading', () => {
  it('a referred trader trades, wins and exports; the referrer is paid; badges and XP follow', async () => {
    const referrer = await newUser(t.app);
    const { code } = (
      await t.app.inject({ url: '/api/me/referral', headers: bearer(referrer.token) })
    ).json();
    const trader = await newUser(t.app, { referralCode: code });
    const market = await createMarket(t.app, admin.token, {
      title: '=Will "India", at home, win?',
      options: [
        { label: '+India, by runs', liquidityCents: 50_000 },
        { label: 'Australia', liquidityCents: 50_000 },
      ],
    });
    const [india, australia] = [market.options[0]!, market.options[1]!];

    const bought = await marketTrade(t.app, trader.token, {
      optionId: india.id,
      side: 'YES',
      action: 'BUY',
      quantity: 30,
      price: 60,
    });
    expect(bought.statusCode).toBe(201);
    expect(
      (
        await marketTrade(t.app, trader.token, {
          optionId: australia.id,
          side: 'NO',
          action: 'BUY',
          quantity: 5,
          price: 60,
        })
      ).statusCode,
    ).toBe(201);

    // The referral reward and the badges come from background jobs, not from the order path.
    const awardedInOrderPath = await t.database.db
      .selectFrom('user_badges')
      .select('badge_id')
      .where('user_id', 'in', [Number(referrer.id), Number(trader.id)])
      .execute();
    expect(awardedInOrderPath).toEqual([]);
    const cashBefore = (await balanceOf(t.app, referrer.token)).cashCents;
    expect(await t.app.jobs.runNow(REFERRAL_REWARD_JOB)).toBe(1);
    expect((await balanceOf(t.app, referrer.token)).cashCents).toBe(cashBefore + 500);
    expect(await t.app.jobs.runNow(BADGE_SCAN_JOB)).toBeGreaterThan(0);
    expect(await earnedBadges(referrer)).toEqual(['first-referral']);
    expect(await earnedBadges(trader)).toEqual(['first-trade']);

    // The market settles with India winning: a correct prediction and a realized profit.
    expect((await adminPost(`/api/admin/events/${market.id}/close`)).statusCode).toBe(200);
    const resolved = await adminPost(`/api/admin/events/${market.id}/resolve`, {
      outcomes: [
        { optionId: india.id, outcome: 'YES' },
        { optionId: australia.id, outcome: 'NO' },
      ],
    });
    expect(resolved.statusCode).toBe(200);
    const settled = await adminPost(`/api/admin/events/${market.id}/settle`);
    expect(settled.statusCode).toBe(200);
    expect(await t.app.jobs.runNow(BADGE_SCAN_JOB)).toBeGreaterThan(0);
    expect((await earnedBadges(trader)).sort()).toEqual([
      'first-correct-prediction',
      'first-trade',
      'profit-bronze',
    ]);

    const xp = (await t.app.inject({ url: '/api/me/xp', headers: bearer(trader.token) })).json();
    expect(xp.breakdown).toMatchObject({ correctPredictions: 50, badges: 150 });
    expect(xp.breakdown.trades).toBeGreaterThanOrEqual(20);

    const csv = await t.app.inject({ url: '/api/me/trades/export', headers: bearer(trader.token) });
    const lines: Record<string, string>[] = parse(csv.body, { columns: true });
    // The export has the trades, then what settled: one settlement line per position settled.
    const records = lines.filter((r) => r.record === 'trade');
    expect(lines.filter((r) => r.record === 'settlement').length).toBeGreaterThanOrEqual(1);
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(new Set(records.map((r) => r.eventTitle))).toEqual(new Set(['\'=Will "India", at home, win?']));
    expect(new Set(records.map((r) => r.option))).toEqual(new Set(["'+India, by runs", 'Australia']));
    expect(records.every((r) => r.orderKind === 'market' && r.liquidity === 'taker')).toBe(true);
    const india30 = records.filter((r) => r.option === "'+India, by runs");
    expect(india30.reduce((sum, r) => sum + Number(r.quantity), 0)).toBe(30);
    for (const r of records) expect(Number(r.notionalCents)).toBe(Number(r.quantity) * Number(r.priceCents));

    const notices = (
      await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(trader.token) })
    ).json();
    const badgeNotices = notices.data.filter((n: { type: string }) => n.type === 'badge.earned');
    expect(badgeNotices).toHaveLength(3);
    await expectInvariants(t.database);
  });
});
