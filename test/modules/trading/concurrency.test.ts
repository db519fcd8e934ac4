import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTwoInstances,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

let db: TestDatabase;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances());
});
afterAll(async () => {
  await closeTwoInstances({ db, a, b });
});

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('many traders on one option through two instances at once', () => {
  it('keeps every invariant, never overfills, and commits every acknowledged order', async () => {
    const admin = await newAdmin(a.app);
    const market = await createMarket(a.app, admin.token, {
      options: [{ label: 'Hot', liquidityCents: 30_000 }],
    });
    const optionId = market.options[0]!.id;
    const users: TestUser[] = [];
    for (let i = 0; i < 20; i++) users.push(await newUser(i % 2 ? a.app : b.app));

    // Everyone gets some shares first, so that SELL orders have something to sell.
    await Promise.all(
      users.map((user, i) =>
        (i % 2 ? a : b).app.inject({
          method: 'POST',
          url: '/api/trades',
          headers: bearer(user.token),
          payload: { optionId, side: i % 3 ? 'YES' : 'NO', action: 'BUY', quantity: 20, priceCents: 99 },
        }),
      ),
    );

    const next = random(42);
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    const placed: { user: TestUser; id: string }[] = [];
    const requests = Array.from({ length: 400 }, (_, i) => async () => {
      const user = users[Math.floor(next() * users.length)]!;
      const app = (i % 2 ? a : b).app;
      const roll = next();
      let res: Awaited<ReturnType<typeof app.inject>>;
      if (roll < 0.15 && placed.length > 0) {
        const target = placed[Math.floor(next() * placed.length)]!;
        res = await app.inject({
          method: 'DELETE',
          url: `/api/limit-orders/${target.id}`,
          headers: bearer(target.user.token),
        });
      } else {
        const side = next() < 0.5 ? 'YES' : 'NO';
        const action = next() < 0.7 ? 'BUY' : 'SELL';
        const quantity = 1 + Math.floor(next() * 15);
        const price = 20 + Math.floor(next() * 60);
        const limit = roll < 0.7;
        res = await app.inject({
          method: 'POST',
          url: limit ? '/api/limit-orders' : '/api/trades',
          headers: bearer(user.token),
          payload: limit
            ? { optionId, side, action, quantity, limitPriceCents: price }
            : { optionId, side, action, quantity, priceCents: price },
        });
        if (res.statusCode === 201) {
          acknowledged.push(res.json().id);
          if (limit) placed.push({ user, id: res.json().id });
        }
      }
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      return res.statusCode;
    });
    await Promise.all(requests.map((run) => run()));

    // Only expected outcomes: placed, cancelled, or a clean business refusal; never a 5xx.
    for (const status of statuses.keys()) expect([200, 201, 402, 409]).toContain(status);
    expect(statuses.get(201) ?? 0).toBeGreaterThan(100);

    const rows = await db.database.db
      .selectFrom('orders')
      .select(['id', 'quantity', 'filled_quantity', 'status'])
      .where('option_id', '=', Number(optionId))
      .execute();
    const ids = new Set(rows.map((r) => String(r.id)));
    for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    for (const row of rows) expect(row.filled_quantity).toBeLessThanOrEqual(row.quantity);

    // Each order's fills add up to what it reports.
    const fills = await sql<{ order_id: number; filled: number }>`
      SELECT order_id, sum(quantity)::bigint AS filled FROM trades WHERE option_id = ${Number(optionId)} GROUP BY order_id`.execute(
      db.database.db,
    );
    const byOrder = new Map(fills.rows.map((r) => [Number(r.order_id), Number(r.filled)]));
    for (const row of rows) expect(byOrder.get(row.id) ?? 0).toBe(row.filled_quantity);

    await expectInvariants(db.database);
  });
});
