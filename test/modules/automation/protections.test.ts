import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade, positionsOf } from '../../support/exchange.js';
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

function protect(user: TestUser, positionId: string, payload: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: `/api/positions/${positionId}/protections`,
    headers: bearer(user.token),
    payload,
  });
}

/** A YES position of 10 bought at 60¢ from a NO buyer (the last traded YES price is then 60). */
async function holderAt60(optionId: string) {
  const [holder, counterparty] = [await newUser(t.app), await newUser(t.app)];
  await limitOrder(t.app, counterparty.token, {
    optionId,
    side: 'NO',
    action: 'BUY',
    quantity: 10,
    price: 40,
  });
  const buy = await limitOrder(t.app, holder.token, {
    optionId,
    side: 'YES',
    action: 'BUY',
    quantity: 10,
    price: 60,
  });
  expect(buy.json()).toMatchObject({ status: 'filled', filledQuantity: 10 });
  const position = (await positionsOf(t.app, holder.token)).data[0];
  expect(position).toMatchObject({ side: 'YES', quantity: 10, markPriceCents: 60 });
  return { holder, positionId: position.id as string };
}

/** Trades `quantity` at exactly `yesPrice` between two fresh users: a resting YES bid taken by a NO buyer. */
async function printTrade(optionId: string, yesPrice: number, quantity = 1) {
  const [maker, taker] = [await newUser(t.app), await newUser(t.app)];
  await limitOrder(t.app, maker.token, { optionId, side: 'YES', action: 'BUY', quantity, price: yesPrice });
  const res = await limitOrder(t.app, taker.token, {
    optionId,
    side: 'NO',
    action: 'BUY',
    quantity,
    price: 100 - yesPrice,
  });
  expect(res.json().trades).toEqual([expect.objectContaining({ priceCents: 100 - yesPrice, quantity })]);
}

async function sellOrdersOf(userId: string) {
  return t.database.db
    .selectFrom('orders')
    .select(['id', 'kind', 'quantity', 'filled_quantity', 'price_cents'])
    .where('user_id', '=', Number(userId))
    .where('action', '=', 'SELL')
    .execute();
}

async function feedOf(user: TestUser, type: string) {
  const res = await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) });
  return res.json().data.filter((n: { type: string }) => n.type === type);
}

describe('setting protections', () => {
  let optionId: string;
  let holder: TestUser;
  let positionId: string;
  beforeAll(async () => {
    optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    ({ holder, positionId } = await holderAt60(optionId));
  });

  it('sets both thresholds and returns the position view', async () => {
    const res = await protect(holder, positionId, { stopLossProbBps: 5000, takeProfitProbBps: 7500 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: positionId,
      side: 'YES',
      quantity: 10,
      markPriceCents: 60,
      stopLossProbBps: 5000,
      takeProfitProbBps: 7500,
    });
    expect((await positionsOf(t.app, holder.token)).data[0]).toMatchObject({
      stopLossProbBps: 5000,
      takeProfitProbBps: 7500,
    });
  });

  it('leaves an absent threshold as it is and clears one set to null', async () => {
    const res = await protect(holder, positionId, { takeProfitProbBps: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ stopLossProbBps: 5000, takeProfitProbBps: null });
  });

  it.each([
    [{ stopLossProbBps: 6000 }, 'body.stopLossProbBps'],
    [{ stopLossProbBps: 7000 }, 'body.stopLossProbBps'],
    [{ takeProfitProbBps: 6000 }, 'body.takeProfitProbBps'],
    [{ takeProfitProbBps: 4000 }, 'body.takeProfitProbBps'],
    [{ stopLossProbBps: 99 }, 'body.stopLossProbBps'],
    [{ takeProfitProbBps: 9901 }, 'body.takeProfitProbBps'],
    [{ stopLossProbBps: 50.5 }, 'body.stopLossProbBps'],
    [{ stopLossProbBps: '4000' }, 'body.stopLossProbBps'],
  ])('400 for %j (the price is 60¢ = 6000 bps)', async (payload, field) => {
    const res = await protect(holder, positionId, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('says what is wrong in cents, naming the protection, never in basis points or field names', async () => {
    const res = await protect(holder, positionId, { stopLossProbBps: 7000, takeProfitProbBps: 5000 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(
      'The stop-loss must be below the current Yes price of 60¢; The take-profit must be above the current Yes price of 60¢',
    );
    expect(res.json().details.map((d: { message: string }) => d.message)).toEqual([
      'must be below the current Yes price of 60¢',
      'must be above the current Yes price of 60¢',
    ]);
  });

  it('400 for an empty body or an unknown field', async () => {
    expect((await protect(holder, positionId, {})).statusCode).toBe(400);
    expect((await protect(holder, positionId, { trailingStop: 100 })).statusCode).toBe(400);
  });

  it('404 for another user’s position or an unknown one', async () => {
    const stranger = await newUser(t.app);
    const other = await protect(stranger, positionId, { stopLossProbBps: 4000 });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('NOT_FOUND');
    expect((await protect(holder, '999999', { stopLossProbBps: 4000 })).statusCode).toBe(404);
  });

  it('judges a NO position by the NO side’s last traded price', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'House', liquidityCents: 10_000 }],
    });
    const buyer = await newUser(t.app);
    const buy = await marketTrade(t.app, buyer.token, {
      optionId: market.options[0]!.id,
      side: 'NO',
      action: 'BUY',
      quantity: 5,
      price: 99,
    });
    expect(buy.statusCode).toBe(201);
    const position = (await positionsOf(t.app, buyer.token)).data[0];
    const mark = position.markPriceCents as number;
    expect((await protect(buyer, position.id, { stopLossProbBps: mark * 100 })).statusCode).toBe(400);
    expect((await protect(buyer, position.id, { stopLossProbBps: (mark - 1) * 100 })).statusCode).toBe(200);
  });

  it('409 POSITION_CLOSED once the position is sold out or its market closed', async () => {
    const market = await createMarket(t.app, admin.token);
    const id = market.options[0]!.id;
    const first = await holderAt60(id);
    const second = await holderAt60(id);
    const bidder = await newUser(t.app);
    await limitOrder(t.app, bidder.token, {
      optionId: id,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 55,
    });
    const sell = await marketTrade(t.app, first.holder.token, {
      optionId: id,
      side: 'YES',
      action: 'SELL',
      quantity: 10,
      price: 50,
    });
    expect(sell.json().status).toBe('filled');
    const soldOut = await protect(first.holder, first.positionId, { stopLossProbBps: 1000 });
    expect(soldOut.statusCode).toBe(409);
    expect(soldOut.json().code).toBe('POSITION_CLOSED');

    const close = await t.app.inject({
      method: 'POST',
      url: `/api/admin/events/${market.id}/close`,
      headers: bearer(admin.token),
    });
    expect(close.statusCode).toBe(200);
    const closed = await protect(second.holder, second.positionId, { stopLossProbBps: 1000 });
    expect(closed.statusCode).toBe(409);
    expect(closed.json().code).toBe('POSITION_CLOSED');
  });
});

