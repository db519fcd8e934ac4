import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERRAL_REWARD_JOB } from '../../../src/modules/gamification/referral-service.js';
import { BADGE_SCAN_JOB } from '../../../src/modules/gamification/service.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser, uniqueEmail } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';
import { insertTradeRow } from '../../support/trade-rows.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_URL: 'https://exchange.example', REFERRAL_REWARD_CENTS: '750' } });
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function referralOf(user: TestUser) {
  const res = await t.app.inject({ url: '/api/me/referral', headers: bearer(user.token) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function cashOf(user: TestUser): Promise<number> {
  return (await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).json().balance.cashCents;
}

async function referredBy(referrer: TestUser): Promise<TestUser> {
  const { code } = await referralOf(referrer);
  return newUser(t.app, { referralCode: code });
}

async function firstTrade(user: TestUser) {
  const event = await insertEvent(t.database);
  await insertTradeRow(t.database, { userId: user.id, optionId: event.options[0]!.id });
}

const rewardJob = () => t.app.jobs.runNow(REFERRAL_REWARD_JOB);

describe('GET /api/me/referral', () => {
  it('needs authentication', async () => {
    expect((await t.app.inject({ url: '/api/me/referral' })).statusCode).toBe(401);
  });

  it('gives the code, the share link and zero counts to a new user', async () => {
    const user = await newUser(t.app);
    const body = await referralOf(user);
    expect(body.code).toMatch(/^[A-Z2-9]{8}$/);
    expect(body).toEqual({
      code: body.code,
      link: `https://exchange.example/register?ref=${body.code}`,
      referredCount: 0,
      rewardedCount: 0,
      totalEarnedCents: 0,
      rewardCents: 750,
    });
  });

  it('rejects an unknown referral code at registration with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: 'a long enough password', referralCode: 'ZZZZZZZZ' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ field: 'body.referralCode', message: 'is unknown' }]);
  });
});

describe('referral reward', () => {
  it('pays the referrer once, through the ledger, when the referred user makes a first trade', async () => {
    const referrer = await newUser(t.app);
    const friend = await referredBy(referrer);
    expect(await referralOf(referrer)).toMatchObject({
      referredCount: 1,
      rewardedCount: 0,
      totalEarnedCents: 0,
    });

    const before = await cashOf(referrer);
    expect(await rewardJob()).toBe(0);
    expect(await cashOf(referrer)).toBe(before);

    await firstTrade(friend);
    await firstTrade(friend);
    expect(await rewardJob()).toBe(1);
    expect(await rewardJob()).toBe(0);
    expect(await cashOf(referrer)).toBe(before + 750);
    expect(await referralOf(referrer)).toMatchObject({
      referredCount: 1,
      rewardedCount: 1,
      totalEarnedCents: 750,
    });

    const entries = await t.database.db
      .selectFrom('journal_entries')
      .select(['kind', 'user_id', 'ref_type'])
      .where('kind', '=', 'referral_reward')
      .where('user_id', '=', Number(referrer.id))
      .execute();
    expect(entries).toEqual([
      { kind: 'referral_reward', user_id: Number(referrer.id), ref_type: 'referral_reward' },
    ]);

    const feed = await t.app.inject({ url: '/api/me/notifications', headers: bearer(referrer.token) });
    const notices = feed.json().data.filter((n: { type: string }) => n.type === 'referral.rewarded');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ data: { referredUserId: friend.id, amountCents: 750 } });
    await expectInvariants(t.database);
  });

  it('pays nothing for referred users who have not traded, and pays each one that has', async () => {
    const referrer = await newUser(t.app);
    const friends = [await referredBy(referrer), await referredBy(referrer), await referredBy(referrer)];
    await firstTrade(friends[0]!);
    await firstTrade(friends[2]!);
    expect(await rewardJob()).toBe(2);
    expect(await referralOf(referrer)).toMatchObject({
      referredCount: 3,
      rewardedCount: 2,
      totalEarnedCents: 1_500,
    });
  });

  it('never pays twice when job runs race', async () => {
    const referrer = await newUser(t.app);
    const friend = await referredBy(referrer);
    await firstTrade(friend);
    const before = await cashOf(referrer);
    const paid = await Promise.all([rewardJob(), rewardJob(), rewardJob()]);
    expect(paid.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await cashOf(referrer)).toBe(before + 750);
    await expectInvariants(t.database);
  });

  it('counts a trading referral towards the referral badges', async () => {
    const referrer = await newUser(t.app);
    const friend = await referredBy(referrer);
    await firstTrade(friend);
    await t.app.jobs.runNow(BADGE_SCAN_JOB);
    const badges = (await t.app.inject({ url: '/api/me/badges', headers: bearer(referrer.token) })).json();
    expect(badges.earned.map((b: { id: string }) => b.id)).toEqual(['first-referral']);
    expect(badges.locked.find((b: { id: string }) => b.id === 'referral-5').progress).toEqual({
      current: 1,
      target: 5,
      unit: 'count',
    });
  });
});
