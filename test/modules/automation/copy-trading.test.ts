import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket, limitOrder, marketTrade, positionsOf } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function setFlag(enabled: boolean) {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/flags/copyTrading',
    headers: bearer(admin.token),
    payload: { enabled },
  });
  expect(res.statusCode).toBe(200);
}

function copy(user: TestUser, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/copy-trader', headers: bearer(user.token), payload });
}

function mirrorsOf(user: TestUser) {
  return t.app
    .inject({ url: '/api/copy-trader/mirrors', headers: bearer(user.token) })
    .then((r) => r.json().data);
}

async function feedOf(user: TestUser, type: string) {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) });
  return res.json().data.filter((n: { type: string }) => n.type === type);
}

function runMirrors() {
  return t.app.jobs.runNow('copy-trading.mirror');
}

const resting: { token: string; id: string }[] = [];

/** Resting YES asks at `price` from a fresh market maker (BUY NO at 100 - price). */
async function asks(optionId: string, price: number, quantity: number) {
  const maker = await newUser(t.app);
  const res = await limitOrder(t.app, maker.token, {
    optionId,
    side: 'NO',
    action: 'BUY',
    quantity,
    price: 100 - price,
  });
  expect(res.json().status).toBe('open');
  resting.push({ token: maker.token, id: res.json().id });
}

/** Resting YES bids at `price` from a fresh market maker. */
async function bids(optionId: string, price: number, quantity: number) {
  const maker = await newUser(t.app);
  const res = await limitOrder(t.app, maker.token, { optionId, side: 'YES', action: 'BUY', quantity, price });
  expect(res.json().status).toBe('open');
  resting.push({ token: maker.token, id: res.json().id });
}

