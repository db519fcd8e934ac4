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

describe('market trades against the house market maker', () => {
  it('fills at once, charges the fill prices and shows the position', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'India', liquidityCents: 100_000 }],
    });
    const option = market.options[0]!;
    const user = await newUser(t.app);
    const res = await marketTrade(t.app, user.token, {
      optionId: option.id,
      side: 'YES',
      action: 'BUY',
      quantity: 50,
      price: 60,
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      kind: 'market',
      status: 'filled',
      filledQuantity: 50,
      remainingQuantity: 0,
    });
    expect(body.averagePriceCents).toBeGreaterThanOrEqual(51);
    const paid = body.trades.reduce(
      (s: number, tr: { quantity: number; priceCents: number }) => s + tr.quantity * tr.priceCents,
      0,
    );
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - paid, reservedCents: 0 });
    const portfolio = await positionsOf(t.app, user.token);
    expect(portfolio.data).toHaveLength(1);
    expect(portfolio.data[0]).toMatchObject({
      side: 'YES',
      quantity: 50,
      costCents: paid,
      optionLabel: 'India',
    });
    expect(portfolio.summary).toMatchObject({ cashCents: 100_000 - paid, reservedCents: 0, openOrders: 0 });

    const book = (await t.app.inject({ url: `/api/orderbook/${option.id}` })).json();
    expect(book.yes.asks[0].priceCents).toBeGreaterThan(51);
    expect(book.yes.asks[0].houseQuantity).toBeGreaterThan(0);
    expect(book.no.bids[0].priceCents).toBe(100 - book.yes.asks[0].priceCents);
  });

  it('addresses an option by event slug and label, and sells back', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Rate cut', liquidityCents: 50_000 }],
    });
    const user = await newUser(t.app);
    const buy = await t.app.inject({
      method: 'POST',
      url: '/api/trades',
      headers: bearer(user.token),
      payload: {
        eventSlug: market.slug,
        optionLabel: 'rate cut',
        side: 'NO',
        action: 'BUY',
        quantity: 10,
        priceCents: 99,
      },
    });
    expect(buy.statusCode).toBe(201);
    const sell = await marketTrade(t.app, user.token, {
      optionId: market.options[0]!.id,
      side: 'NO',
      action: 'SELL',
      quantity: 10,
      price: 1,
    });
    expect(sell.statusCode).toBe(201);
    expect(sell.json().status).toBe('filled');
    const portfolio = await positionsOf(t.app, user.token);
    expect(portfolio.data).toHaveLength(0);
    expect(portfolio.summary.realizedPnlCents).toBeLessThan(0); // paid the spread
  });
});

describe('limit orders and the order book', () => {
  it('mints between two users, rests the remainder, reserves collateral and cancels', async () => {
    const market = await createMarket(t.app, admin.token);
    const option = market.options[0]!;
    const [alice, bob] = [await newUser(t.app), await newUser(t.app)];

    const rest = await limitOrder(t.app, alice.token, {
      optionId: option.id,
      side: 'NO',
      action: 'BUY',
      quantity: 10,
      price: 40,
    });
    expect(rest.statusCode).toBe(201);
    expect(rest.json()).toMatchObject({ status: 'open', filledQuantity: 0, reservedCents: 400 });
    expect(await balanceOf(t.app, alice.token)).toEqual({ cashCents: 99_600, reservedCents: 400 });

    const take = await limitOrder(t.app, bob.token, {
      optionId: option.id,
      side: 'YES',
      action: 'BUY',
      quantity: 15,
      price: 65,
    });
    expect(take.statusCode).toBe(201);
    const taken = take.json();
    expect(taken).toMatchObject({
      status: 'partially_filled',
      filledQuantity: 10,
      remainingQuantity: 5,
      reservedCents: 325,
    });
    expect(taken.trades).toEqual([
      expect.objectContaining({ priceCents: 60, quantity: 10, liquidity: 'taker' }),
    ]);
    // Bob paid 60 per share (the resting price), not his 65 limit, and 65 × 5 stays reserved for the rest.
    expect(await balanceOf(t.app, bob.token)).toEqual({ cashCents: 100_000 - 600 - 325, reservedCents: 325 });
    expect(await balanceOf(t.app, alice.token)).toEqual({ cashCents: 99_600, reservedCents: 0 });

    const book = (await t.app.inject({ url: `/api/orderbook/${option.id}` })).json();
    expect(book.yes.bids).toEqual([{ priceCents: 65, quantity: 5, orders: 1, houseQuantity: 0 }]);
    expect(book.no.asks).toEqual([{ priceCents: 35, quantity: 5, orders: 1, houseQuantity: 0 }]);

    const open = (
      await t.app.inject({ url: '/api/limit-orders?status=open', headers: bearer(bob.token) })
    ).json();
    expect(open.data.map((o: { id: string }) => o.id)).toEqual([taken.id]);

    const cancel = await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${taken.id}`,
      headers: bearer(bob.token),
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toMatchObject({ status: 'cancelled', reservedCents: 0 });
    expect(await balanceOf(t.app, bob.token)).toEqual({ cashCents: 100_000 - 600, reservedCents: 0 });
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${taken.id}`,
      headers: bearer(bob.token),
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('ORDER_NOT_OPEN');
    const history = (
      await t.app.inject({ url: '/api/limit-orders?status=history', headers: bearer(bob.token) })
    ).json();
    expect(history.data[0]).toMatchObject({ id: taken.id, status: 'cancelled' });

    const trades = (
      await t.app.inject({ url: '/api/trades?status=open', headers: bearer(alice.token) })
    ).json();
    expect(trades.data).toEqual([
      expect.objectContaining({
        side: 'NO',
        action: 'BUY',
        priceCents: 40,
        quantity: 10,
        liquidity: 'maker',
      }),
    ]);
  });

  it('cancels the taker’s own resting order instead of trading with it', async () => {
    const market = await createMarket(t.app, admin.token);
    const option = market.options[0]!;
    const user = await newUser(t.app);
    const own = (
      await limitOrder(t.app, user.token, {
        optionId: option.id,
        side: 'NO',
        action: 'BUY',
        quantity: 5,
        price: 50,
      })
    ).json();
    const res = await limitOrder(t.app, user.token, {
      optionId: option.id,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      price: 55,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'open',
      filledQuantity: 0,
      selfTradeCancelledOrderIds: [own.id],
    });
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000 - 275, reservedCents: 275 });
  });
});

