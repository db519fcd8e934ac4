import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTwoInstances, createTwoInstances, type TestApp, type TestDatabase } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { StreamTestClient, streamUrl } from '../../support/stream-client.js';

/** A small window, so that a test can go beyond it. */
const WINDOW = 6;

let db: TestDatabase;
let a: TestApp;
let b: TestApp;
let admin: TestUser;
let trader: TestUser;
let urlA: string;
let urlB: string;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances({ STREAM_WINDOW_MESSAGES: String(WINDOW) }));
  admin = await newAdmin(a.app);
  trader = await newUser(a.app);
  urlA = await streamUrl(a);
  urlB = await streamUrl(b);
});
afterAll(async () => {
  await closeTwoInstances({ db, a, b });
});

async function newOption(): Promise<string> {
  const market = await createMarket(a.app, admin.token, {
    options: [{ label: 'Resume', liquidityCents: 20_000 }],
  });
  return market.options[0]!.id;
}

/** A change of the book: a resting bid, or (`trade`) a market buy that fills. */
async function change(app: FastifyInstance, optionId: string, price: number, trade = false) {
  const order = { optionId, side: 'YES' as const, action: 'BUY' as const, quantity: 1, price };
  const res = await (trade
    ? marketTrade(app, trader.token, { ...order, price: 99 })
    : limitOrder(app, trader.token, order));
  expect(res.statusCode).toBe(201);
}

/** Every message a live subscriber of `channel` on instance A receives while `work` runs, by seq. */
async function liveDuring(channel: string, count: number, work: () => Promise<void>) {
  const live = await StreamTestClient.open(urlA);
  live.send({ op: 'subscribe', channel });
  await live.next((m) => m.type === 'snapshot' || m.type === 'subscribed');
  await work();
  const kind = channel.startsWith('book:') ? 'delta' : 'trades';
  const messages = [];
  for (let i = 0; i < count; i++) messages.push(await live.next((m) => m.type === kind));
  live.close();
  return messages;
}

describe('resuming a stream', () => {
  it('replays on another instance exactly the book and trades messages missed, then goes on live', async () => {
    const optionId = await newOption();
    const book = `book:${optionId}`;
    const trades = `trades:${optionId}`;
    const deltas = await liveDuring(book, 4, async () => {
      await change(a.app, optionId, 30);
      await change(b.app, optionId, 31, true);
      await change(a.app, optionId, 32);
      await change(b.app, optionId, 33, true);
    });

    const client = await StreamTestClient.open(urlB);
    client.send({ op: 'subscribe', channel: book, lastSeq: 1 });
    expect(await client.next((m) => m.type === 'resumed')).toEqual({
      type: 'resumed',
      channel: book,
      lastSeq: 1,
      seq: 4,
      replayed: 3,
    });
    for (const sent of deltas.slice(1)) expect(await client.next((m) => m.type === 'delta')).toEqual(sent);

    // The trades channel replays only the changes with executions.
    client.send({ op: 'subscribe', channel: trades, lastSeq: 0 });
    expect(await client.next((m) => m.type === 'resumed' && m.channel === trades)).toMatchObject({
      lastSeq: 0,
      seq: 4,
      replayed: 2,
    });
    const tape = [
      await client.next((m) => m.type === 'trades'),
      await client.next((m) => m.type === 'trades'),
    ];
    expect(tape.map((m) => m.seq)).toEqual([2, 4]);

    // Nothing missed: resumed with nothing replayed; then live.
    const caughtUp = await StreamTestClient.open(urlA);
    caughtUp.send({ op: 'subscribe', channel: book, lastSeq: 4 });
    expect(await caughtUp.next((m) => m.type === 'resumed')).toMatchObject({ seq: 4, replayed: 0 });
    await change(b.app, optionId, 34);
    expect((await caughtUp.next((m) => m.type === 'delta')).seq).toBe(5);
    expect((await client.next((m) => m.type === 'delta')).seq).toBe(5);
    expect(client.pending().filter((m) => m.type === 'snapshot' || m.type === 'gap')).toEqual([]);
    client.close();
    caughtUp.close();
  });

  it('answers a gap and a fresh snapshot when the missed messages are beyond the window', async () => {
    const optionId = await newOption();
    const book = `book:${optionId}`;
    for (let price = 20; price < 20 + WINDOW + 2; price++) await change(a.app, optionId, price);
    const version = WINDOW + 2;

    const client = await StreamTestClient.open(urlB);
    client.send({ op: 'subscribe', channel: book, lastSeq: 1 });
    const gap = await client.next((m) => m.type === 'gap');
    expect(gap).toMatchObject({ channel: book, lastSeq: 1 });
    expect(gap.reason).toContain(`the window keeps the last ${WINDOW}`);
    expect(await client.next((m) => m.type === 'snapshot')).toMatchObject({ seq: version });
    // Just inside the window: resumed.
    client.send({ op: 'subscribe', channel: book, lastSeq: version - WINDOW });
    expect(await client.next((m) => m.type === 'resumed')).toMatchObject({ replayed: WINDOW });

    // Pruned beyond the limit, the window keeps the last WINDOW changes.
    await a.app.jobs.runNow('prune-stream-window');
    const replay = await a.app.inject({
      url: `/api/stream/replay?channel=${book}&fromSeq=${version - WINDOW + 1}`,
    });
    expect(replay.statusCode).toBe(200);
    expect(replay.json().messages).toHaveLength(WINDOW);

    // A trades channel has no snapshot: the gap, then the subscription (the tape is reloaded over REST).
    client.send({ op: 'subscribe', channel: `trades:${optionId}`, lastSeq: 0 });
    expect(await client.next((m) => m.type === 'gap')).toMatchObject({ lastSeq: 0 });
    await client.next((m) => m.type === 'subscribed');
    client.close();
  });

  it('says that the other channels keep no window, and refuses a bad lastSeq', async () => {
    const client = await StreamTestClient.open(`${urlA}?token=${trader.token}`);
    client.send({ op: 'subscribe', channel: 'user', lastSeq: 3 });
    expect(await client.next((m) => m.type === 'gap')).toMatchObject({ channel: 'user', oldestSeq: null });
    await client.next((m) => m.type === 'subscribed');
    const optionId = await newOption();
    for (const lastSeq of [-1, 1.5, '2']) {
      client.send({ op: 'subscribe', channel: `book:${optionId}`, lastSeq });
      expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'BAD_REQUEST' });
    }
    client.send({ op: 'subscribe', channel: 'book:999999', lastSeq: 0 });
    expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'NOT_FOUND' });
    client.close();
  });
});

