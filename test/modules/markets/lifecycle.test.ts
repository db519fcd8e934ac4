import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { balanceOf, createMarket, limitOrder, marketTrade, positionsOf } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { expectTraderTotalsKept } from '../../support/totals.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp({ env: { DISPUTE_WINDOW_HOURS: '24' } });
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

const post = (url: string, token: string, payload?: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: bearer(token),
    ...(payload === undefined ? {} : { payload }),
  });

async function escrowOf(optionId: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('ledger_accounts')
    .select('balance')
    .where('kind', '=', 'escrow')
    .where('option_id', '=', Number(optionId))
    .executeTakeFirstOrThrow();
  return row.balance ?? 0;
}

/** Moves the resolution back in time, as if the dispute window had passed. */
async function passDisputeWindow(eventId: string) {
  await t.database.db
    .updateTable('events')
    .set({ resolved_at: new Date(Date.now() - 25 * 3_600_000) })
    .where('id', '=', Number(eventId))
    .execute();
}

describe('the life of a market', () => {
  it('trades, closes, resolves, takes a dispute, settles: winners get 100 a share, escrow ends at zero', async () => {
    const market = await createMarket(t.app, admin.token, {
      title: 'India vs Australia, 1st ODI',
      options: [{ label: 'India' }, { label: 'Australia', liquidityCents: 50_000 }],
    });
    const india = market.options[0]!;
    const australia = market.options[1]!;
    const [yesBuyer, noBuyer, loser, bystander] = await Promise.all([
      newUser(t.app),
      newUser(t.app),
      newUser(t.app),
      newUser(t.app),
    ]);

    // A user-to-user mint, a trade against the house, and a resting order that the close cancels.
    expect(
      (
        await limitOrder(t.app, noBuyer.token, {
          optionId: india.id,
          side: 'NO',
          action: 'BUY',
          quantity: 20,
          price: 45,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await marketTrade(t.app, yesBuyer.token, {
          optionId: india.id,
          side: 'YES',
          action: 'BUY',
          quantity: 20,
          price: 55,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await marketTrade(t.app, loser.token, {
          optionId: australia.id,
          side: 'YES',
          action: 'BUY',
          quantity: 30,
          price: 70,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await limitOrder(t.app, bystander.token, {
          optionId: india.id,
          side: 'YES',
          action: 'BUY',
          quantity: 10,
          price: 5,
        })
      ).statusCode,
    ).toBe(201);
    expect(await balanceOf(t.app, bystander.token)).toEqual({ cashCents: 99_950, reservedCents: 50 });
    await expectInvariants(t.database);

    const closed = await post(`/api/admin/events/${market.id}/close`, admin.token);
    expect(closed.statusCode).toBe(200);
    expect(closed.json().status).toBe('closed');
    expect(await balanceOf(t.app, bystander.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
    const late = await marketTrade(t.app, yesBuyer.token, {
      optionId: india.id,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 99,
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('MARKET_CLOSED');

    // Disputes only open after resolution.
    const early = await post(`/api/events/${market.id}/dispute`, loser.token, { reason: 'too early' });
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('EVENT_NOT_RESOLVED');

    // The operator resolves it wrongly; the loser disputes; the dispute is upheld; the outcome is corrected.
    const wrong = await post(`/api/admin/events/${market.id}/resolve`, admin.token, {
      outcomes: [
        { optionId: india.id, outcome: 'NO' },
        { optionId: australia.id, outcome: 'YES' },
      ],
    });
    expect(wrong.statusCode).toBe(200);
    expect(wrong.json().status).toBe('resolved');
    // Once resolved, a holding is worth what it pays, not its last traded price.
    const held = async (token: string) =>
      (await t.app.inject({ url: '/api/positions', headers: { authorization: `Bearer ${token}` } })).json()
        .data as { optionId: string; markPriceCents: number; valueCents: number }[];
    expect(await held(loser.token)).toEqual([
      expect.objectContaining({
        optionId: australia.id,
        markPriceCents: 100,
        valueCents: 3000,
        resolution: 'YES',
      }),
    ]);
    expect(await held(yesBuyer.token)).toEqual([
      expect.objectContaining({ optionId: india.id, markPriceCents: 0, valueCents: 0 }),
    ]);

    const outsider = await newUser(t.app);
    expect((await post(`/api/events/${market.id}/dispute`, outsider.token, { reason: 'x' })).statusCode).toBe(
      403,
    );
    const badUrl = await post(`/api/events/${market.id}/dispute`, yesBuyer.token, {
      reason: 'x',
      evidenceUrl: 'javascript:alert(1)',
    });
    expect(badUrl.statusCode).toBe(400);
    const dispute = await post(`/api/events/${market.id}/dispute`, yesBuyer.token, {
      reason: 'India won by 4 wickets',
      evidenceUrl: 'https://www.espncricinfo.com/scorecard',
    });
    expect(dispute.statusCode).toBe(201);
    expect(
      (await post(`/api/events/${market.id}/dispute`, yesBuyer.token, { reason: 'again' })).json().code,
    ).toBe('ALREADY_DISPUTED');

    // Settlement waits for the pending dispute, both from the job and from the operator.
    await passDisputeWindow(market.id);
    expect(await t.app.jobs.runNow('settle-events')).toBe(0);
    const blocked = await post(`/api/admin/events/${market.id}/settle`, admin.token);
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().code).toBe('DISPUTE_PENDING');

    const decided = await post(`/api/admin/disputes/${dispute.json().id}/decide`, admin.token, {
      decision: 'upheld',
      note: 'Scorecard confirms India won',
      outcomes: [
        { optionId: india.id, outcome: 'YES' },
        { optionId: australia.id, outcome: 'NO' },
      ],
    });
    expect(decided.statusCode).toBe(200);
    expect(decided.json().status).toBe('upheld');

    // The corrected resolution starts a new window; once it passes, the job settles.
    expect(await t.app.jobs.runNow('settle-events')).toBe(0);
    await passDisputeWindow(market.id);
    expect(await t.app.jobs.runNow('settle-events')).toBe(1);
    const detail = (await t.app.inject({ url: `/api/events/${market.slug}` })).json();
    expect(detail.status).toBe('settled');
    await expectTraderTotalsKept(t.database);

    const yesCash = (await balanceOf(t.app, yesBuyer.token)).cashCents;
    expect(yesCash).toBe(100_000 - 20 * 55 + 20 * 100);
    expect((await balanceOf(t.app, noBuyer.token)).cashCents).toBe(100_000 - 20 * 45);
    const loserTrades = (
      await t.app.inject({ url: '/api/trades?status=closed', headers: bearer(loser.token) })
    ).json();
    const loserPaid = loserTrades.data.reduce(
      (s: number, tr: { quantity: number; priceCents: number }) => s + tr.quantity * tr.priceCents,
      0,
    );
    expect((await balanceOf(t.app, loser.token)).cashCents).toBe(100_000 - loserPaid);
    expect(await escrowOf(india.id)).toBe(0);
    expect(await escrowOf(australia.id)).toBe(0);
    expect((await positionsOf(t.app, yesBuyer.token)).data).toEqual([]);
    expect((await positionsOf(t.app, yesBuyer.token)).summary.realizedPnlCents).toBe(20 * 45);

    const feed = (
      await t.app.inject({ url: '/api/me/notifications', headers: bearer(yesBuyer.token) })
    ).json();
    expect(feed.data.map((n: { type: string }) => n.type)).toEqual(
      expect.arrayContaining(['market.resolved', 'market.settled', 'dispute.decided']),
    );

    const board = (await t.app.inject({ url: '/api/leaderboard' })).json();
    expect(board.predictions.map((r: { userId: string }) => r.userId)).toContain(yesBuyer.id);
    expect(board.profit[0].value).toBeGreaterThan(0);

    const lateDispute = await post(`/api/events/${market.id}/dispute`, noBuyer.token, { reason: 'too late' });
    expect(lateDispute.json().code).toBe('DISPUTE_WINDOW_CLOSED');
    await expectInvariants(t.database);
  });

  it('pays 50 a share of either side when an option is voided', async () => {
    const market = await createMarket(t.app, admin.token, { options: [{ label: 'Rain stops play' }] });
    const option = market.options[0]!;
    const [yes, no] = [await newUser(t.app), await newUser(t.app)];
    await limitOrder(t.app, no.token, {
      optionId: option.id,
      side: 'NO',
      action: 'BUY',
      quantity: 10,
      price: 30,
    });
    await marketTrade(t.app, yes.token, {
      optionId: option.id,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 70,
    });
    const resolved = await post(`/api/admin/events/${market.id}/resolve`, admin.token, {
      outcomes: [{ optionId: option.id, outcome: 'VOID' }],
    });
    expect(resolved.statusCode).toBe(200);
    const settled = await post(`/api/admin/events/${market.id}/settle`, admin.token);
    expect(settled.statusCode).toBe(200);
    expect(settled.json().status).toBe('settled');
    expect((await balanceOf(t.app, no.token)).cashCents).toBe(100_000 - 300 + 500);
    const yesTrades = (await t.app.inject({ url: '/api/trades', headers: bearer(yes.token) })).json();
    const paid = yesTrades.data.reduce(
      (s: number, tr: { quantity: number; priceCents: number }) => s + tr.quantity * tr.priceCents,
      0,
    );
    expect(paid).toBe(700);
    expect((await balanceOf(t.app, yes.token)).cashCents).toBe(100_000 - paid + 10 * 50);
    expect(await escrowOf(option.id)).toBe(0);
    await expectInvariants(t.database);
  });

  it('refuses transitions out of order and resolutions that miss an option', async () => {
    const market = await createMarket(t.app, admin.token, {
      open: false,
      options: [{ label: 'A' }, { label: 'B' }],
    });
    expect((await post(`/api/admin/events/${market.id}/close`, admin.token)).json().code).toBe(
      'INVALID_TRANSITION',
    );
    expect((await post(`/api/admin/events/${market.id}/settle`, admin.token)).json().code).toBe(
      'INVALID_TRANSITION',
    );
    expect((await post(`/api/admin/events/${market.id}/open`, admin.token)).statusCode).toBe(200);
    const partial = await post(`/api/admin/events/${market.id}/resolve`, admin.token, {
      outcomes: [{ optionId: market.options[0]!.id, outcome: 'YES' }],
    });
    expect(partial.statusCode).toBe(400);
    const user = await newUser(t.app);
    expect((await post(`/api/admin/events/${market.id}/open`, user.token)).statusCode).toBe(403);
  });

  it('closes markets at their closing time by a job', async () => {
    const market = await createMarket(t.app, admin.token);
    await t.database.db
      .updateTable('events')
      .set({ closes_at: new Date(Date.now() - 1000) })
      .where('id', '=', Number(market.id))
      .execute();
    expect(await t.app.jobs.runNow('close-events')).toBe(1);
    expect((await t.app.inject({ url: `/api/events/${market.slug}` })).json().status).toBe('closed');
  });
});

describe('public market reads', () => {
  it('lists with category, featured and full-text filters, paginates, and shows price history', async () => {
    const cricket = await createMarket(t.app, admin.token, {
      title: 'Will Kohli score a century at Lord’s?',
      category: 'cricket',
      featured: true,
      options: [{ label: 'Yes', liquidityCents: 10_000 }],
    });
    await createMarket(t.app, admin.token, {
      title: 'Will the RBI cut the repo rate?',
      category: 'economics',
      description: 'Monetary policy decision',
    });
    await createMarket(t.app, admin.token, { title: 'Draft market', open: false });

    const featured = (await t.app.inject({ url: '/api/events?featured=1' })).json();
    expect(featured.data.map((e: { slug: string }) => e.slug)).toEqual([cricket.slug]);
    const economics = (await t.app.inject({ url: '/api/events?category=economics' })).json();
    expect(economics.data).toHaveLength(1);
    const search = (await t.app.inject({ url: '/api/events?q=monetary%20policy' })).json();
    expect(search.data.map((e: { title: string }) => e.title)).toEqual(['Will the RBI cut the repo rate?']);
    const all = (await t.app.inject({ url: '/api/events?limit=2' })).json();
    expect(all.data).toHaveLength(2);
    expect(all.data.every((e: { status: string }) => e.status !== 'draft')).toBe(true);
    const next = (await t.app.inject({ url: `/api/events?limit=2&cursor=${all.nextCursor}` })).json();
    expect(next.data[0].id).not.toBe(all.data[1].id);
    expect(Number(next.data[0].id)).toBeLessThan(Number(all.data[1].id));
    expect((await t.app.inject({ url: '/api/events?cursor=garbage' })).statusCode).toBe(400);

    const user = await newUser(t.app);
    const beforeTrade = Date.now();
    await marketTrade(t.app, user.token, {
      optionId: cricket.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 30,
      price: 80,
    });
    const detail = (await t.app.inject({ url: `/api/events/${cricket.slug}?range=1d` })).json();
    expect(detail.options[0].priceHistory.length).toBeGreaterThan(0);
    // Each point is stamped with the trade that set it: never before the first trade, in every range.
    for (const range of ['1d', '1w', '1m', 'all']) {
      const history = (await t.app.inject({ url: `/api/events/${cricket.slug}?range=${range}` })).json()
        .options[0].priceHistory as { t: string }[];
      expect(
        history.every((point) => Date.parse(point.t) >= beforeTrade - 5),
        range,
      ).toBe(true);
    }
    expect(detail.options[0].yesPriceCents).toBe(detail.options[0].lastYesPriceCents);
    expect(detail.options[0].yesPriceCents + detail.options[0].noPriceCents).toBe(100);
    expect(detail.options[0].bestAskCents).toBeGreaterThan(detail.options[0].bestBidCents);

    const lookup = (await t.app.inject({ url: `/api/events/by-slug/${cricket.slug}` })).json();
    expect(lookup).toEqual({
      id: cricket.id,
      slug: cricket.slug,
      title: 'Will Kohli score a century at Lord’s?',
      status: 'open',
    });
    expect((await t.app.inject({ url: '/api/events/no-such-market' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/events/no-such-market?range=5y' })).statusCode).toBe(400);
  });
});
