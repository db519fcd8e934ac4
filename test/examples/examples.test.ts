import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, expectInvariants, type TestApp } from '../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../support/factories.js';

/** The examples (described in docs/api.md), run as their own processes against the service listening on a real port. */

type Line = Record<string, unknown> & { event: string };

async function until<T>(
  what: string,
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

class Example {
  readonly lines: Line[] = [];
  readonly exited: Promise<number | null>;

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.lines.push(JSON.parse(line) as Line);
      } catch {
        // not one of its JSON lines (a warning from Node): ignore
      }
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(file: string, env: Record<string, string>): Example {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new Example(child, file);
  }

  async waitFor(match: (line: Line) => boolean, timeoutMs = 20_000): Promise<Line> {
    try {
      return await until('a line', () => this.lines.find(match), timeoutMs);
    } catch {
      throw new Error(`${this.name}: nothing matched in ${JSON.stringify(this.lines)}`);
    }
  }

  /** Its lines of one event, after the line `after` (if given). */
  events(event: string, after?: Line): Line[] {
    const from = after ? this.lines.indexOf(after) + 1 : 0;
    return this.lines.slice(from).filter((line) => line.event === event);
  }

  stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

interface Rung {
  side: 'bid' | 'ask';
  priceCents: number;
  quantity: number;
}
interface OrderView {
  id: string;
  optionId: string;
  side: 'YES' | 'NO';
  priceCents: number;
  quantity: number;
  remainingQuantity: number;
  status: string;
  cancelReason: string | null;
  clientOrderId: string | null;
  postOnly: boolean;
  replacesOrderId: string | null;
}
interface HeartbeatView {
  armed: boolean;
  timeoutSeconds: number | null;
  lastBeatAt: string | null;
  expiresAt: string | null;
  firedAt: string | null;
  cancelledOrders: number;
}

let t: TestApp;
let baseUrl: string;
let admin: TestUser;
const running: Example[] = [];
const sockets: WebSocket[] = [];
/** The order budget of the service: tight, so that the bot meets 429 ORDER_RATE_LIMITED and has to wait. */
const ORDER_RATE_LIMIT = 12;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      // The jobs run as in production, the dead man's switches checked every 200 ms.
      JOBS_ENABLED: 'true',
      HEARTBEAT_CHECK_MS: '200',
      ORDER_RATE_LIMIT: String(ORDER_RATE_LIMIT),
      ORDER_RATE_WINDOW_MS: '3000',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  for (const example of running) example.child.kill('SIGKILL');
  for (const socket of sockets) socket.close();
  await expectInvariants(t.database);
  await t.close();
});

/** A user with an API key: the bot trades with the key, so that the test can see the key's dead man's switch. */
async function newBotAccount(): Promise<TestUser & { apiKey: string }> {
  const user = await newUser(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(user.token),
    payload: { name: 'market maker' },
  });
  expect(created.statusCode).toBe(201);
  return { ...user, apiKey: created.json().key };
}

