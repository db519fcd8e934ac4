import { spawn } from 'node:child_process';
import {
  AuthenticationError,
  BadSymbol,
  InsufficientFunds,
  MarketClosed,
  OnMaintenance,
  OrderImmediatelyFillable,
  OrderNotFillable,
  OrderNotFound,
  type PredictionOrderBook,
} from 'ccxt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pmx from '../../clients/ccxt/src/index.js';
import { expectInvariants } from '../support/app.js';
import { bearer, newUser } from '../support/factories.js';
import { type LiveService, startLiveService } from './live-service.js';

/**
 * The CCXT class against the service listening on a real port: every method of its `has` map is called at least
 * once and its answer checked, the error codes raise the CCXT exceptions they map to, and the watch methods follow
 * the stream. Every answer is checked against the contract.
 */
let live: LiveService;
let trader: pmx;
let maker: pmx;
const called = new Set<string>();

/** A client that records which of its methods were called, to check the `has` map is covered. */
function exchangeFor(apiKey: string): pmx {
  const exchange = new pmx({ apiKey, urls: { api: { rest: live.baseUrl } }, enableRateLimit: false });
  const methods = exchange as unknown as Record<string, unknown>;
  for (const [name, supported] of Object.entries(exchange.has)) {
    const method = methods[name];
    if (supported !== true || typeof method !== 'function') continue;
    methods[name] = (...args: unknown[]) => {
      called.add(name);
      return (method as (...a: unknown[]) => unknown).apply(exchange, args);
    };
  }
  return exchange;
}

async function apiKeyOf(): Promise<string> {
  const user = await newUser(live.t.app);
  const res = await live.t.app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(user.token),
    payload: { name: 'ccxt' },
  });
  return res.json().key;
}