describe('lists of one event', () => {
  it('lists only the trades and limit orders of the named event, whatever else the user traded', async () => {
    const first = await createMarket(t.app, admin.token, {
      options: [{ label: 'A', liquidityCents: 50_000 }],
    });
    const second = await createMarket(t.app, admin.token, {
      options: [{ label: 'B', liquidityCents: 50_000 }],
    });
    const user = await newUser(t.app);
    const optionOf = (market: typeof first) => market.options[0]!.id;
    for (const market of [first, second, second]) {
      const trade = {
        optionId: optionOf(market),
        side: 'YES',
        action: 'BUY',
        quantity: 2,
        price: 99,
      } as const;
      expect((await marketTrade(t.app, user.token, trade)).statusCode).toBe(201);
      const order = {
        optionId: optionOf(market),
        side: 'YES',
        action: 'BUY',
        quantity: 1,
        price: 2,
      } as const;
      expect((await limitOrder(t.app, user.token, order)).statusCode).toBe(201);
    }
    const list = async (url: string) => {
      const response = await t.app.inject({ url, headers: bearer(user.token) });
      expect(response.statusCode).toBe(200);
      return (response.json().data as { eventSlug: string }[]).map((row) => row.eventSlug);
    };

    expect(await list(`/api/trades?eventSlug=${first.slug}`)).toEqual([first.slug]);
    expect(await list(`/api/trades?eventSlug=${second.slug}&status=open`)).toEqual([
      second.slug,
      second.slug,
    ]);
    expect(await list(`/api/trades?eventSlug=${second.slug}&status=closed`)).toEqual([]);
    expect(await list('/api/trades')).toHaveLength(3);
    expect(await list(`/api/limit-orders?eventSlug=${first.slug}`)).toEqual([first.slug]);
    expect(await list(`/api/limit-orders?status=open&eventSlug=${second.slug}&limit=1`)).toEqual([
      second.slug,
    ]);
    expect(await list('/api/limit-orders?eventSlug=no-such-event')).toEqual([]);

    const empty = await t.app.inject({ url: '/api/trades?eventSlug=', headers: bearer(user.token) });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('VALIDATION_FAILED');
  });
});

