import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTwoInstances,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TwoInstances,
} from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { bookOf, Follower, freshSnapshot, type Level, sorted } from '../../support/follower.js';

/**
 * Market data follows the book it leaves: a subscriber that starts from a snapshot and applies every delta it
 * receives holds, after every step, exactly what a fresh snapshot and GET /api/orderbook show. Random sequences of
 * limit and market orders (alone and in bursts that form one batch), cancels, expiries, self-trade cancels and a
 * market close, on one instance and on two sharing a database.
 */

interface OrderDraft {
  user: number;
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  qty: number;
  price: number;
}
type OrderStep = (OrderDraft & { kind: 'limit' }) | (OrderDraft & { kind: 'market' });

type Step =
  | OrderStep
  | { kind: 'burst'; orders: OrderDraft[] }
  | { kind: 'cancel' | 'expire'; pick: number }
  | { kind: 'selfTrade'; pick: number }
  | { kind: 'protect'; user: number }
  | { kind: 'close' };

const order: fc.Arbitrary<OrderDraft> = fc.record({
  user: fc.integer({ min: 0, max: 2 }),
  side: fc.constantFrom('YES' as const, 'NO' as const),
  action: fc.constantFrom('BUY' as const, 'BUY' as const, 'SELL' as const),
  qty: fc.integer({ min: 1, max: 12 }),
  price: fc.integer({ min: 35, max: 65 }),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: order.map((o) => ({ kind: 'limit' as const, ...o })) },
  { weight: 2, arbitrary: order.map((o) => ({ kind: 'market' as const, ...o })) },
  {
    weight: 2,
    arbitrary: fc
      .array(order, { minLength: 2, maxLength: 6 })
      .map((orders) => ({ kind: 'burst' as const, orders })),
  },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: 'cancel' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: 'expire' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: 'selfTrade' as const, pick })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 2 }).map((user) => ({ kind: 'protect' as const, user })),
  },
);

const scenario = fc
  .tuple(fc.array(step, { minLength: 5, maxLength: 18 }), fc.boolean())
  .map(([steps, close]): Step[] => (close ? [...steps, { kind: 'close' }] : steps));

interface Placed {
  id: string;
  user: number;
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  price: number;
}

/**
 * A stop-loss just under the current price on the user's position in the option, if it holds one: the next fill
 * at or below it sells the position at market (a protective sell, with market data of its own).
 */
async function protect(app: FastifyInstance, user: TestUser, optionId: string): Promise<void> {
  const positions = (await app.inject({ url: '/api/positions', headers: bearer(user.token) })).json();
  const held = positions.data.find(
    (p: { optionId: string; quantity: number; markPriceCents: number | null }) =>
      p.optionId === optionId && p.quantity > 0 && (p.markPriceCents ?? 0) > 2,
  );
  if (!held) return;
  const res = await app.inject({
    method: 'POST',
    url: `/api/positions/${held.id}/protections`,
    headers: bearer(user.token),
    payload: { stopLossProbBps: (held.markPriceCents - 1) * 100 },
  });
  expect([200, 400, 409], res.body).toContain(res.statusCode);
}