describe('a stop-loss', () => {
  it('sells at market on the first fill at or below it, once, and tells the owner', async () => {
    const optionId = (await createMarket(t.app, admin.token, { title: 'India vs Australia' })).options[0]!.id;
    const { holder, positionId } = await holderAt60(optionId);
    expect((await protect(holder, positionId, { stopLossProbBps: 5000 })).statusCode).toBe(200);
    // Someone ready to buy what the stop-loss sells.
    const bidder = await newUser(t.app);
    await limitOrder(t.app, bidder.token, { optionId, side: 'YES', action: 'BUY', quantity: 10, price: 45 });

    await printTrade(optionId, 55);
    await printTrade(optionId, 51);
    expect(await sellOrdersOf(holder.id)).toEqual([]);
    expect((await positionsOf(t.app, holder.token)).data[0]).toMatchObject({
      quantity: 10,
      stopLossProbBps: 5000,
    });

    await printTrade(optionId, 50);
    const sells = await sellOrdersOf(holder.id);
    expect(sells).toEqual([
      { id: expect.any(Number), kind: 'market', quantity: 10, filled_quantity: 10, price_cents: 1 },
    ]);
    expect((await positionsOf(t.app, holder.token)).data).toEqual([]);
    const bidderPosition = (await positionsOf(t.app, bidder.token)).data[0];
    expect(bidderPosition).toMatchObject({ side: 'YES', quantity: 10, costCents: 450 });

    const notices = await feedOf(holder, 'position.protection_triggered');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      title: 'Stop-loss triggered',
      data: {
        positionId,
        trigger: 'stop_loss',
        thresholdProbBps: 5000,
        soldQuantity: 10,
        averagePriceCents: 45,
      },
    });
    expect(notices[0].body).toContain('India vs Australia');
    expect(notices[0].body).toContain('sold 10 at 45¢');
    const fills = await feedOf(holder, 'order.filled');
    expect(fills[0].body).toBe(
      `Your order to sell 10 YES of India vs Australia (Yes) at any price filled 10 at 45¢.`,
    );

    // Lower prices later never fire it again: it was cleared.
    await printTrade(optionId, 40);
    await printTrade(optionId, 30);
    expect(await sellOrdersOf(holder.id)).toHaveLength(1);
    expect(await feedOf(holder, 'position.protection_triggered')).toHaveLength(1);
    await expectInvariants(t.database);
  });

  it('a protective sell that moves the price fires the next stop-loss in the same order', async () => {
    const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    const first = await holderAt60(optionId);
    const second = await holderAt60(optionId);
    await protect(first.holder, first.positionId, { stopLossProbBps: 5000 });
    await protect(second.holder, second.positionId, { stopLossProbBps: 4500 });
    const [bidA, bidB] = [await newUser(t.app), await newUser(t.app)];
    await limitOrder(t.app, bidA.token, { optionId, side: 'YES', action: 'BUY', quantity: 10, price: 42 });
    await limitOrder(t.app, bidB.token, { optionId, side: 'YES', action: 'BUY', quantity: 10, price: 30 });

    await printTrade(optionId, 50);
    expect((await positionsOf(t.app, first.holder.token)).data).toEqual([]);
    // The first sale traded at 42¢, below the second stop-loss (45¢): that one sold into the 30¢ bid.
    expect((await positionsOf(t.app, second.holder.token)).data).toEqual([]);
    expect((await feedOf(second.holder, 'position.protection_triggered'))[0].data).toMatchObject({
      triggerPriceCents: 42,
      soldQuantity: 10,
      averagePriceCents: 30,
    });
    await expectInvariants(t.database);
  });

  it('with no buyers, clears itself and says nothing could be sold; the triggering trade stands', async () => {
    const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    const { holder, positionId } = await holderAt60(optionId);
    await protect(holder, positionId, { stopLossProbBps: 5500 });
    await printTrade(optionId, 55, 3);
    expect((await positionsOf(t.app, holder.token)).data[0]).toMatchObject({
      quantity: 10,
      stopLossProbBps: null,
    });
    const [notice] = await feedOf(holder, 'position.protection_triggered');
    expect(notice.data).toMatchObject({ soldQuantity: 0, outcome: 'not_sold' });
    expect(notice.body).toContain('nothing could be sold');
    expect(await sellOrdersOf(holder.id)).toEqual([]);
    await expectInvariants(t.database);
  });
});