describe('errors', () => {
  let optionId: string;
  let user: TestUser;
  beforeAll(async () => {
    optionId = (await createMarket(t.app, admin.token, { options: [{ label: 'X', liquidityCents: 10_000 }] }))
      .options[0]!.id;
    user = await newUser(t.app);
  });

  it('402 INSUFFICIENT_FUNDS for a BUY beyond the cash', async () => {
    const res = await limitOrder(t.app, user.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 100_000,
      price: 50,
    });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      details: { neededCents: 5_000_000, availableCents: 100_000 },
    });
  });

  it('409 INSUFFICIENT_SHARES for a SELL without shares', async () => {
    const res = await marketTrade(t.app, user.token, {
      optionId,
      side: 'YES',
      action: 'SELL',
      quantity: 1,
      price: 1,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('INSUFFICIENT_SHARES');
  });

  it('409 NO_LIQUIDITY when nothing can fill, nothing charged', async () => {
    const empty = (await createMarket(t.app, admin.token)).options[0]!.id;
    const before = await balanceOf(t.app, user.token);
    const res = await marketTrade(t.app, user.token, {
      optionId: empty,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 99,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('NO_LIQUIDITY');
    expect(await balanceOf(t.app, user.token)).toEqual(before);
  });

  it('409 MARKET_CLOSED on a closed or draft market', async () => {
    const market = await createMarket(t.app, admin.token, { open: false });
    const res = await marketTrade(t.app, user.token, {
      optionId: market.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 50,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('MARKET_CLOSED');
  });

  it('404 for another user’s order and for an unknown option', async () => {
    const other = await newUser(t.app);
    const order = (
      await limitOrder(t.app, other.token, { optionId, side: 'YES', action: 'BUY', quantity: 1, price: 2 })
    ).json();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${order.id}`,
      headers: bearer(user.token),
    });
    expect(res.statusCode).toBe(404);
    const unknown = await marketTrade(t.app, user.token, {
      optionId: '999999',
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 50,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it.each([
    [{ priceCents: 0 }, 'body.priceCents'],
    [{ priceCents: 100 }, 'body.priceCents'],
    [{ priceCents: 50.5 }, 'body.priceCents'],
    [{ quantity: 1.5 }, 'body.quantity'],
    [{ quantity: 0 }, 'body.quantity'],
    [{ quantity: -3 }, 'body.quantity'],
    [{ quantity: '10' }, 'body.quantity'],
    [{ side: 'MAYBE' }, 'body.side'],
    [{ action: 'HOLD' }, 'body.action'],
  ])('400 for %j', async (override, field) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/trades',
      headers: bearer(user.token),
      payload: { optionId, side: 'YES', action: 'BUY', quantity: 1, priceCents: 50, ...override },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(res.json().details)).toContain(field.split('.')[1]);
  });

  it('400 for a body naming neither optionId nor eventSlug + optionLabel', async () => {
    for (const payload of [
      { side: 'YES', action: 'BUY', quantity: 1, priceCents: 50 },
      { eventSlug: 'x', side: 'YES', action: 'BUY', quantity: 1, priceCents: 50 },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/trades',
        headers: bearer(user.token),
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('400 for a quantity over the configured maximum and an expiry out of range', async () => {
    const big = await limitOrder(t.app, user.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 2_000_000,
      price: 1,
    });
    expect(big.statusCode).toBe(400);
    const expiry = await limitOrder(t.app, user.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 1,
      expiresInHours: 721,
    });
    expect(expiry.statusCode).toBe(400);
  });

  it('401 without credentials', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/trades', payload: {} });
    expect(res.statusCode).toBe(401);
  });
});

describe('idempotency', () => {
  it('returns the first result for a retried Idempotency-Key and refuses a different body', async () => {
    const optionId = (
      await createMarket(t.app, admin.token, { options: [{ label: 'Y', liquidityCents: 20_000 }] })
    ).options[0]!.id;
    const user = await newUser(t.app);
    const order = { optionId, side: 'YES' as const, action: 'BUY' as const, quantity: 5, price: 70 };
    const first = await marketTrade(t.app, user.token, order, { 'idempotency-key': 'abc-1' });
    const again = await marketTrade(t.app, user.token, order, { 'idempotency-key': 'abc-1' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const trades = (await t.app.inject({ url: '/api/trades', headers: bearer(user.token) })).json();
    expect(trades.data.reduce((s: number, tr: { quantity: number }) => s + tr.quantity, 0)).toBe(5);
    const different = await marketTrade(
      t.app,
      user.token,
      { ...order, quantity: 6 },
      { 'idempotency-key': 'abc-1' },
    );
    expect(different.statusCode).toBe(409);
    expect(different.json().code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('treats a repeated clientOrderId as the same order', async () => {
    const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    const user = await newUser(t.app);
    const payload = {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 2,
      limitPriceCents: 10,
      clientOrderId: 'bot-42',
    };
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: bearer(user.token),
      payload,
    });
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: bearer(user.token),
      payload,
    });
    expect(first.json().id).toBe(second.json().id);
    expect(first.json().clientOrderId).toBe('bot-42');
    const open = (await t.app.inject({ url: '/api/limit-orders', headers: bearer(user.token) })).json();
    expect(open.data).toHaveLength(1);
  });
});

describe('expiry', () => {
  it('expires limit orders past their time and releases the reservation', async () => {
    const optionId = (await createMarket(t.app, admin.token)).options[0]!.id;
    const user = await newUser(t.app);
    const order = (
      await limitOrder(t.app, user.token, {
        optionId,
        side: 'YES',
        action: 'BUY',
        quantity: 10,
        price: 30,
        expiresInHours: 1,
      })
    ).json();
    await t.database.db
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', Number(order.id))
      .execute();
    expect(await t.app.jobs.runNow('expire-orders')).toBe(1);
    const history = (
      await t.app.inject({ url: '/api/limit-orders?status=history', headers: bearer(user.token) })
    ).json();
    expect(history.data[0]).toMatchObject({ id: order.id, status: 'expired' });
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 100_000, reservedCents: 0 });
  });
});