function describeMarketData(instances: 1 | 2) {
  describe(`market data on ${instances} instance${instances > 1 ? 's' : ''}`, () => {
    let two: TwoInstances;
    let apps: TestApp[];
    let admin: TestUser;
    let url: string;

    beforeAll(async () => {
      two = await createTwoInstances();
      apps = instances === 1 ? [two.a] : [two.a, two.b];
      admin = await newAdmin(two.a.app);
      await two.a.app.listen({ port: 0, host: '127.0.0.1' });
      url = `ws://127.0.0.1:${(two.a.app.server.address() as AddressInfo).port}/api/stream`;
    });
    afterAll(async () => {
      await closeTwoInstances(two);
    });

    it('a snapshot plus every delta equals a fresh snapshot and the order book, after every step', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (steps) => {
          const market = await createMarket(two.a.app, admin.token, {
            options: [{ label: 'Hot', liquidityCents: 3_000 }],
          });
          const optionId = market.options[0]!.id;
          const channel = `book:${optionId}`;
          const users = await Promise.all([0, 1, 2].map(() => newUser(two.a.app)));
          const follower = await Follower.open(url, channel);
          const open: Placed[] = [];
          let turn = 0;
          const app = () => (apps[turn++ % apps.length] as TestApp).app;
          const place = async (o: OrderStep) => {
            const send = o.kind === 'market' ? marketTrade : limitOrder;
            const user = users[o.user] as TestUser;
            const res = await send(app(), user.token, {
              optionId,
              side: o.side,
              action: o.action,
              quantity: o.qty,
              price: o.price,
              ...(o.kind === 'limit' ? { expiresInHours: 1 } : {}),
            });
            expect([201, 402, 409], res.body).toContain(res.statusCode);
            if (res.statusCode !== 201) return;
            const body = res.json();
            for (const id of body.selfTradeCancelledOrderIds as string[]) {
              const at = open.findIndex((p) => p.id === id);
              if (at >= 0) open.splice(at, 1);
            }
            if (body.status === 'open' || body.status === 'partially_filled')
              open.push({ id: body.id, user: o.user, side: o.side, action: o.action, price: o.price });
          };
          try {
            await waitForAgreement(follower, optionId, channel);
            for (const s of steps) {
              if (s.kind === 'limit' || s.kind === 'market') await place(s);
              else if (s.kind === 'burst')
                await Promise.all(s.orders.map((o) => place({ kind: 'limit', ...o })));
              else if (s.kind === 'protect') await protect(two.a.app, users[s.user] as TestUser, optionId);
              else if (s.kind === 'close') {
                const res = await two.a.app.inject({
                  method: 'POST',
                  url: `/api/admin/events/${market.id}/close`,
                  headers: bearer(admin.token),
                });
                expect(res.statusCode, res.body).toBe(200);
                open.length = 0;
              } else if (open.length > 0) {
                const target = open[s.pick % open.length] as Placed;
                if (s.kind === 'cancel') {
                  const res = await app().inject({
                    method: 'DELETE',
                    url: `/api/limit-orders/${target.id}`,
                    headers: bearer((users[target.user] as TestUser).token),
                  });
                  // A later fill may have used the order up (the list of open orders here is only a guess).
                  expect([200, 409], res.body).toContain(res.statusCode);
                  open.splice(open.indexOf(target), 1);
                } else if (s.kind === 'expire') {
                  await sql`UPDATE orders SET expires_at = now() - interval '1 second' WHERE id = ${Number(target.id)}`.execute(
                    two.db.database.db,
                  );
                  await two.a.app.jobs.runNow('expire-orders');
                  open.splice(open.indexOf(target), 1);
                } else {
                  // The same user crosses its own resting order: that order is cancelled, never filled.
                  await place({
                    kind: 'limit',
                    user: target.user,
                    side: target.side === 'YES' ? 'NO' : 'YES',
                    action: target.action,
                    qty: 3,
                    price: 100 - target.price,
                  });
                }
              }
              await waitForAgreement(follower, optionId, channel);
            }
            expect(follower.gaps).toBe(0);
          } finally {
            follower.close();
          }
        }),
        { numRuns: instances === 1 ? 12 : 8, endOnFailure: true },
      );
      await expectInvariants(two.db.database);
    });

    /** Waits until the follower has seen the book's current version; then all three views must agree. */
    async function waitForAgreement(follower: Follower, optionId: string, channel: string): Promise<void> {
      const { rows } = await sql<{
        book_version: number;
      }>`SELECT book_version FROM options WHERE id = ${Number(optionId)}`.execute(two.db.database.db);
      const version = Number(rows[0]?.book_version);
      const deadline = Date.now() + 5_000;
      while (follower.seq < version) {
        if (Date.now() > deadline)
          throw new Error(`the follower is at seq ${follower.seq}, the book at ${version}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const fresh = await freshSnapshot(url, channel);
      expect(fresh.seq).toBe(follower.seq);
      expect(sorted(follower.book)).toEqual(fresh.levels);
      for (const { app } of apps) {
        let read = (await app.inject({ url: `/api/orderbook/${optionId}` })).json();
        for (let i = 0; i < 100 && read.bookVersion !== follower.seq; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          read = (await app.inject({ url: `/api/orderbook/${optionId}` })).json();
        }
        expect(read.bookVersion).toBe(follower.seq);
        const levels = [
          ...read.yes.bids.map((l: Omit<Level, 'side'>) => ({ side: 'bid', ...l })),
          ...read.yes.asks.map((l: Omit<Level, 'side'>) => ({ side: 'ask', ...l })),
        ];
        expect(sorted(bookOf(levels))).toEqual(fresh.levels);
      }
    }
  });
}

describeMarketData(1);
describeMarketData(2);