async function ordersOf(token: string, status: 'open' | 'history', optionId: string): Promise<OrderView[]> {
  const res = await t.app.inject({
    url: `/api/limit-orders?status=${status}&limit=100`,
    headers: bearer(token),
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as OrderView[]).filter((order) => order.optionId === optionId);
}

async function heartbeatOf(token: string): Promise<HeartbeatView> {
  const res = await t.app.inject({ url: '/api/heartbeat', headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** The YES ladder as the bot's open orders make it: bids (BUY YES) and asks (BUY NO at 100 − the ask), by price. */
function ladderOf(orders: OrderView[]) {
  const ofSide = (side: 'YES' | 'NO') =>
    orders
      .filter((order) => order.side === side)
      .map((order) => ({
        price: side === 'YES' ? order.priceCents : 100 - order.priceCents,
        quantity: order.remainingQuantity,
      }))
      .sort((a, b) => a.price - b.price);
  return { bids: ofSide('YES'), asks: ofSide('NO') };
}

const rungs = (prices: number[], quantity: number) => prices.map((price) => ({ price, quantity }));

/** A follower of the option's book channel, as any client of the stream. */
async function watchBook(optionId: string) {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/stream`);
  sockets.push(socket);
  const deltas: { seq: number; levels: Rung[] }[] = [];
  socket.on('message', (raw) => {
    const message = JSON.parse(String(raw));
    if (message.type === 'delta') deltas.push(message);
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ op: 'subscribe', channel: `book:${optionId}` }));
  await once(socket, 'message');
  return {
    /** The first book change that put a bid at `bidPrice` on the book. */
    changePlacing: (bidPrice: number) =>
      until(`a delta placing a bid at ${bidPrice}`, () =>
        deltas.find((delta) =>
          delta.levels.some(
            (level) => level.side === 'bid' && level.priceCents === bidPrice && level.quantity > 0,
          ),
        ),
      ),
  };
}

/** The YES prices and sizes a book change put on the book, lowest first. */
const placedBy = (delta: { levels: Rung[] }) =>
  delta.levels
    .filter((level) => level.quantity > 0)
    .map(({ side, priceCents, quantity }) => ({ side, priceCents, quantity }))
    .sort((a, b) => a.priceCents - b.priceCents);

describe('the examples against a live service', () => {
  it('the bot quotes in one batch, amends after a fill, pulls and requotes on a big move, and cancels and disarms on SIGTERM; the receiver verifies real deliveries', async () => {
    // A market without house liquidity, so the bot's quotes are the book.
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Rain', liquidityCents: 0 }],
    });
    const optionId = market.options[0]!.id;
    const bot = await newBotAccount();
    const taker = await newUser(t.app);
    const whale = await newUser(t.app);
    const book = await watchBook(optionId);

    const receiver = Example.start('examples/webhook-receiver.ts', {
      PMX_URL: baseUrl,
      PMX_TOKEN: taker.token,
      PORT: '0',
    });
    running.push(receiver);
    await receiver.waitFor((line) => line.event === 'subscribed');

    const maker = Example.start('examples/market-maker.ts', {
      PMX_URL: baseUrl,
      PMX_TOKEN: bot.apiKey,
      PMX_OPTION: optionId,
      PMX_SPREAD_CENTS: '4',
      PMX_SIZE: '10',
      PMX_LEVELS: '3',
    });
    running.push(maker);

    // Its first quotes: three levels a side around 50, post-only, in one batch, so one book change carries them all.
    await maker.waitFor((line) => line.event === 'quoted');
    const first = await book.changePlacing(48);
    expect(placedBy(first)).toEqual([
      { side: 'bid', priceCents: 46, quantity: 10 },
      { side: 'bid', priceCents: 47, quantity: 10 },
      { side: 'bid', priceCents: 48, quantity: 10 },
      { side: 'ask', priceCents: 52, quantity: 10 },
      { side: 'ask', priceCents: 53, quantity: 10 },
      { side: 'ask', priceCents: 54, quantity: 10 },
    ]);
    const quoted = await ordersOf(bot.token, 'open', optionId);
    expect(ladderOf(quoted)).toEqual({ bids: rungs([46, 47, 48], 10), asks: rungs([52, 53, 54], 10) });
    for (const order of quoted) {
      expect(order).toMatchObject({ postOnly: true, clientOrderId: expect.stringMatching(/^mm-/) });
    }
    expect(maker.events('placed')).toHaveLength(6);
    expect(await heartbeatOf(bot.apiKey)).toMatchObject({ armed: true, timeoutSeconds: 15 });

    // A taker buys 4 YES from its best ask (a BUY NO at 48): it quotes around 52 by amending, not cancel and place.
    // Short 4, its asks shrink to 9 shares: the one at 54 in place, the others moved up with their bids.
    const ask54 = quoted.find((order) => order.side === 'NO' && order.priceCents === 46)!;
    const fill = await marketTrade(t.app, taker.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 4,
      price: 60,
    });
    expect(fill.json()).toMatchObject({ filledQuantity: 4, averagePriceCents: 52 });
    await maker.waitFor((line) => line.event === 'filled' && line.quantity === 4);
    // The quotes made for the position after the fill: a book notice can move the fair price before the fill's
    // notice moves the position, and the bot quotes once for each.
    const requoted = await maker.waitFor(
      (line) => line.event === 'quoted' && line.fairCents === 52 && line.positionShares === -4,
    );
    const amended = await ordersOf(bot.token, 'open', optionId);
    expect(ladderOf(amended)).toEqual({ bids: rungs([48, 49, 50], 10), asks: rungs([54, 55, 56], 9) });
    expect(amended.find((order) => order.id === ask54.id)).toMatchObject({ remainingQuantity: 9 });
    expect(amended.filter((order) => order.replacesOrderId !== null)).toHaveLength(4);
    expect(maker.events('amended')).toContainEqual(
      expect.objectContaining({ orderId: ask54.id, priorityKept: true, remainingQuantity: 9 }),
    );
    const replaced = (await ordersOf(bot.token, 'history', optionId)).filter(
      (order) => order.cancelReason === 'replaced',
    );
    expect(replaced).toHaveLength(4);
    expect(maker.events('placed')).toHaveLength(6);
    expect(maker.events('cancelled')).toEqual([]);
    expect(requoted).toMatchObject({ positionShares: -4 });

    // A big buyer sweeps its asks and a whale's ask at 65 behind them: the price runs 13 cents, so it pulls
    // everything with one cancel-all and quotes around 65 in one batch (short 31: its asks shrink to 6).
    const whaleAsk = await limitOrder(t.app, whale.token, {
      optionId,
      side: 'NO',
      action: 'BUY',
      quantity: 10,
      price: 35,
    });
    expect(whaleAsk.statusCode).toBe(201);
    const sweep = await marketTrade(t.app, taker.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 37,
      price: 70,
    });
    expect(sweep.json()).toMatchObject({ filledQuantity: 37 });
    const pulled = await maker.waitFor((line) => line.event === 'pulled' && line.reason === 'price');
    expect(pulled).toMatchObject({ toCents: 65, cancelledCount: expect.any(Number) });
    expect(pulled.cancelledCount).toBeGreaterThanOrEqual(3);
    await maker.waitFor((line) => line.event === 'quoted' && line.fairCents === 65);
    expect(ladderOf(await ordersOf(bot.token, 'open', optionId))).toEqual({
      bids: rungs([61, 62, 63], 10),
      asks: rungs([67, 68, 69], 6),
    });
    expect(placedBy(await book.changePlacing(63))).toEqual([
      { side: 'bid', priceCents: 61, quantity: 10 },
      { side: 'bid', priceCents: 62, quantity: 10 },
      { side: 'bid', priceCents: 63, quantity: 10 },
      { side: 'ask', priceCents: 67, quantity: 6 },
      { side: 'ask', priceCents: 68, quantity: 6 },
      { side: 'ask', priceCents: 69, quantity: 6 },
    ]);
    expect(maker.events('placed', pulled)).toHaveLength(6);

    // The taker's events go out as signed webhooks; the receiver verifies each with standardwebhooks.
    await t.app.jobs.runNow('webhooks.deliver');
    await receiver.waitFor((line) => line.event === 'verified' && line.type === 'trade.executed');
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(t.app.swagger() as object, 'openapi.json');
    for (const line of receiver.lines.filter((l) => l.event === 'verified')) {
      const type = String(line.type);
      const validate = ajv.compile({
        $ref: `openapi.json#/webhooks/${type}/post/requestBody/content/application~1json/schema`,
      });
      expect(validate(line.body), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const forged = await fetch(String((await receiver.waitFor((l) => l.event === 'listening')).url), {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{"type":"order.filled"}',
    });
    expect(forged.status).toBe(400);
    await receiver.waitFor((line) => line.event === 'rejected');

    // SIGTERM: it cancels its orders with one cancel-all, disarms its switch and exits 0.
    expect(await maker.stop()).toBe(0);
    expect(maker.events('stopped')).toHaveLength(1);
    expect(maker.events('cancelled').at(-1)).toMatchObject({ cancelledCount: 6 });
    expect(await ordersOf(bot.token, 'open', optionId)).toEqual([]);
    expect(await heartbeatOf(bot.apiKey)).toMatchObject({ armed: false, firedAt: null });
    await receiver.stop();
  });

  it('the bot waits out the order budget, and killed with SIGKILL leaves its orders to the dead man’s switch', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Snow', liquidityCents: 0 }],
    });
    const optionId = market.options[0]!.id;
    const elsewhere = (await createMarket(t.app, admin.token)).options[0]!.id;
    const bot = await newBotAccount();
    const taker = await newUser(t.app);
    const maker = Example.start('examples/market-maker.ts', {
      PMX_URL: baseUrl,
      PMX_TOKEN: bot.apiKey,
      PMX_OPTION: optionId,
      PMX_HEARTBEAT_SECONDS: '5',
    });
    running.push(maker);
    await maker.waitFor((line) => line.event === 'quoted');
    expect(await heartbeatOf(bot.apiKey)).toMatchObject({ armed: true, timeoutSeconds: 5 });

    // The order budget is the user's, whatever the credential: its web session spends the rest of it elsewhere.
    let spent: Awaited<ReturnType<typeof limitOrder>> | undefined;
    let placedElsewhere = 0;
    for (let i = 0; i < 2 * ORDER_RATE_LIMIT && !spent; i++) {
      const order = await limitOrder(t.app, bot.token, {
        optionId: elsewhere,
        side: 'YES',
        action: 'BUY',
        quantity: 1,
        price: 1,
      });
      if (order.statusCode === 429) spent = order;
      else placedElsewhere += 1;
    }
    expect(spent?.json()).toMatchObject({ code: 'ORDER_RATE_LIMITED' });

    // A fill: its amends are refused 429 until the window turns; it waits the Retry-After and amends then.
    await marketTrade(t.app, taker.token, { optionId, side: 'YES', action: 'BUY', quantity: 4, price: 60 });
    const waited = await maker.waitFor((line) => line.event === 'retrying' && line.request === 'amend');
    expect(waited).toMatchObject({
      status: 429,
      code: 'ORDER_RATE_LIMITED',
      retryAfterSeconds: expect.any(Number),
    });
    await maker.waitFor((line) => line.event === 'quoted' && line.fairCents === 52);
    expect(maker.events('amended', waited).length).toBeGreaterThan(0);
    const resting = await ordersOf(bot.token, 'open', optionId);
    expect(resting).toHaveLength(6);

    // SIGKILL: nothing of the bot is left to cancel; its switch does, once its last heartbeat is 5 s old. The switch
    // records that it went off once its cancels have committed, a moment after the orders are seen gone.
    maker.child.kill('SIGKILL');
    const killedAt = Date.now();
    await maker.exited;
    const fired = await until('the switch to cancel the orders and disarm', async () => {
      if ((await ordersOf(bot.token, 'open', optionId)).length > 0) return undefined;
      const view = await heartbeatOf(bot.apiKey);
      return view.armed ? undefined : view;
    });
    expect(Date.now() - killedAt).toBeLessThan(6_000 + 500);
    expect(fired).toMatchObject({ armed: false, cancelledOrders: 6 });
    const lapse = Date.parse(fired.firedAt!) - (Date.parse(fired.lastBeatAt!) + 5_000);
    expect(lapse).toBeGreaterThanOrEqual(0);
    expect(lapse).toBeLessThan(1_000);
    const history = await ordersOf(bot.token, 'history', optionId);
    for (const order of resting) {
      expect(history.find((ended) => ended.id === order.id)).toMatchObject({
        status: 'cancelled',
        cancelReason: 'heartbeat_lapsed',
      });
    }
    // The switch covers only what the bot's key placed: the orders of the web session rest on.
    expect(await ordersOf(bot.token, 'open', elsewhere)).toHaveLength(placedElsewhere);
  });
});
