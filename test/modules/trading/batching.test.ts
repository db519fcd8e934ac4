import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTwoInstances,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * The batched order path: orders of one option arriving together are matched in memory and committed as one
 * batch, with the book kept in memory between batches. Two instances share one database here, so each one's
 * book in memory must follow what the other (and cancels, and protective sells) wrote in between.
 */
let db: TestDatabase;
let a: TestApp;
let b: TestApp;
let admin: TestUser;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances());
  admin = await newAdmin(a.app);
});
afterAll(async () => {
  await closeTwoInstances({ db, a, b });
});

async function book(t: TestApp, optionId: string) {
  const res = await t.app.inject({ url: `/api/orderbook/${optionId}` });
  return res.json() as {
    yes: {
      bids: { priceCents: number; quantity: number }[];
      asks: { priceCents: number; quantity: number }[];
    };
  };
}

function ordersOfOption(optionId: string) {
  return db.database.db
    .selectFrom('orders')
    .select(['id', 'user_id', 'status', 'quantity', 'filled_quantity', 'book_side', 'book_price'])
    .where('option_id', '=', Number(optionId))
    .orderBy('id')
    .execute();
}

describe('the batched order path', () => {
  it('matches orders sent at once exactly as one after another would, each answered on its own', async () => {
    const market = await createMarket(a.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 0 }] });
    const optionId = market.options[0]!.id;
    const makers = await Promise.all(Array.from({ length: 6 }, () => newUser(a.app)));
    const taker = await newUser(a.app);
    const poor = await newUser(a.app);
    // Drain the poor trader's cash so that its order in the batch is refused while the others go through.
    const drain = await limitOrder(a.app, poor.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 100_000 / 10,
      price: 10,
    });
    expect(drain.statusCode).toBe(201);

    const resting = await Promise.all(
      makers.map((maker, i) =>
        limitOrder(a.app, maker.token, { optionId, side: 'NO', action: 'BUY', quantity: 10, price: 40 + i }),
      ),
    );
    expect(resting.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    // YES asks at 60..55 (NO bids 40..45): a YES buy at 58 crosses 55, 56, 57, 58.
    const [taken, refused] = await Promise.all([
      marketTrade(a.app, taker.token, { optionId, side: 'YES', action: 'BUY', quantity: 35, price: 58 }),
      limitOrder(a.app, poor.token, { optionId, side: 'YES', action: 'BUY', quantity: 10, price: 58 }),
    ]);
    expect(taken.statusCode).toBe(201);
    expect(taken.json()).toMatchObject({ filledQuantity: 35, status: 'filled', averagePriceCents: 56 });
    expect(taken.json().trades.map((t: { priceCents: number }) => t.priceCents)).toEqual([55, 56, 57, 58]);
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    const after = await book(b, optionId);
    expect(after.yes.asks).toEqual([
      expect.objectContaining({ priceCents: 58, quantity: 5 }),
      expect.objectContaining({ priceCents: 59, quantity: 10 }),
      expect.objectContaining({ priceCents: 60, quantity: 10 }),
    ]);
    await expectInvariants(db.database);
  });

  it('keeps each instance’s book in memory in step with what the other instance, cancels and fills wrote', async () => {
    const market = await createMarket(a.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 0 }] });
    const optionId = market.options[0]!.id;
    const [s1, s2, s3, buyer] = await Promise.all([
      newUser(a.app),
      newUser(a.app),
      newUser(a.app),
      newUser(a.app),
    ]);

    // Instance a builds its book: three YES asks at 50 (NO bids at 50), in time order s1, s2, s3.
    for (const seller of [s1, s2, s3]) {
      const res = await limitOrder(a.app, seller.token, {
        optionId,
        side: 'NO',
        action: 'BUY',
        quantity: 10,
        price: 50,
      });
      expect(res.statusCode).toBe(201);
    }
    const [o1, o2, o3] = (await ordersOfOption(optionId)).map((o) => String(o.id));
    // Instance b fills part of the first, and s2 cancels its order on instance b.
    const partial = await marketTrade(b.app, buyer.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 4,
      price: 50,
    });
    expect(partial.json().trades[0]).toMatchObject({ quantity: 4, priceCents: 50 });
    const cancel = await b.app.inject({
      method: 'DELETE',
      url: `/api/limit-orders/${o2}`,
      headers: bearer(s2.token),
    });
    expect(cancel.statusCode).toBe(200);
    // A new ask on b, at a better price than the rest.
    const better = await limitOrder(b.app, s2.token, {
      optionId,
      side: 'NO',
      action: 'BUY',
      quantity: 3,
      price: 51,
    });
    expect(better.statusCode).toBe(201);

    // Back on instance a: it must take the 3 at 49 first, then the 6 left of s1's order, then s3 — never s2's.
    const sweep = await marketTrade(a.app, buyer.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 15,
      price: 50,
    });
    expect(sweep.statusCode).toBe(201);
    expect(sweep.json()).toMatchObject({ filledQuantity: 15 });
    const fills = await db.database.db
      .selectFrom('fills')
      .select(['maker_order_id', 'quantity', 'yes_price'])
      .where('taker_order_id', '=', Number(sweep.json().id))
      .orderBy('id')
      .execute();
    expect(fills).toEqual([
      { maker_order_id: Number(better.json().id), quantity: 3, yes_price: 49 },
      { maker_order_id: Number(o1), quantity: 6, yes_price: 50 },
      { maker_order_id: Number(o3), quantity: 6, yes_price: 50 },
    ]);
    const states = new Map((await ordersOfOption(optionId)).map((o) => [String(o.id), o]));
    expect(states.get(o1 as string)).toMatchObject({ status: 'filled', filled_quantity: 10 });
    expect(states.get(o2 as string)).toMatchObject({ status: 'cancelled', filled_quantity: 0 });
    expect(states.get(o3 as string)).toMatchObject({ status: 'partially_filled', filled_quantity: 6 });
    await expectInvariants(db.database);
  });

  it('under load from both instances at once, every order is answered and the books in memory agree with the database', async () => {
    const market = await createMarket(a.app, admin.token, {
      options: [{ label: 'Yes', liquidityCents: 20_000 }],
    });
    const optionId = market.options[0]!.id;
    const traders = await Promise.all(Array.from({ length: 12 }, () => newUser(a.app)));
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 4; round++) {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const app = (i + round) % 2 === 0 ? a.app : b.app;
          const trader = traders[Math.floor(random() * traders.length)]!;
          return limitOrder(app, trader.token, {
            optionId,
            side: random() < 0.5 ? 'YES' : 'NO',
            action: 'BUY',
            quantity: 1 + Math.floor(random() * 8),
            price: 44 + Math.floor(random() * 13),
          });
        }),
      );
      for (const res of results) expect(res.statusCode, res.body).toBe(201);
    }
    // Each instance's next order is matched against its book in memory: both must see the same book as the
    // database. A YES buy at 99 for everything on the ask side takes all of it, at the prices the database holds.
    const resting = await db.database.db
      .selectFrom('orders')
      .select((eb) => eb.fn.sum<number>(eb(eb.ref('quantity'), '-', eb.ref('filled_quantity'))).as('left'))
      .where('option_id', '=', Number(optionId))
      .where('book_side', '=', 'ask')
      .where('status', 'in', ['open', 'partially_filled'])
      .executeTakeFirstOrThrow();
    const left = Number(resting.left ?? 0);
    const fromDatabase = await book(a, optionId);
    const userAsks = fromDatabase.yes.asks.reduce((sum, level) => sum + level.quantity, 0);
    expect(userAsks).toBeGreaterThanOrEqual(left);
    const sweeper = await newUser(b.app);
    const sweep = await limitOrder(b.app, sweeper.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1500,
      price: 60,
    });
    expect(sweep.statusCode).toBe(201);
    const openAsks = await db.database.db
      .selectFrom('orders')
      .select('id')
      .where('option_id', '=', Number(optionId))
      .where('book_side', '=', 'ask')
      .where('book_price', '<=', 60)
      .where('status', 'in', ['open', 'partially_filled'])
      .execute();
    expect(openAsks).toEqual([]);
    await expectInvariants(db.database);
  });

  it('tells each order the trades and book version that were written for it', async () => {
    const market = await createMarket(a.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 0 }] });
    const optionId = market.options[0]!.id;
    const makers = await Promise.all(Array.from({ length: 4 }, () => newUser(a.app)));
    const takers = await Promise.all(Array.from({ length: 4 }, () => newUser(b.app)));
    for (const [i, maker] of makers.entries()) {
      const res = await limitOrder(a.app, maker.token, {
        optionId,
        side: 'NO',
        action: 'BUY',
        quantity: 5,
        price: 50 - i,
      });
      expect(res.statusCode).toBe(201);
    }
    // Sent together, so that they ride one batch: each crosses one or two of the makers' asks.
    const placed = await Promise.all(
      takers.map((taker, i) =>
        limitOrder(b.app, taker.token, { optionId, side: 'YES', action: 'BUY', quantity: 3 + i, price: 54 }),
      ),
    );
    expect(placed.map((res) => res.statusCode)).toEqual([201, 201, 201, 201]);
    const told = placed.flatMap((res) =>
      (res.json().trades as { id: string; orderId: string; quantity: number; priceCents: number }[]).map(
        (trade) => ({ ...trade, orderId: res.json().id as string }),
      ),
    );
    expect(told.reduce((sum, trade) => sum + trade.quantity, 0)).toBe(3 + 4 + 5 + 6);
    const stored = await db.database.db
      .selectFrom('trades as t')
      .innerJoin('fills as f', 'f.id', 't.fill_id')
      .select(['t.id', 't.order_id', 't.quantity', 't.price_cents', 'f.taker_order_id', 'f.option_id'])
      .where(
        't.id',
        'in',
        told.map((trade) => Number(trade.id)),
      )
      .orderBy('t.id')
      .execute();
    expect(
      stored.map((row) => ({
        id: String(row.id),
        orderId: String(row.order_id),
        quantity: Number(row.quantity),
        priceCents: row.price_cents,
      })),
    ).toEqual(
      [...told]
        .sort((x, y) => Number(x.id) - Number(y.id))
        .map(({ id, orderId, quantity, priceCents }) => ({ id, orderId, quantity, priceCents })),
    );
    for (const row of stored) {
      expect(String(row.taker_order_id)).toBe(String(row.order_id));
      expect(String(row.option_id)).toBe(optionId);
    }
    // The orders are stamped with the version their batch left the book at; the last batch left the option's.
    const option = await db.database.db
      .selectFrom('options')
      .select('book_version')
      .where('id', '=', Number(optionId))
      .executeTakeFirstOrThrow();
    const versions = await db.database.db
      .selectFrom('orders')
      .select('book_version')
      .where(
        'id',
        'in',
        placed.map((res) => Number(res.json().id)),
      )
      .orderBy('id')
      .execute();
    const stamped = versions.map((row) => Number(row.book_version));
    expect(stamped).toEqual([...stamped].sort((x, y) => x - y));
    expect(stamped.at(-1)).toBe(Number(option.book_version));
    await expectInvariants(db.database);
  });
});
