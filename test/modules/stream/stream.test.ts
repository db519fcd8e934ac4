import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { closeTwoInstances, createTwoInstances, type TestApp, type TestDatabase } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { StreamTestClient, streamUrl } from '../../support/stream-client.js';

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

describe('the live stream', () => {
  it('sends a book snapshot, then consecutive deltas, trades and the user’s own orders, across instances', async () => {
    const urlA = await streamUrl(a);
    const urlB = await streamUrl(b);
    const market = await createMarket(a.app, admin.token, {
      options: [{ label: 'Live', liquidityCents: 20_000 }],
    });
    const optionId = market.options[0]!.id;
    const trader = await newUser(a.app);

    // Subscriber on instance B; orders go through instance A.
    const watcher = await StreamTestClient.open(urlB);
    watcher.send({ op: 'subscribe', channel: `book:${optionId}` });
    watcher.send({ op: 'subscribe', channel: `trades:${optionId}` });
    const snapshot = await watcher.next((m) => m.type === 'snapshot');
    expect(snapshot).toMatchObject({ channel: `book:${optionId}`, seq: 0 });
    expect((snapshot.bids as { priceCents: number }[])[0]?.priceCents).toBe(49);
    expect((snapshot.asks as { priceCents: number }[])[0]?.priceCents).toBe(51);
    await watcher.next((m) => m.type === 'subscribed');

    const own = await StreamTestClient.open(`${urlA}?token=${trader.token}`);
    own.send({ op: 'subscribe', channel: 'user' });
    await own.next((m) => m.type === 'subscribed');

    expect(
      (
        await limitOrder(a.app, trader.token, {
          optionId,
          side: 'YES',
          action: 'BUY',
          quantity: 7,
          price: 30,
        })
      ).statusCode,
    ).toBe(201);
    const first = await watcher.next((m) => m.type === 'delta');
    expect(first.seq).toBe(1);
    const at30 = (levels: unknown) =>
      (
        levels as {
          side: string;
          priceCents: number;
          quantity: number;
          orders: number;
          houseQuantity: number;
        }[]
      ).find((l) => l.side === 'bid' && l.priceCents === 30);
    // The house also bids at 30: the level is the order's 7 shares plus the house quote.
    expect(at30(first.levels)).toMatchObject({ orders: 1 });
    expect(at30(first.levels)!.quantity).toBe(7 + at30(first.levels)!.houseQuantity);
    const placed = await own.next((m) => m.type === 'order');
    expect(placed.order).toMatchObject({ status: 'open', quantity: 7, priceCents: 30 });

    expect(
      (
        await marketTrade(a.app, trader.token, {
          optionId,
          side: 'YES',
          action: 'BUY',
          quantity: 5,
          price: 60,
        })
      ).statusCode,
    ).toBe(201);
    const second = await watcher.next((m) => m.type === 'delta');
    expect(second.seq).toBe(2);
    const asks = (second.levels as { side: string; houseQuantity: number }[]).filter((l) => l.side === 'ask');
    expect(asks.length).toBeGreaterThan(0);
    const tape = await watcher.next((m) => m.type === 'trades');
    expect(tape).toMatchObject({ seq: 2 });
    expect((tape.trades as { quantity: number }[]).reduce((s, t) => s + t.quantity, 0)).toBe(5);
    for (const trade of tape.trades as { id: unknown }[]) expect(trade.id).toMatch(/^[1-9][0-9]*$/);
    const fill = await own.next((m) => m.type === 'fill');
    expect(fill.fill).toMatchObject({ side: 'YES', action: 'BUY', liquidity: 'taker' });
    expect((fill.fill as { id: unknown }).id).toMatch(/^[1-9][0-9]*$/);

    // A client that missed something asks for a fresh snapshot at the current version.
    watcher.send({ op: 'resync', channel: `book:${optionId}` });
    const fresh = await watcher.next((m) => m.type === 'snapshot');
    expect(fresh.seq).toBe(2);
    expect(at30(fresh.bids)).toEqual(at30(first.levels));
    watcher.close();
    own.close();
  });

  it('refuses the user channel without credentials, bad channels and bad messages', async () => {
    const url = await streamUrl(a).catch(
      () => `ws://127.0.0.1:${(a.app.server.address() as AddressInfo).port}/api/stream`,
    );
    const anonymous = await StreamTestClient.open(url);
    anonymous.send({ op: 'subscribe', channel: 'user' });
    expect(await anonymous.next((m) => m.type === 'error')).toMatchObject({ code: 'UNAUTHENTICATED' });
    anonymous.send({ op: 'subscribe', channel: 'book:999999' });
    expect(await anonymous.next((m) => m.type === 'error')).toMatchObject({ code: 'NOT_FOUND' });
    anonymous.send({ op: 'subscribe', channel: 'weather' });
    expect(await anonymous.next((m) => m.type === 'error')).toMatchObject({ code: 'BAD_CHANNEL' });
    anonymous.socket.send('not json');
    expect(await anonymous.next((m) => m.type === 'error')).toMatchObject({ code: 'BAD_REQUEST' });
    anonymous.send({ op: 'subscribe', channel: 'x'.repeat(1000) });
    expect(await anonymous.next((m) => m.type === 'error')).toMatchObject({
      code: 'CHANNEL_TOO_LONG',
      error: 'Channel names are at most 64 characters; this one has 1000',
    });
    // A message over the documented 4 KiB closes the connection with 1009 (message too big).
    const closed = new Promise<number>((resolve) => anonymous.socket.on('close', (c) => resolve(c)));
    anonymous.send({ op: 'subscribe', channel: 'x'.repeat(5000) });
    expect(await closed).toBe(1009);

    const refused = new WebSocket(`${url}?token=pmx_live_wrong`);
    const code = await new Promise<number>((resolve) => refused.on('close', (c) => resolve(c)));
    expect(code).toBe(4401);
  });
});
