import { afterAll, beforeAll, expect, it } from 'vitest';
import { guardTransactions } from '../../../src/platform/db/transaction-guard.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { positionsOf } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * A stop-loss on a share of an exclusive event whose options never traded: the price shown comes from the other
 * options, read inside the transaction that locks the position. Read through the pool, it froze the embedded
 * database for good; the guard that tests run with is off here, so this shows the freeze itself.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  guardTransactions(true);
  await expectInvariants(t.database);
  await t.close();
});

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

it('sets a stop-loss on a split share of an exclusive event that never traded, and the database still answers', async () => {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(admin.token),
    payload: {
      title: `Who wins the league ${Date.now()}`,
      category: 'football',
      closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      exclusive: true,
      options: ['A', 'B', 'C', 'D', 'E'].map((label) => ({ label })),
      open: true,
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const trader = await newUser(t.app);
  const split = await t.app.inject({
    method: 'POST',
    url: `/api/events/${created.json().id}/conversions`,
    headers: bearer(trader.token),
    payload: { type: 'split', quantity: 1 },
  });
  expect(split.statusCode, split.body).toBe(201);
  const positions = (await positionsOf(t.app, trader.token)).data;
  expect(positions).toHaveLength(5);

  guardTransactions(false);
  try {
    const protect = await within(
      5_000,
      t.app.inject({
        method: 'POST',
        url: `/api/positions/${positions[0].id}/protections`,
        headers: bearer(trader.token),
        payload: { stopLossProbBps: 100 },
      }),
    );
    expect(protect.statusCode, protect.body).toBe(200);
    expect(protect.json()).toMatchObject({ id: positions[0].id, stopLossProbBps: 100 });
    const ready = await within(5_000, t.app.inject({ url: '/readyz' }));
    expect(ready.statusCode).toBe(200);
  } finally {
    guardTransactions(true);
  }
});