async function admin(method: 'POST' | 'PUT', url: string, payload?: object) {
  const res = await live.t.app.inject({ method, url, headers: bearer(live.admin.token), payload });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

async function newEvent(fields: object = {}) {
  return admin('POST', '/api/admin/events', {
    title: `CCXT market ${Date.now()} ${Math.random()}`,
    category: 'cricket',
    closesAt: new Date(Date.now() + 86_400_000).toISOString(),
    options: [{ label: 'Yes', liquidityCents: 20_000 }],
    open: true,
    ...fields,
  });
}

/** Watches until `ready` holds (each call resolves on the next change), at most a few seconds. */
async function watchUntil<T>(
  watch: () => Promise<T>,
  ready: (value: T) => boolean,
  act?: () => Promise<unknown>,
) {
  const first = watch();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await act?.();
  const deadline = Date.now() + 10_000;
  let value = await first;
  while (!ready(value)) {
    if (Date.now() > deadline) throw new Error(`never ready: ${JSON.stringify(value).slice(0, 500)}`);
    value = await watch();
  }
  return value;
}

beforeAll(async () => {
  live = await startLiveService({ TAKER_FEE_BPS: '100' });
  trader = exchangeFor(await apiKeyOf());
  maker = exchangeFor(await apiKeyOf());
});
afterAll(async () => {
  await trader?.close();
  await maker?.close();
  if (!live) return;
  await expectInvariants(live.t.database);
  await live.t.close();
});

describe('the CCXT class: events, markets and outcomes', () => {
  it('reads events, markets, outcomes and tickers the CCXT way', async () => {
    const plain = await newEvent();
    const exclusive = await newEvent({
      options: [{ label: 'India' }, { label: 'Australia' }],
      exclusive: true,
      liquidityCents: 10_000,
    });
    const events = await trader.fetchEvents();
    const listed = events.find((event) => event.id === exclusive.id);
    expect(listed).toMatchObject({ slug: exclusive.slug, mutuallyExclusive: true, active: true });
    expect(listed?.markets.map((market) => market.outcomes.map((o) => o.label))).toEqual([
      ['YES', 'NO'],
      ['YES', 'NO'],
    ]);
    const [yes, no] = listed?.markets[0]?.outcomes ?? [];
    expect((yes?.price ?? 0) + (no?.price ?? 0)).toBeCloseTo(1, 6);
    expect((await trader.fetchEvent(plain.id)).slug).toBe(plain.slug);
    expect((await trader.fetchEvent(plain.slug)).id).toBe(plain.id);
    const markets = await trader.loadMarkets(true);
    expect(Object.values(markets).some((market) => market?.id === plain.options[0].id)).toBe(true);

    const cold = exchangeFor(await apiKeyOf());
    const outcome = await cold.fetchOutcome(`${plain.options[0].id}-NO`);
    expect(outcome).toMatchObject({ label: 'NO', outcomeId: `${plain.options[0].id}-NO` });
    await cold.close();

    const handle = listed?.markets[1]?.outcomes[0]?.outcome as string;
    const all = await trader.fetchTickers();
    expect(Object.values(all).filter((t) => t.outcomeId?.startsWith(`${plain.options[0].id}-`))).toHaveLength(
      2,
    );
    const some = await trader.fetchTickers([handle, `${plain.options[0].id}-YES`]);
    expect(Object.keys(some)).toHaveLength(2);
    const ticker = await trader.fetchTicker(`${plain.options[0].id}-YES`);
    const noTicker = await trader.fetchTicker(`${plain.options[0].id}-NO`);
    expect(ticker.ask).toBeCloseTo(1 - (noTicker.bid as number), 6);
    expect(ticker.askVolume).toBe(noTicker.bidVolume);
    expect((await trader.fetchOpenInterest(handle)).openInterestAmount).toBe(0);
  });
});

describe('the CCXT class: trading', () => {
  it('places orders, reads them back, and follows them into positions, trades and candles', async () => {
    const event = await newEvent();
    const optionId = event.options[0].id as string;
    const yes = `${optionId}-YES`;
    const no = `${optionId}-NO`;
    const book = await trader.fetchOrderBook(yes);
    const noBook = await trader.fetchOrderBook(no);
    expect(noBook.bids[0]?.[0]).toBeCloseTo(1 - (book.asks[0]?.[0] as number), 6);

    const bought = await trader.createOrder(yes, 'market', 'buy', 30);
    expect(bought).toMatchObject({
      type: 'market',
      side: 'buy',
      filled: 30,
      status: 'closed',
      outcomeId: yes,
    });
    expect(bought.fee?.cost).toBeGreaterThan(0);
    expect(bought.average).toBeCloseTo((bought.cost as number) / 30, 6);
    const tape = await trader.fetchTrades(yes);
    expect(tape.reduce((sum, t) => sum + (t.amount as number), 0)).toBe(30);
    expect(tape.every((t) => t.side === 'buy')).toBe(true);
    expect((await trader.fetchTrades(no)).every((t) => t.side === 'sell')).toBe(true);
    for (const timeframe of Object.keys(trader.timeframes)) {
      const candles = await trader.fetchOHLCV(yes, timeframe);
      expect(candles.reduce((sum, c) => sum + (c[5] as number), 0)).toBe(30);
    }
    const [candle] = await trader.fetchOHLCV(no, '1d');
    const [yesCandle] = await trader.fetchOHLCV(yes, '1d');
    expect(candle?.[2]).toBeCloseTo(1 - (yesCandle?.[3] as number), 6);

    const mine = await trader.fetchMyTrades(yes);
    expect(mine.reduce((sum, t) => sum + (t.amount as number), 0)).toBe(30);
    expect((await trader.fetchOrderTrades(bought.id as string)).map((t) => t.order)).toContain(bought.id);
    expect((await trader.fetchOrder(bought.id as string)).filled).toBe(30);
    const position = await trader.fetchPosition(yes);
    expect(position).toMatchObject({ contracts: 30, side: 'long', outcomeId: yes });
    expect((await trader.fetchPositions()).map((p) => p.outcomeId)).toContain(yes);
    const balance = await trader.fetchBalance();
    expect(balance.USD?.total).toBeCloseTo(1000 - (bought.cost as number) - (bought.fee?.cost as number), 6);
    expect((await trader.fetchTradingFee(yes)).taker).toBe(0.01);
  });

  it('pages through every position with the cursor', async () => {
    const key = await apiKeyOf();
    const pager = exchangeFor(key);
    const event = await newEvent({
      options: [
        { label: 'A', liquidityCents: 20_000 },
        { label: 'B', liquidityCents: 20_000 },
      ],
    });
    const outcomes = [
      `${event.options[0].id}-YES`,
      `${event.options[0].id}-NO`,
      `${event.options[1].id}-YES`,
    ];
    for (const outcome of outcomes) await pager.createOrder(outcome, 'market', 'buy', 5);
    const held = await live.t.app.inject({ url: '/api/positions', headers: bearer(key) });
    expect(held.json().data).toHaveLength(3);
    const asked: Record<string, unknown>[] = [];
    const request = pager.request.bind(pager);
    pager.request = (path, api, method, params, ...rest) => {
      if (path === 'positions') asked.push({ ...(params as Record<string, unknown>) });
      return request(path, api, method, params, ...rest);
    };
    pager.options.positionsPerPage = 1;
    const positions = await pager.fetchPositions();
    expect(positions.map((p) => p.info.id)).toEqual(held.json().data.map((p: { id: string }) => p.id));
    expect(asked).toHaveLength(3);
    expect(asked.map((params) => params.limit)).toEqual([1, 1, 1]);
    expect(asked.slice(1).every((params) => typeof params.cursor === 'string')).toBe(true);
    const balance = await pager.fetchBalance();
    expect(balance.info).toEqual(held.json().summary);
    await pager.close();
  });

  it('places a batch seen in the book, amends in place or by replacement, and cancels all of it', async () => {
    const event = await newEvent({ options: [{ label: 'Yes', liquidityCents: 0 }] });
    const yes = `${event.options[0].id}-YES`;
    const placed = await maker.createOrders([
      { outcome: yes, type: 'limit', side: 'buy', amount: 10, price: 0.2 },
      { outcome: yes, type: 'limit', side: 'buy', amount: 10, price: 0.21 },
      { outcome: yes, type: 'limit', side: 'buy', amount: 10, price: 0.22, params: { postOnly: true } },
    ]);
    expect(placed.map((order) => order.status)).toEqual(['open', 'open', 'open']);
    expect((await maker.fetchOrderBook(yes)).bids).toEqual([
      [0.22, 10],
      [0.21, 10],
      [0.2, 10],
    ]);
    const [first, second, third] = placed.map((order) => order.id as string);
    const shrunk = await maker.editOrder(first as string, yes, 'limit', 'buy', 4);
    expect(shrunk.id).toBe(first);
    expect(shrunk.info.priorityKept).toBe(true);
    const moved = await maker.editOrder(second as string, yes, 'limit', 'buy', undefined, 0.25);
    expect(moved.id).not.toBe(second);
    expect(moved.info.replacesOrderId).toBe(second);
    expect((await maker.fetchOpenOrders(yes)).map((o) => o.id).sort()).toEqual(
      [first, third, moved.id].sort(),
    );

    const cancelled = await maker.cancelOrder(third as string);
    expect(cancelled.status).toBe('canceled');
    expect((await maker.cancelOrders([first as string])).map((o) => o.status)).toEqual(['canceled']);
    const another = await maker.createOrder(yes, 'limit', 'buy', 5, 0.1);
    const all = await maker.cancelAllOrders();
    expect(all.map((o) => o.id).sort()).toEqual([moved.id, another.id].sort());
    expect((await maker.fetchOrderBook(yes)).bids).toEqual([]);
    expect(await maker.fetchOpenOrders()).toEqual([]);
    expect((await maker.fetchClosedOrders(yes)).length).toBeGreaterThanOrEqual(5);
    expect((await maker.fetchOrders(yes)).every((o) => o.status === 'canceled')).toBe(true);
  });

  it('lists what a settled market paid', async () => {
    const event = await newEvent();
    const yes = `${event.options[0].id}-YES`;
    await trader.createOrder(yes, 'market', 'buy', 10);
    await admin('POST', `/api/admin/events/${event.id}/close`);
    await admin('POST', `/api/admin/events/${event.id}/resolve`, {
      outcomes: [{ optionId: event.options[0].id, outcome: 'YES' }],
    });
    await admin('POST', `/api/admin/events/${event.id}/settle`);
    const [settlement] = await trader.fetchSettlements(yes);
    expect(settlement).toMatchObject({ outcomeId: yes, result: 'YES', won: true, amount: 10, payout: 10 });
  });
});

describe('the CCXT class: errors', () => {
  it('raises the CCXT exception each error code maps to', async () => {
    const event = await newEvent({ options: [{ label: 'Yes', liquidityCents: 0 }] });
    const yes = `${event.options[0].id}-YES`;
    const no = `${event.options[0].id}-NO`;
    await expect(trader.createOrder(yes, 'limit', 'buy', 1_000_000, 0.99)).rejects.toThrow(InsufficientFunds);
    await expect(trader.createOrder(yes, 'limit', 'sell', 5, 0.5)).rejects.toThrow(InsufficientFunds);
    await expect(trader.createOrder(yes, 'limit', 'buy', 5, 0.6, { timeInForce: 'FOK' })).rejects.toThrow(
      OrderNotFillable,
    );
    await expect(trader.createOrder(yes, 'market', 'buy', 5)).rejects.toThrow(OrderNotFillable);
    const resting = await maker.createOrder(yes, 'limit', 'buy', 5, 0.4, { timeInForce: 'PO' });
    expect(resting.postOnly).toBe(true);
    await expect(trader.createOrder(no, 'limit', 'buy', 5, 0.6, { postOnly: true })).rejects.toThrow(
      OrderImmediatelyFillable,
    );
    await maker.cancelOrder(resting.id as string);
    await expect(maker.cancelOrder(resting.id as string)).rejects.toThrow(OrderNotFound);
    await expect(trader.fetchOrder(resting.id as string)).rejects.toThrow(OrderNotFound);
    await expect(trader.fetchTicker('987654321-YES')).rejects.toThrow(BadSymbol);
    const stranger = exchangeFor('pmx_live_not_a_key');
    await expect(stranger.fetchBalance()).rejects.toThrow(AuthenticationError);

    await admin('PUT', '/api/admin/status', { status: 'maintenance', message: 'upgrade' });
    expect((await trader.fetchStatus()).status).toBe('maintenance');
    await expect(trader.createOrder(yes, 'limit', 'buy', 1, 0.3)).rejects.toThrow(OnMaintenance);
    await admin('PUT', '/api/admin/status', { status: 'trading' });
    expect((await trader.fetchStatus()).status).toBe('ok');
    await admin('POST', `/api/admin/events/${event.id}/close`);
    await expect(trader.createOrder(yes, 'limit', 'buy', 1, 0.3)).rejects.toThrow(MarketClosed);
    expect(Math.abs(((await trader.fetchTime()) as number) - Date.now())).toBeLessThan(60_000);
  });
});

describe('the CCXT class: the stream', () => {
  it('watches the order book, the trades and its own orders', async () => {
    const event = await newEvent({ options: [{ label: 'Yes', liquidityCents: 0 }] });
    const yes = `${event.options[0].id}-YES`;
    const no = `${event.options[0].id}-NO`;
    const book = await watchUntil(
      () => trader.watchOrderBook(yes),
      (b: PredictionOrderBook) => b.bids.length > 0,
      () => maker.createOrder(yes, 'limit', 'buy', 7, 0.35),
    );
    expect(book.bids[0]).toEqual([0.35, 7]);
    // The NO outcome's book is the same ladder turned over; it moves with the trade below.
    const noBook = trader.watchOrderBook(no);

    const trades = await watchUntil(
      () => trader.watchTrades(yes),
      (t) => t.length > 0,
      () => trader.createOrder(no, 'market', 'buy', 3),
    );
    expect(trades[0]).toMatchObject({ price: 0.35, amount: 3, side: 'sell' });
    expect((await noBook).asks[0]).toEqual([0.65, 4]);

    const orders = await watchUntil(
      () => maker.watchOrders(),
      (o) => o.some((order) => order.status === 'canceled'),
      () => maker.cancelAllOrders(),
    );
    expect(orders.find((order) => order.status === 'canceled')).toMatchObject({
      outcomeId: yes,
      side: 'buy',
    });
  });
});

describe('the CCXT class: a reconnection', () => {
  it('resumes the book it holds with the deltas missed, without a fresh snapshot', async () => {
    const event = await newEvent({ options: [{ label: 'Yes', liquidityCents: 0 }] });
    const yes = `${event.options[0].id}-YES`;
    const follower = exchangeFor(await apiKeyOf());
    const received: unknown[] = [];
    const handle = follower.handleMessage.bind(follower);
    follower.handleMessage = (client, message) => {
      received.push(message.type);
      handle(client, message);
    };
    await watchUntil(
      () => follower.watchOrderBook(yes),
      (b: PredictionOrderBook) => b.bids.length > 0,
      () => maker.createOrder(yes, 'limit', 'buy', 2, 0.3),
    );
    await follower.close();
    await maker.createOrder(yes, 'limit', 'buy', 3, 0.31);
    received.length = 0;
    const book = await watchUntil(
      () => follower.watchOrderBook(yes),
      (b: PredictionOrderBook) => b.bids[0]?.[0] === 0.31,
    );
    expect(book.bids.slice(0, 2)).toEqual([
      [0.31, 3],
      [0.3, 2],
    ]);
    expect(received).toContain('resumed');
    expect(received).not.toContain('snapshot');
    await follower.close();
  });
});

describe('the CCXT example strategy', () => {
  it('runs against the exchange with nothing but the constructed exchange changed', async () => {
    const event = await newEvent();
    const yes = `${event.options[0].id}-YES`;
    await trader.createOrder(yes, 'market', 'buy', 20);
    const key = await apiKeyOf();
    const child = spawn(process.execPath, ['--import', 'tsx', 'clients/ccxt/examples/mean-reversion.ts'], {
      // A negative edge: whatever the price, it buys.
      env: {
        ...process.env,
        PMX_URL: live.baseUrl,
        PMX_API_KEY: key,
        OUTCOME: yes,
        CYCLES: '1',
        EDGE: '-1',
        SIZE: '5',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, output).toBe(0);
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ event: 'start', venue: 'pmx', outcome: yes, cash: 1000 });
    // An IOC at the best ask gets what is offered there, at most its size.
    expect(lines[1]).toMatchObject({ event: 'buy', outcome: yes });
    expect(lines[1].filled).toBeGreaterThan(0);
    expect(lines[1].filled).toBeLessThanOrEqual(5);
    const bought = exchangeFor(key);
    expect((await bought.fetchPosition(yes)).contracts).toBe(lines[1].filled);
    await bought.close();
  });
});

describe('the CCXT class: its has map', () => {
  it('has every method it declares called by the tests above, and the plain ones too', async () => {
    expect((await trader.fetchStatus()).status).toBe('ok');
    const declared = Object.entries(trader.has)
      .filter(([name, supported]) => supported === true && typeof (trader as never)[name] === 'function')
      .map(([name]) => name);
    const uncovered = declared.filter((name) => !called.has(name));
    expect(uncovered).toEqual([]);
    expect(declared.length).toBeGreaterThan(30);
  });
});