/** Cancels what the market makers left on the book, so each scenario starts from an empty book. */
async function clearBook() {
  for (const order of resting.splice(0)) {
    await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${order.id}`,
      headers: bearer(order.token),
    });
  }
}

describe('behind the copyTrading flag', () => {
  it('answers 503 FEATURE_DISABLED while the flag is off', async () => {
    await setFlag(false);
    const user = await newUser(t.app);
    for (const res of [
      await t.app.inject({ url: '/api/copy-trader', headers: bearer(user.token) }),
      await copy(user, { leaderId: admin.id, sizing: { mode: 'fixed', quantity: 1 } }),
      await t.app.inject({
        method: 'DELETE',
        url: `/api/copy-trader/${admin.id}`,
        headers: bearer(user.token),
      }),
      await t.app.inject({ url: '/api/copy-trader/mirrors', headers: bearer(user.token) }),
    ]) {
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('FEATURE_DISABLED');
    }
  });
});

describe('following a trader', () => {
  beforeAll(() => setFlag(true));

  it('creates (201), updates (200) keeping absent fields, lists and deletes', async () => {
    const [leader, follower] = [await newUser(t.app), await newUser(t.app)];
    const created = await copy(follower, {
      leaderUsername: leader.username,
      sizing: { mode: 'fraction', fraction: 0.25 },
      maxQuantityPerTrade: 50,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      leaderId: leader.id,
      leaderUsername: leader.username,
      sizing: { mode: 'fraction', fraction: 0.25, fractionBps: 2500 },
      maxQuantityPerTrade: 50,
      dailyLimitCents: 10_000,
      usedTodayCents: 0,
      enabled: true,
    });
    const updated = await copy(follower, { leaderId: leader.id, enabled: false, dailyLimitCents: 700 });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      sizing: { mode: 'fraction', fractionBps: 2500 },
      maxQuantityPerTrade: 50,
      dailyLimitCents: 700,
      enabled: false,
    });
    const list = (await t.app.inject({ url: '/api/copy-trader', headers: bearer(follower.token) })).json();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ leaderId: leader.id, enabled: false });

    const del = () =>
      t.app.inject({
        method: 'DELETE',
        url: `/api/copy-trader/${leader.id}`,
        headers: bearer(follower.token),
      });
    expect((await del()).statusCode).toBe(204);
    expect((await del()).statusCode).toBe(404);
    expect(
      (await t.app.inject({ url: '/api/copy-trader', headers: bearer(follower.token) })).json().data,
    ).toEqual([]);
  });

  it.each([
    ['yourself', (me: TestUser) => ({ leaderId: me.id, sizing: { mode: 'fixed', quantity: 1 } }), 400],
    ['no sizing on a first follow', () => ({ leaderId: admin.id }), 400],
    [
      'both id and username',
      () => ({ leaderId: admin.id, leaderUsername: admin.username, sizing: { mode: 'fixed', quantity: 1 } }),
      400,
    ],
    ['neither id nor username', () => ({ sizing: { mode: 'fixed', quantity: 1 } }), 400],
    ['a fraction above 1', () => ({ leaderId: admin.id, sizing: { mode: 'fraction', fraction: 1.5 } }), 400],
    ['a fraction of 0', () => ({ leaderId: admin.id, sizing: { mode: 'fraction', fraction: 0 } }), 400],
    [
      'fraction and fractionBps together',
      () => ({ leaderId: admin.id, sizing: { mode: 'fraction', fraction: 0.5, fractionBps: 5000 } }),
      400,
    ],
    ['a zero fixed quantity', () => ({ leaderId: admin.id, sizing: { mode: 'fixed', quantity: 0 } }), 400],
    ['an unknown trader', () => ({ leaderId: '99999999', sizing: { mode: 'fixed', quantity: 1 } }), 404],
    [
      'an unknown username',
      () => ({ leaderUsername: 'nobody-here', sizing: { mode: 'fixed', quantity: 1 } }),
      404,
    ],
  ])('refuses %s', async (_what, body, status) => {
    const me = await newUser(t.app);
    const res = await copy(me, body(me));
    expect(res.statusCode).toBe(status);
  });
});

describe('mirroring a leader’s market trades', () => {
  let leader: TestUser;
  let capped: TestUser;
  let daily: TestUser;
  let broke: TestUser;
  let secondHand: TestUser;
  let optionId: string;

  beforeAll(async () => {
    await setFlag(true);
    [leader, capped, daily, broke, secondHand] = [
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
    ];
    optionId = (
      await createMarket(t.app, admin.token, { title: 'India vs Australia', options: [{ label: 'India' }] })
    ).options[0]!.id;
    // Fixed 20 capped at 15 a trade; half the leader's size capped by a 500¢ daily limit; a follower with no cash.
    expect(
      (
        await copy(capped, {
          leaderId: leader.id,
          sizing: { mode: 'fixed', quantity: 20 },
          maxQuantityPerTrade: 15,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await copy(daily, {
          leaderId: leader.id,
          sizing: { mode: 'fraction', fractionBps: 5000 },
          dailyLimitCents: 500,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await copy(broke, { leaderId: leader.id, sizing: { mode: 'fixed', quantity: 5 } })).statusCode,
    ).toBe(201);
    // Someone copying a follower: copies are never copied again.
    expect(
      (await copy(secondHand, { leaderId: capped.id, sizing: { mode: 'fixed', quantity: 5 } })).statusCode,
    ).toBe(201);
    const elsewhere = (await createMarket(t.app, admin.token)).options[0]!.id;
    const hold = await limitOrder(t.app, broke.token, {
      optionId: elsewhere,
      side: 'YES',
      action: 'BUY',
      quantity: 1010,
      price: 99,
    });
    expect(hold.json()).toMatchObject({ status: 'open', reservedCents: 99_990 });
  });

  it('a leader’s buy produces capped mirror buys at his price or better; a follower without cash is skipped and told', async () => {
    await asks(optionId, 50, 40);
    const lead = await marketTrade(t.app, leader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 40,
      price: 99,
    });
    expect(lead.json()).toMatchObject({ status: 'filled', averagePriceCents: 50 });
    const leaderCash = (await balanceOf(t.app, leader.token)).cashCents;
    // Fresh liquidity at the leader's price for the copies, and a dearer level they must not touch.
    await asks(optionId, 50, 30);
    await asks(optionId, 51, 100);

    expect(await runMirrors()).toBe(3);
    const cappedPosition = (await positionsOf(t.app, capped.token)).data[0];
    expect(cappedPosition).toMatchObject({ side: 'YES', quantity: 15, costCents: 750 });
    const dailyPosition = (await positionsOf(t.app, daily.token)).data[0];
    expect(dailyPosition).toMatchObject({ side: 'YES', quantity: 10, costCents: 500 });
    expect((await positionsOf(t.app, broke.token)).data).toEqual([]);
    expect((await balanceOf(t.app, leader.token)).cashCents).toBe(leaderCash);

    const [cappedMirror] = await mirrorsOf(capped);
    expect(cappedMirror).toMatchObject({
      leaderId: leader.id,
      leaderOrderId: lead.json().id,
      status: 'placed',
      quantity: 15,
      filledQuantity: 15,
      worstPriceCents: 50,
      notionalCents: 750,
      eventSlug: expect.any(String),
    });
    const [dailyMirror] = await mirrorsOf(daily);
    expect(dailyMirror).toMatchObject({ status: 'placed', quantity: 10, notionalCents: 500 });
    const [brokeMirror] = await mirrorsOf(broke);
    expect(brokeMirror).toMatchObject({ status: 'skipped', reason: 'not enough cash', orderId: null });
    const [skipped] = await feedOf(broke, 'copy.skipped');
    expect(skipped.body).toContain(`@${leader.username}`);
    expect(skipped.body).toContain('not enough cash');
    const [fill] = await feedOf(capped, 'order.filled');
    expect(fill).toMatchObject({ title: 'Copy trade filled' });

    // The copy's own trade is not copied to whoever copies the follower.
    expect(await mirrorsOf(secondHand)).toEqual([]);
    const list = (await t.app.inject({ url: '/api/copy-trader', headers: bearer(daily.token) })).json();
    expect(list.data[0]).toMatchObject({ usedTodayCents: 500 });
    expect(await runMirrors()).toBe(0);
    await expectInvariants(t.database);
  });

  it('the daily limit, once spent, skips the next copy with a notification', async () => {
    await clearBook();
    await asks(optionId, 50, 10);
    const lead = await marketTrade(t.app, leader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 50,
    });
    expect(lead.json().status).toBe('filled');
    await asks(optionId, 50, 20);
    await runMirrors();
    const [latest] = await mirrorsOf(daily);
    expect(latest).toMatchObject({ status: 'skipped', leaderOrderId: lead.json().id });
    expect(latest.reason).toContain('daily limit');
    expect((await feedOf(daily, 'copy.skipped'))[0].body).toContain('daily limit of 500¢');
    expect((await mirrorsOf(capped))[0]).toMatchObject({ status: 'placed', quantity: 15 });
  });

  it('a leader’s sell is copied by followers who hold shares, within what they hold', async () => {
    await clearBook();
    await bids(optionId, 60, 20);
    const lead = await marketTrade(t.app, leader.token, {
      optionId,
      side: 'YES',
      action: 'SELL',
      quantity: 20,
      price: 1,
    });
    expect(lead.json()).toMatchObject({ status: 'filled', averagePriceCents: 60 });
    await bids(optionId, 60, 100);
    await runMirrors();
    expect((await mirrorsOf(capped))[0]).toMatchObject({
      action: 'SELL',
      status: 'placed',
      quantity: 15,
      worstPriceCents: 60,
    });
    // Half of 20 is 10: the daily follower sells the 10 it holds (the limit is for buying).
    expect((await mirrorsOf(daily))[0]).toMatchObject({ action: 'SELL', status: 'placed', quantity: 10 });
    expect((await mirrorsOf(broke))[0]).toMatchObject({
      action: 'SELL',
      status: 'skipped',
      reason: 'you hold no YES shares to sell',
    });
    expect((await positionsOf(t.app, daily.token)).data).toEqual([]);
    await expectInvariants(t.database);
  });

  it('limit orders are not copied', async () => {
    await clearBook();
    await asks(optionId, 55, 5);
    const before = (await mirrorsOf(capped)).length;
    const res = await limitOrder(t.app, leader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      price: 55,
    });
    expect(res.json().status).toBe('filled');
    await runMirrors();
    expect(await mirrorsOf(capped)).toHaveLength(before);
  });

  it('a copy resumed after a stopped worker is never placed twice', async () => {
    await clearBook();
    await asks(optionId, 52, 5);
    const lead = await marketTrade(t.app, leader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      price: 52,
    });
    await asks(optionId, 52, 50);
    await runMirrors();
    const [placed] = await mirrorsOf(capped);
    expect(placed).toMatchObject({ leaderOrderId: lead.json().id, status: 'placed', quantity: 15 });
    // As if the worker had stopped between placing the order and recording it.
    await t.database.db
      .updateTable('copy_mirrors')
      .set({ status: 'processing', claimed_at: new Date(Date.now() - 10 * 60_000), order_id: null })
      .where('id', '=', Number(placed.id))
      .execute();
    expect(await runMirrors()).toBe(1);
    const [again] = await mirrorsOf(capped);
    expect(again).toMatchObject({ status: 'placed', orderId: placed.orderId, filledQuantity: 15 });
    const orders = await t.database.db
      .selectFrom('orders')
      .select('id')
      .where('user_id', '=', Number(capped.id))
      .where('client_order_id', '=', `copy-${lead.json().id}`)
      .execute();
    expect(orders).toHaveLength(1);
    await expectInvariants(t.database);
  });

  it('skips copies while the flag is off, and copies too late to be fair', async () => {
    await clearBook();
    await asks(optionId, 53, 10);
    await setFlag(false);
    await marketTrade(t.app, leader.token, { optionId, side: 'YES', action: 'BUY', quantity: 5, price: 53 });
    await runMirrors();
    await setFlag(true);
    expect((await mirrorsOf(capped))[0]).toMatchObject({
      status: 'skipped',
      reason: 'copy trading is switched off',
    });

    await marketTrade(t.app, leader.token, { optionId, side: 'YES', action: 'BUY', quantity: 5, price: 53 });
    await sql`UPDATE copy_mirrors SET created_at = now() - interval '20 minutes' WHERE status = 'pending'`.execute(
      t.database.db,
    );
    await runMirrors();
    const [late] = await mirrorsOf(capped);
    expect(late).toMatchObject({ status: 'skipped' });
    expect(late.reason).toContain('minutes passed');
  });
});