describe('a take-profit', () => {
  it('sells on the first fill at or above it, once', async () => {
    const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    const { holder, positionId } = await holderAt60(optionId);
    expect(
      (await protect(holder, positionId, { takeProfitProbBps: 7000, stopLossProbBps: 3000 })).statusCode,
    ).toBe(200);
    const bidder = await newUser(t.app);
    await limitOrder(t.app, bidder.token, { optionId, side: 'YES', action: 'BUY', quantity: 4, price: 68 });
    await limitOrder(t.app, bidder.token, { optionId, side: 'YES', action: 'BUY', quantity: 10, price: 66 });

    await printTrade(optionId, 69);
    expect(await sellOrdersOf(holder.id)).toEqual([]);
    await printTrade(optionId, 70);
    const sells = await sellOrdersOf(holder.id);
    expect(sells).toHaveLength(1);
    expect(sells[0]).toMatchObject({ quantity: 10, filled_quantity: 10 });
    const cash = (await t.app.inject({ url: '/api/auth/me', headers: bearer(holder.token) })).json().balance;
    expect(cash.cashCents).toBe(100_000 - 600 + 4 * 68 + 6 * 66);
    const [notice] = await feedOf(holder, 'position.protection_triggered');
    expect(notice).toMatchObject({
      title: 'Take-profit triggered',
      data: { trigger: 'take_profit', thresholdProbBps: 7000, triggerPriceCents: 70, soldQuantity: 10 },
    });
    await printTrade(optionId, 75);
    await printTrade(optionId, 80);
    expect(await sellOrdersOf(holder.id)).toHaveLength(1);
    await expectInvariants(t.database);
  });

  it('on a NO position uses the NO price', async () => {
    const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    const [noHolder, yesBuyer] = [await newUser(t.app), await newUser(t.app)];
    await limitOrder(t.app, noHolder.token, { optionId, side: 'NO', action: 'BUY', quantity: 10, price: 40 });
    await limitOrder(t.app, yesBuyer.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      price: 60,
    });
    const position = (await positionsOf(t.app, noHolder.token)).data[0];
    expect(position).toMatchObject({ side: 'NO', markPriceCents: 40 });
    expect((await protect(noHolder, position.id, { takeProfitProbBps: 4000 })).statusCode).toBe(400);
    expect((await protect(noHolder, position.id, { takeProfitProbBps: 5000 })).statusCode).toBe(200);
    const noBidder = await newUser(t.app);
    await limitOrder(t.app, noBidder.token, { optionId, side: 'NO', action: 'BUY', quantity: 10, price: 48 });
    await printTrade(optionId, 51);
    expect(await sellOrdersOf(noHolder.id)).toEqual([]);
    // YES at 50 is NO at 50: the take-profit fires and sells into the NO bid at 48.
    await printTrade(optionId, 50);
    expect((await positionsOf(t.app, noHolder.token)).data).toEqual([]);
    await expectInvariants(t.database);
  });
});