describe('GET /api/stream/replay', () => {
  it('pages through the messages the stream sent, on either instance', async () => {
    const optionId = await newOption();
    const book = `book:${optionId}`;
    const deltas = await liveDuring(book, 5, async () => {
      for (const [price, trade] of [
        [40, false],
        [41, true],
        [42, false],
        [43, false],
        [44, true],
      ] as const)
        await change(a.app, optionId, price, trade);
    });
    const first = await b.app.inject({ url: `/api/stream/replay?channel=${book}&fromSeq=2&limit=2` });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      channel: book,
      fromSeq: 2,
      latestSeq: 5,
      messages: deltas.slice(1, 3),
      nextFromSeq: 4,
    });
    const second = (
      await a.app.inject({ url: `/api/stream/replay?channel=${book}&fromSeq=4&limit=2` })
    ).json();
    expect(second).toMatchObject({ messages: deltas.slice(3), nextFromSeq: null });
    const caughtUp = (await a.app.inject({ url: `/api/stream/replay?channel=${book}&fromSeq=6` })).json();
    expect(caughtUp).toMatchObject({ messages: [], nextFromSeq: null });

    const tape = (
      await a.app.inject({ url: `/api/stream/replay?channel=trades:${optionId}&fromSeq=1` })
    ).json();
    expect(tape.messages.map((m: { type: string; seq: number }) => [m.type, m.seq])).toEqual([
      ['trades', 2],
      ['trades', 5],
    ]);
  });

  it('refuses what it cannot answer exactly', async () => {
    const optionId = await newOption();
    for (let price = 20; price < 20 + WINDOW + 1; price++) await change(a.app, optionId, price);
    const ask = (query: string) => a.app.inject({ url: `/api/stream/replay?${query}` });
    const gone = await ask(`channel=book:${optionId}&fromSeq=1`);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({
      code: 'SEQ_OUTSIDE_WINDOW',
      details: { fromSeq: 1, latestSeq: WINDOW + 1 },
    });
    expect((await ask(`channel=book:${optionId}&fromSeq=${WINDOW + 3}`)).statusCode).toBe(400);
    expect((await ask(`channel=user&fromSeq=1`)).statusCode).toBe(400);
    expect((await ask(`channel=book:${optionId}&fromSeq=0`)).statusCode).toBe(400);
    expect((await ask(`channel=book:${optionId}&fromSeq=2&limit=1001`)).statusCode).toBe(400);
    expect((await ask('channel=book:999999&fromSeq=1')).statusCode).toBe(404);
  });
});
