import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  closeTwoInstances,
  createTwoInstances,
  expectInvariants,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { balanceOf, createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { Follower, freshSnapshot, sorted } from '../../support/follower.js';

/**
 * Exclusive events through the HTTP app, on one instance and on two sharing a database: one house maker whose quotes
 * move in every option, conversions through the ledger, resolution with one winner, settlement.
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
  await expectInvariants(db.database);
  await closeTwoInstances({ db, a, b });
});

interface OptionRead {
  id: string;
  label: string;
  probabilityBps: number;
  yesPriceCents: number;
}
interface EventRead {
  id: string;
  slug: string;
  exclusive: boolean;
  houseLiquidityCents: number | null;
  status: string;
  options: OptionRead[];
}

let counter = 0;

async function createExclusive(
  app: FastifyInstance,
  fields: { labels?: string[]; liquidityCents?: number; prices?: number[] } = {},
): Promise<EventRead> {
  counter += 1;
  const labels = fields.labels ?? ['India', 'Australia', 'Any other team'];
  const res = await app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(admin.token),
    payload: {
      title: `Who wins the cup ${counter} ${Date.now()}`,
      category: 'cricket',
      closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      exclusive: true,
      liquidityCents: fields.liquidityCents ?? 50_000,
      options: labels.map((label, i) => ({
        label,
        ...(fields.prices ? { initialPriceCents: fields.prices[i] } : {}),
      })),
      open: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function readEvent(app: FastifyInstance, slug: string): Promise<EventRead> {
  return (await app.inject({ url: `/api/events/${slug}` })).json();
}

async function book(app: FastifyInstance, optionId: string) {
  return (await app.inject({ url: `/api/orderbook/${optionId}` })).json() as {
    bookVersion: number;
    exclusive: boolean;
    yes: { bids: { priceCents: number }[]; asks: { priceCents: number }[] };
  };
}

const total = (event: EventRead) => event.options.reduce((sum, o) => sum + o.probabilityBps, 0);

function convert(app: FastifyInstance, token: string, eventId: string, body: object, key?: string) {
  return app.inject({
    method: 'POST',
    url: `/api/events/${eventId}/conversions`,
    headers: { ...bearer(token), ...(key ? { 'idempotency-key': key } : {}) },
    payload: body,
  });
}

async function shares(app: FastifyInstance, token: string) {
  const res = (await app.inject({ url: '/api/positions', headers: bearer(token) })).json() as {
    data: { optionId: string; side: string; quantity: number }[];
  };
  const held = new Map<string, number>();
  for (const p of res.data) held.set(`${p.optionId}:${p.side}`, p.quantity);
  return held;
}

describe('an exclusive event', () => {
  it('is one market: a buy in one option moves the house quotes of all, in the same commit, and the stream follows', async () => {
    const event = await createExclusive(a.app, { prices: [50, 40, 10] });
    expect(event).toMatchObject({ exclusive: true, houseLiquidityCents: 50_000 });
    expect(total(event)).toBe(10_000);
    expect(event.options.map((o) => Math.round(o.probabilityBps / 100))).toEqual([50, 40, 10]);

    await a.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `ws://127.0.0.1:${(a.app.server.address() as AddressInfo).port}/api/stream`;
    const followers = await Promise.all(event.options.map((o) => Follower.open(url, `book:${o.id}`)));
    const snapshot = await new Promise<Record<string, unknown>>((resolve) => {
      const socket = new WebSocket(url);
      socket.once('open', () =>
        socket.send(JSON.stringify({ op: 'subscribe', channel: `book:${event.options[1]!.id}` })),
      );
      socket.on('message', (raw) => {
        const message = JSON.parse(String(raw));
        if (message.type === 'snapshot') {
          socket.close();
          resolve(message);
        }
      });
    });
    expect(snapshot).toMatchObject({ exclusive: true, eventId: event.id });
    const before = await Promise.all(event.options.map((o) => book(b.app, o.id)));

    const trader = await newUser(b.app);
    for (let i = 0; i < 3; i++) {
      const res = await marketTrade(b.app, trader.token, {
        optionId: event.options[0]!.id,
        side: 'YES',
        action: 'BUY',
        quantity: 300,
        price: 95,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const after = await Promise.all(event.options.map((o) => book(a.app, o.id)));
    after.forEach((read, i) => {
      expect(read.exclusive).toBe(true);
      expect(read.bookVersion).toBe((before[i]?.bookVersion ?? 0) + 3);
    });
    // India's house ask rose; the other options' fell: their chances still add up.
    expect(after[0]!.yes.asks[0]!.priceCents).toBeGreaterThan(before[0]!.yes.asks[0]!.priceCents);
    for (const i of [1, 2])
      expect(after[i]!.yes.asks[0]!.priceCents).toBeLessThan(before[i]!.yes.asks[0]!.priceCents);
    const read = await readEvent(a.app, event.slug);
    expect(total(read)).toBe(10_000);
    expect(read.options[0]!.probabilityBps).toBeGreaterThan(6_000);
    const bestBids = after.reduce((sum, r) => sum + (r.yes.bids[0]?.priceCents ?? 0), 0);
    const bestAsks = after.reduce((sum, r) => sum + (r.yes.asks[0]?.priceCents ?? 100), 0);
    expect(bestBids).toBeLessThanOrEqual(100);
    expect(bestAsks).toBeGreaterThanOrEqual(100);

    for (const [i, follower] of followers.entries()) {
      const optionId = event.options[i]!.id;
      for (let wait = 0; follower.seq < after[i]!.bookVersion && wait < 100; wait++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(follower.seq).toBe(after[i]!.bookVersion);
      expect(follower.gaps).toBe(0);
      expect(sorted(follower.book)).toEqual((await freshSnapshot(url, `book:${optionId}`)).levels);
      follower.close();
    }
  });

  it('converts NO into YES on every other option, splits cash and merges sets, idempotently, through the ledger', async () => {
    const event = await createExclusive(a.app);
    const [india, australia, other] = event.options as [OptionRead, OptionRead, OptionRead];
    const trader = await newUser(a.app);
    const start = (await balanceOf(a.app, trader.token)).cashCents;

    const split = await convert(a.app, trader.token, event.id, { type: 'split', quantity: 10 }, 'split-1');
    expect(split.statusCode, split.body).toBe(201);
    expect(split.json()).toMatchObject({
      type: 'split',
      quantity: 10,
      cashCents: -1_000,
      eventSlug: event.slug,
    });
    const again = await convert(a.app, trader.token, event.id, { type: 'split', quantity: 10 }, 'split-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(split.json());
    const changed = await convert(a.app, trader.token, event.id, { type: 'split', quantity: 11 }, 'split-1');
    expect(changed.statusCode).toBe(409);
    expect(changed.json().code).toBe('IDEMPOTENCY_MISMATCH');
    expect((await balanceOf(a.app, trader.token)).cashCents).toBe(start - 1_000);
    let held = await shares(a.app, trader.token);
    for (const o of event.options) expect(held.get(`${o.id}:YES`)).toBe(10);

    const merge = await convert(b.app, trader.token, event.id, { type: 'merge', quantity: 4 });
    expect(merge.statusCode, merge.body).toBe(201);
    expect(merge.json().cashCents).toBe(400);
    expect((await balanceOf(a.app, trader.token)).cashCents).toBe(start - 600);

    // NO on India and on Australia, then converted: YES on the others plus 100 cents a unit.
    const buyNo = async (optionId: string) =>
      (
        await marketTrade(a.app, trader.token, {
          optionId,
          side: 'NO',
          action: 'BUY',
          quantity: 20,
          price: 99,
        })
      ).json() as { filledQuantity: number; trades: { priceCents: number; quantity: number }[] };
    const noIndia = await buyNo(india.id);
    const noAustralia = await buyNo(australia.id);
    expect(noIndia.filledQuantity).toBe(20);
    expect(noAustralia.filledQuantity).toBe(20);
    const cashBefore = (await balanceOf(a.app, trader.token)).cashCents;
    const converted = await convert(b.app, trader.token, event.id, {
      type: 'convert',
      quantity: 20,
      optionIds: [india.id, australia.id],
    });
    expect(converted.statusCode, converted.body).toBe(201);
    expect(converted.json()).toMatchObject({
      type: 'convert',
      cashCents: 2_000,
      optionIds: [india.id, australia.id],
    });
    expect((await balanceOf(a.app, trader.token)).cashCents).toBe(cashBefore + 2_000);
    held = await shares(a.app, trader.token);
    expect(held.get(`${india.id}:NO`) ?? 0).toBe(0);
    expect(held.get(`${australia.id}:NO`) ?? 0).toBe(0);
    expect(held.get(`${other.id}:YES`)).toBe(6 + 20);
    const listed = (
      await a.app.inject({ url: `/api/conversions?eventSlug=${event.slug}`, headers: bearer(trader.token) })
    ).json();
    expect(listed.data.map((c: { type: string }) => c.type)).toEqual(['convert', 'merge', 'split']);
    await expectInvariants(db.database);
  });

  it('counts conversions in the portfolio history: before one, its shares were not held', async () => {
    const event = await createExclusive(a.app, { prices: [50, 30, 20] });
    const [trader, marker] = await Promise.all([newUser(a.app), newUser(a.app)]);
    // Each option traded an hour ago, so it has a mark all along.
    for (const option of event.options)
      await marketTrade(a.app, marker.token, {
        optionId: option.id,
        side: 'YES',
        action: 'BUY',
        quantity: 1,
        price: 99,
      });
    const ids = event.options.map((o) => Number(o.id));
    await sql`UPDATE candles SET bucket = bucket - interval '1 hour'
      WHERE option_id = ANY(${ids}::bigint[]) AND interval IN ('1m', '1h')`.execute(db.database.db);
    const split = await convert(a.app, trader.token, event.id, { type: 'split', quantity: 10 });
    expect(split.statusCode).toBe(201);
    // The account opened (with its starting credit) two hours ago, the split half an hour ago.
    await sql`UPDATE users SET created_at = now() - interval '2 hours' WHERE id = ${Number(trader.id)}`.execute(
      db.database.db,
    );
    await sql`UPDATE journal_entries SET created_at = now() - interval '2 hours' WHERE id IN (
      SELECT p.entry_id FROM postings p JOIN ledger_accounts a ON a.id = p.account_id
      WHERE a.user_id = ${Number(trader.id)})`.execute(db.database.db);
    await sql`UPDATE conversions SET created_at = now() - interval '30 minutes' WHERE id = ${Number(split.json().id)}`.execute(
      db.database.db,
    );
    await sql`UPDATE journal_entries SET created_at = now() - interval '30 minutes'
      WHERE ref_type = 'conversion' AND ref_id = ${Number(split.json().id)}`.execute(db.database.db);
    const history = (
      await a.app.inject({ url: '/api/me/portfolio-history?range=1d', headers: bearer(trader.token) })
    ).json() as { data: { t: string; cashCents: number; positionsValueCents: number }[] };
    const splitAt = Date.now() - 30 * 60_000;
    const before = history.data.filter((p) => Date.parse(p.t) < splitAt - 60_000);
    const after = history.data.filter((p) => Date.parse(p.t) > splitAt + 60_000);
    expect(before.length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(3);
    const marked = before.filter((p) => Date.parse(p.t) > Date.now() - 55 * 60_000);
    expect(marked.length).toBeGreaterThan(3);
    for (const point of before) expect(point).toMatchObject({ cashCents: 100_000, positionsValueCents: 0 });
    for (const point of after) {
      expect(point.cashCents).toBe(99_000);
      expect(point.positionsValueCents).toBeGreaterThan(0);
    }
  });

  it('refuses conversions that cannot be made, with their reason', async () => {
    const event = await createExclusive(a.app);
    const independent = await createMarket(a.app, admin.token, { options: [{ label: 'Yes' }] });
    const trader = await newUser(a.app);
    const codeOf = async (eventId: string, body: object) => {
      const res = await convert(a.app, trader.token, eventId, body);
      return [res.statusCode, res.json().code];
    };
    const india = event.options[0]!.id;
    expect(await codeOf(independent.id, { type: 'split', quantity: 1 })).toEqual([
      409,
      'EVENT_NOT_EXCLUSIVE',
    ]);
    expect(await codeOf('999999', { type: 'split', quantity: 1 })).toEqual([404, 'NOT_FOUND']);
    expect(await codeOf(event.id, { type: 'convert', quantity: 1 })).toEqual([400, 'VALIDATION_FAILED']);
    expect(
      await codeOf(event.id, { type: 'convert', quantity: 1, optionIds: [independent.options[0]!.id] }),
    ).toEqual([400, 'VALIDATION_FAILED']);
    expect(await codeOf(event.id, { type: 'convert', quantity: 1, optionIds: [india, india] })).toEqual([
      400,
      'VALIDATION_FAILED',
    ]);
    expect(await codeOf(event.id, { type: 'convert', quantity: 5, optionIds: [india] })).toEqual([
      409,
      'INSUFFICIENT_SHARES',
    ]);
    expect(await codeOf(event.id, { type: 'merge', quantity: 1 })).toEqual([409, 'INSUFFICIENT_SHARES']);
    expect(await codeOf(event.id, { type: 'split', quantity: 1_000_000 })).toEqual([
      402,
      'INSUFFICIENT_FUNDS',
    ]);
    expect(await codeOf(event.id, { type: 'swap', quantity: 1 })).toEqual([400, 'VALIDATION_FAILED']);
    // A share held by an open SELL order cannot be converted.
    await convert(a.app, trader.token, event.id, { type: 'split', quantity: 3 });
    await limitOrder(a.app, trader.token, {
      optionId: india,
      side: 'YES',
      action: 'SELL',
      quantity: 3,
      price: 99,
    });
    expect(await codeOf(event.id, { type: 'merge', quantity: 1 })).toEqual([409, 'INSUFFICIENT_SHARES']);
  });

  it('resolves with exactly one option YES, or every option VOID, and settlement pays one winner', async () => {
    const event = await createExclusive(a.app);
    const [india, , other] = event.options as [OptionRead, OptionRead, OptionRead];
    const [fan, doubter] = await Promise.all([newUser(a.app), newUser(b.app)]);
    await marketTrade(a.app, fan.token, {
      optionId: india.id,
      side: 'YES',
      action: 'BUY',
      quantity: 30,
      price: 90,
    });
    await marketTrade(b.app, doubter.token, {
      optionId: india.id,
      side: 'NO',
      action: 'BUY',
      quantity: 30,
      price: 90,
    });
    await convert(b.app, doubter.token, event.id, { type: 'convert', quantity: 10, optionIds: [india.id] });
    await convert(a.app, fan.token, event.id, { type: 'split', quantity: 5 });

    const resolve = (outcomes: string[]) =>
      a.app.inject({
        method: 'POST',
        url: `/api/admin/events/${event.id}/resolve`,
        headers: bearer(admin.token),
        payload: { outcomes: event.options.map((o, i) => ({ optionId: o.id, outcome: outcomes[i] })) },
      });
    for (const wrong of [
      ['YES', 'YES', 'NO'],
      ['NO', 'NO', 'NO'],
      ['YES', 'VOID', 'NO'],
      ['VOID', 'VOID', 'NO'],
    ]) {
      const res = await resolve(wrong);
      expect(res.statusCode, wrong.join()).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await resolve(['NO', 'YES', 'NO'])).statusCode).toBe(200);
    const cash = (await Promise.all([balanceOf(a.app, fan.token), balanceOf(a.app, doubter.token)])).map(
      (b) => b.cashCents,
    );
    const settled = await a.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/settle`,
      headers: bearer(admin.token),
    });
    expect(settled.statusCode, settled.body).toBe(200);
    // The fan: 5 YES of Australia from the split pay 100 each. The doubter: 20 NO of India and 10 YES of Australia.
    expect((await balanceOf(a.app, fan.token)).cashCents).toBe((cash[0] as number) + 500);
    expect((await balanceOf(a.app, doubter.token)).cashCents).toBe((cash[1] as number) + 20 * 100 + 10 * 100);
    expect(other.label).toBe('Any other team');
    await expectInvariants(db.database);
  });

  it('voided, pays a split back what it cost (a complete set 100), and its preview counts the conversion pool', async () => {
    const event = await createExclusive(a.app, { labels: ['A', 'B', 'C'], liquidityCents: 20_000 });
    const splitter = await newUser(a.app);
    const before = (await balanceOf(a.app, splitter.token)).cashCents;
    await convert(a.app, splitter.token, event.id, { type: 'split', quantity: 10 });
    const resolved = await a.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/resolve`,
      headers: bearer(admin.token),
      payload: { outcomes: event.options.map((o) => ({ optionId: o.id, outcome: 'VOID' })) },
    });
    expect(resolved.statusCode, resolved.body).toBe(200);
    const preview = await a.app.inject({
      url: `/api/admin/events/${event.id}/settlement-preview`,
      headers: bearer(admin.token),
    });
    expect(preview.statusCode, preview.body).toBe(200);
    // The splitter's 10 complete sets pay 1,000 (34 + 33 + 33 a set), and the pool's 10 NO sets pay it the rest
    // of the escrow the split put in: 3 × 1,000 − 1,000.
    expect(preview.json()).toMatchObject({ payoutCents: 1_000, housePayoutCents: 2_000 });
    const settled = await a.app.inject({
      method: 'POST',
      url: `/api/admin/events/${event.id}/settle`,
      headers: bearer(admin.token),
    });
    expect(settled.statusCode, settled.body).toBe(200);
    expect((await balanceOf(a.app, splitter.token)).cashCents).toBe(before);
    await expectInvariants(db.database);
  });

  it('keeps every invariant while two instances trade and convert in it at once', async () => {
    const event = await createExclusive(a.app, { labels: ['A', 'B', 'C', 'D'], liquidityCents: 20_000 });
    const users = await Promise.all([1, 2, 3, 4].map((i) => newUser(i % 2 ? a.app : b.app)));
    const requests = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, user] of users.entries()) {
        const app = (round + i) % 2 ? a.app : b.app;
        const option = event.options[(round + i) % 4]!.id;
        requests.push(
          marketTrade(app, user.token, {
            optionId: option,
            side: i % 2 ? 'NO' : 'YES',
            action: 'BUY',
            quantity: 7,
            price: 95,
          }),
          limitOrder(app, user.token, {
            optionId: option,
            side: 'YES',
            action: 'BUY',
            quantity: 3,
            price: 20 + round,
          }),
          convert(app, user.token, event.id, { type: 'split', quantity: 2 }),
          convert(app, user.token, event.id, { type: 'merge', quantity: 1 }),
          convert(app, user.token, event.id, { type: 'convert', quantity: 1, optionIds: [option] }),
        );
      }
    }
    const answers = await Promise.all(requests);
    for (const res of answers) expect([201, 402, 409], res.body).toContain(res.statusCode);
    expect(answers.filter((res) => res.statusCode === 201).length).toBeGreaterThan(requests.length / 2);
    expect(total(await readEvent(b.app, event.slug))).toBe(10_000);
    await expectInvariants(db.database);
  });
});
