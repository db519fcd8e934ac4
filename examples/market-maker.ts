/**
 * A market maker on the typed client. It quotes both sides of one option at PMX_LEVELS prices a side (a YES bid is
 * a BUY YES; a YES ask is a BUY NO at 100 − the ask), all post-only, placed in one batch. It follows its orders and
 * fills on the stream's user channel and the option's trades, and after each change it moves its quotes by amending
 * them; when the price runs PMX_PULL_CENTS or more away it pulls them all with one cancel-all and quotes afresh.
 * A dead man's switch cancels its orders if it dies; on Ctrl-C, SIGTERM or after PMX_RUN_SECONDS it cancels them
 * itself, disarms the switch and exits.
 *
 *   npm run example:bot                        # against http://localhost:3000 with a fresh demo account
 *   PMX_URL=https://… PMX_TOKEN=pmx_live_… PMX_OPTION=12 npm run example:bot
 *
 * Every action is printed as one JSON line: {"event":"placed"|"amended"|"cancelled"|"filled"|"pulled"|…}.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import {
  type ApiError,
  createClient,
  type ExchangeClient,
  type Order,
} from '../clients/typescript/src/index.js';

/** An integer setting from the environment, refused at start when out of range. */
function setting(name: string, fallback: number, min: number, max: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

const BASE_URL = process.env.PMX_URL ?? 'http://localhost:3000';
const SPREAD = setting('PMX_SPREAD_CENTS', 4, 1, 98);
const SIZE = setting('PMX_SIZE', 10, 1, 1_000_000);
// Both sides ride one batch, and a batch carries at most 20 orders.
const LEVELS = setting('PMX_LEVELS', 3, 1, 10);
const PULL_CENTS = setting('PMX_PULL_CENTS', 5, 1, 98);
const MAX_POSITION = setting('PMX_MAX_POSITION', 100, 1, 1_000_000_000);
const HEARTBEAT_SECONDS = setting('PMX_HEARTBEAT_SECONDS', 15, 5, 3600);
const RUN_SECONDS = setting('PMX_RUN_SECONDS', 0, 0, 31_536_000);
/** How often a request refused with 429 or 503 is tried again, each time after its Retry-After. */
const MAX_ATTEMPTS = 5;
/** A commit's fills, order changes and trades come as separate messages: one refresh a moment later sees them all. */
const SETTLE_MS = 20;
/** The prefix of our clientOrderIds, so that this run's orders can be told apart in the order history. */
const RUN_ID = `mm-${randomBytes(4).toString('hex')}`;

const log = (event: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ event, ...fields }));

let ordersSent = 0;
const nextClientOrderId = () => `${RUN_ID}-${++ordersSent}`;
const newIdempotencyKey = () => randomBytes(12).toString('hex');

type Side = 'YES' | 'NO';
/** A price wanted on the book: `priceCents` of its own side (a YES ask at 52 is a NO bid at 48). */
interface Level {
  side: Side;
  priceCents: number;
  quantity: number;
}
/** One of our resting quotes, with the shares it has left to fill. */
interface Quote {
  id: string;
  side: Side;
  priceCents: number;
  remaining: number;
}
/** An order as the REST answers and the stream's `order` messages both describe it. */
type OrderState = Pick<
  Order,
  | 'id'
  | 'optionId'
  | 'side'
  | 'action'
  | 'priceCents'
  | 'quantity'
  | 'filledQuantity'
  | 'status'
  | 'cancelReason'
>;

/** The stream messages the bot reads; /api/asyncapi.json describes them all. */
type StreamMessage =
  | { type: 'subscribed'; channel: string }
  | { type: 'snapshot'; channel: string; lastYesPriceCents: number | null; bids: Rung[]; asks: Rung[] }
  | { type: 'delta'; channel: string }
  | { type: 'trades'; channel: string; trades: { yesPriceCents: number; quantity: number }[] }
  | { type: 'order'; channel: 'user'; order: OrderState }
  | { type: 'fill'; channel: 'user'; fill: Fill }
  | { type: 'resync'; channel: string; reason: string }
  | { type: 'error'; channel?: string; code: string; error: string };
interface Rung {
  priceCents: number;
  quantity: number;
}
interface Fill {
  orderId: string;
  optionId: string;
  side: Side;
  action: 'BUY' | 'SELL';
  quantity: number;
  priceCents: number;
}

/**
 * Makes a request, and makes it again while it is answered 429 (our order or request budget is spent for now) or
 * 503 (the service is busy or restarting), each time after the Retry-After it was given. Every request we retry
 * carries an Idempotency-Key or is harmless twice (a cancel, a heartbeat), so a retry never acts twice.
 */
async function patiently<A extends { response: Response; error?: ApiError }>(
  request: string,
  send: () => Promise<A>,
): Promise<A> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send();
    const { status, headers } = answer.response;
    if ((status !== 429 && status !== 503) || attempt === MAX_ATTEMPTS) return answer;
    const retryAfterSeconds = Number(headers.get('retry-after')) || 1;
    log('retrying', { request, status, code: answer.error?.code, retryAfterSeconds, attempt });
    await sleep(retryAfterSeconds * 1000);
  }
}

/** A request refused for good, or one order of a batch: a post-only quote that would have traded is "skipped". */
function reportRefusal(request: string, error: ApiError | undefined, fields: Record<string, unknown>): void {
  const event = error?.code === 'POST_ONLY_WOULD_TAKE' ? 'skipped' : 'refused';
  log(event, { request, ...fields, code: error?.code, error: error?.error });
}

/**
 * The quotes wanted around `fair`: LEVELS bids from fair − ⌊spread/2⌋ down and LEVELS asks from fair + ⌈spread/2⌉
 * up, a cent apart. The side that would add to the position quotes less as the position grows, and nothing at
 * PMX_MAX_POSITION, so that the fills themselves bring the inventory back.
 */
function ladder(fair: number, position: number): Level[] {
  const sizeAdding = Math.floor((SIZE * Math.max(0, MAX_POSITION - Math.abs(position))) / MAX_POSITION);
  const bidSize = position >= 0 ? sizeAdding : SIZE;
  const askSize = position <= 0 ? sizeAdding : SIZE;
  const levels: Level[] = [];
  for (let i = 0; i < LEVELS; i += 1) {
    const bid = fair - Math.floor(SPREAD / 2) - i;
    const ask = fair + Math.ceil(SPREAD / 2) + i;
    if (bid >= 1 && bidSize > 0) levels.push({ side: 'YES', priceCents: bid, quantity: bidSize });
    if (ask <= 99 && askSize > 0) levels.push({ side: 'NO', priceCents: 100 - ask, quantity: askSize });
  }
  return levels;
}

/**
 * How one side's quotes become the levels wanted with the fewest order messages: a quote already at a wanted price
 * stays where it is (shrunk in place when it is bigger, which keeps its time priority; a partly filled one is not
 * topped up, which would lose it); the other quotes move to the prices still missing; quotes left over go, and
 * prices still missing are new orders.
 */
function planSide(quotes: Quote[], levels: Level[]) {
  const spare = [...quotes];
  const shrink: { quote: Quote; level: Level }[] = [];
  const unserved: Level[] = [];
  for (const level of levels) {
    const at = spare.findIndex((quote) => quote.priceCents === level.priceCents);
    if (at < 0) {
      unserved.push(level);
      continue;
    }
    const [quote] = spare.splice(at, 1) as [Quote];
    if (quote.remaining > level.quantity) shrink.push({ quote, level });
  }
  const move = unserved.slice(0, spare.length).map((level, i) => ({ quote: spare[i] as Quote, level }));
  return {
    shrink,
    move,
    missing: unserved.slice(spare.length),
    surplus: spare.slice(unserved.length).map((quote) => quote.id),
  };
}

/** Our resting quotes as we last heard of them, from the answers to our requests and from the user channel. */
class Quotes {
  private readonly resting = new Map<string, Quote>();
  // The answer to a request and the stream's message about the same order come in either order, so a late one must
  // not bring back an order that has ended nor undo a fill.
  private readonly ended = new Set<string>();

  constructor(private readonly optionId: string) {}

  /** What an answer or a message says of an order: an order's remaining quantity only ever falls. */
  update(order: OrderState): void {
    // We only ever buy (an ask is a BUY NO): a SELL on the option is someone else's business.
    if (order.optionId !== this.optionId || order.action !== 'BUY' || this.ended.has(order.id)) return;
    if (order.status !== 'open' && order.status !== 'partially_filled') {
      this.resting.delete(order.id);
      this.ended.add(order.id);
      return;
    }
    const remaining = Math.min(
      order.quantity - order.filledQuantity,
      this.resting.get(order.id)?.remaining ?? Number.MAX_SAFE_INTEGER,
    );
    const { id, side, priceCents } = order;
    this.resting.set(id, { id, side, priceCents, remaining });
  }

  /** After a cancel-all of the option nothing of ours rests on it. */
  clear(): void {
    for (const id of this.resting.keys()) this.ended.add(id);
    this.resting.clear();
  }

  has(id: string): boolean {
    return this.resting.has(id);
  }

  onSide(side: Side): Quote[] {
    return [...this.resting.values()].filter((quote) => quote.side === side);
  }

  /** The YES prices we quote, best first. */
  prices(): { bids: number[]; asks: number[] } {
    const bids = this.onSide('YES').map((quote) => quote.priceCents);
    const asks = this.onSide('NO').map((quote) => 100 - quote.priceCents);
    return { bids: bids.sort((a, b) => b - a), asks: asks.sort((a, b) => a - b) };
  }
}

/** The middle of the best bid and ask of a book snapshot, when it has both. */
function midOf(book: { bids: Rung[]; asks: Rung[] }): number | null {
  const bid = book.bids[0]?.priceCents;
  const ask = book.asks[0]?.priceCents;
  return bid !== undefined && ask !== undefined ? Math.round((bid + ask) / 2) : null;
}

/**
 * The quoting loop. What the stream brings (fills, order changes, trades) is only noted, and asks for a refresh;
 * refreshes run one at a time, so the bot never races itself, and news that comes during one is handled by the next.
 */
class MarketMaker {
  private readonly quotes: Quotes;
  /** The price to quote around: the last trade, else the middle of the book, else 50. */
  private fair = 50;
  private quotedAround: number | null = null;
  /** Why the next refresh pulls everything first: a previous run may have left quotes on the option. */
  private pullReason: 'start' | 'resync' | null = 'start';
  private state: 'listening' | 'quoting' | 'stopped' = 'listening';
  private refreshPending = false;
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ExchangeClient,
    private readonly optionId: string,
    /** Shares of YES held less shares of NO. */
    private position: number,
  ) {
    this.quotes = new Quotes(optionId);
  }

  /** Starts quoting, once the stream follows everything the quotes depend on. */
  start(): void {
    this.state = 'quoting';
    this.scheduleRefresh();
  }

  hear(message: StreamMessage): void {
    if (this.note(message)) this.scheduleRefresh();
  }

  /** Notes what a message says; answers whether the quotes may need to change. */
  private note(message: StreamMessage): boolean {
    switch (message.type) {
      case 'snapshot':
        this.fair = message.lastYesPriceCents ?? midOf(message) ?? this.fair;
        return true;
      case 'trades':
        this.fair = message.trades.at(-1)?.yesPriceCents ?? this.fair;
        return true;
      case 'delta':
        // Orders coming and going do not move our price; only trades do.
        return false;
      case 'fill':
        return this.onFill(message.fill);
      case 'order':
        return this.onOrder(message.order);
      case 'resync':
        // The stream may have missed changes to our orders: start over rather than guess.
        if (message.channel === 'user') this.pullReason = 'resync';
        return message.channel === 'user';
      case 'error':
        log('stream-error', { channel: message.channel, code: message.code, error: message.error });
        return false;
      default:
        return false;
    }
  }

  private onFill(fill: Fill): boolean {
    if (fill.optionId !== this.optionId) return false;
    const yesShares = fill.side === 'YES' ? fill.quantity : -fill.quantity;
    this.position += fill.action === 'BUY' ? yesShares : -yesShares;
    log('filled', {
      orderId: fill.orderId,
      side: fill.side,
      quantity: fill.quantity,
      priceCents: fill.priceCents,
      positionShares: this.position,
    });
    return true;
  }

  /** A quote ended by something else than us (the dead man's switch, the market closing…) leaves a gap to fill. */
  private onOrder(order: OrderState): boolean {
    const wasResting = this.quotes.has(order.id);
    this.quotes.update(order);
    const endedByUs = order.cancelReason === 'cancelled_by_user' || order.cancelReason === 'replaced';
    if (!wasResting || this.quotes.has(order.id) || order.status === 'filled' || endedByUs) return false;
    log('cancelled', { orderId: order.id, reason: order.cancelReason ?? order.status });
    return true;
  }

  /** Runs one refresh after what is already queued, a moment later so that it sees the whole of a commit's news. */
  private scheduleRefresh(): void {
    if (this.state !== 'quoting' || this.refreshPending) return;
    this.refreshPending = true;
    this.work = this.work
      .then(() => sleep(SETTLE_MS))
      .then(() => {
        this.refreshPending = false;
        return this.state === 'quoting' ? this.refresh() : undefined;
      })
      .catch((error: unknown) => log('error', { error: String(error) }));
  }

  /** Brings the quotes to the ladder around the fair price: pulled and quoted afresh after a big move, else amended. */
  private async refresh(): Promise<void> {
    const fair = this.fair;
    const moved = fair - (this.quotedAround ?? fair);
    const pullReason = this.pullReason ?? (Math.abs(moved) >= PULL_CENTS ? 'price' : null);
    if (pullReason) await this.pull(pullReason, fair);
    // The position these quotes are for: a fill arriving meanwhile brings another refresh.
    const position = this.position;
    const changed = await this.reconcile(ladder(fair, position), moved);
    this.quotedAround = fair;
    if (pullReason || changed)
      log('quoted', { fairCents: fair, positionShares: position, ...this.quotes.prices() });
  }

  /** Takes all our quotes on the option off the book with one cancel-all. */
  private async pull(reason: 'start' | 'resync' | 'price', fair: number): Promise<void> {
    const { data, error } = await patiently('cancel-all', () => this.cancelAll());
    if (!data) throw new Error(`could not pull the quotes: ${error?.code} ${error?.error}`);
    this.quotes.clear();
    this.pullReason = null;
    log('pulled', {
      reason,
      fromCents: this.quotedAround,
      toCents: fair,
      cancelledCount: data.cancelledCount,
    });
  }

  private cancelAll() {
    return this.api.POST('/api/limit-orders/cancel-all', { body: { optionId: this.optionId } });
  }

  /**
   * Moves our quotes to `wanted` (see planSide): quotes left over are cancelled first, then each side is shrunk and
   * moved, the side the price moved towards first, so that it is out of the way when the other side follows (a
   * post-only quote meeting our own would be refused); last, the prices still missing are placed in one batch.
   * Answers whether it sent anything.
   */
  private async reconcile(wanted: Level[], moved: number): Promise<boolean> {
    const sides: Side[] = moved > 0 ? ['NO', 'YES'] : ['YES', 'NO'];
    const plans = sides.map((side) =>
      planSide(
        this.quotes.onSide(side),
        wanted.filter((level) => level.side === side),
      ),
    );
    const surplus = plans.flatMap((plan) => plan.surplus);
    const missing = plans.flatMap((plan) => plan.missing);
    if (surplus.length > 0) await this.cancel(surplus);
    for (const { shrink, move } of plans) {
      for (const { quote, level } of shrink) await this.amend(quote, { remainingQuantity: level.quantity });
      for (const { quote, level } of move)
        await this.amend(quote, { remainingQuantity: level.quantity, limitPriceCents: level.priceCents });
    }
    if (missing.length > 0) await this.place(missing);
    return surplus.length > 0 || missing.length > 0 || plans.some((p) => p.shrink.length + p.move.length > 0);
  }

  /** Places prices as one batch of post-only orders: one request, with one Idempotency-Key for all its retries. */
  private async place(levels: Level[]): Promise<void> {
    const orders = levels.map((level) => ({
      optionId: this.optionId,
      side: level.side,
      action: 'BUY' as const,
      quantity: level.quantity,
      limitPriceCents: level.priceCents,
      postOnly: true,
      clientOrderId: nextClientOrderId(),
    }));
    const key = newIdempotencyKey();
    const { data, error } = await patiently('batch', () =>
      this.api.POST('/api/limit-orders/batch', {
        params: { header: { 'idempotency-key': key } },
        body: { orders },
      }),
    );
    if (!data) return reportRefusal('batch', error, { orders: orders.length });
    for (const [index, result] of data.data.entries()) {
      const { side, limitPriceCents, quantity, clientOrderId } = orders[index]!;
      if ('error' in result) {
        // Not sent again until there is news: the book would most likely refuse it the same way.
        reportRefusal('place', result.error, { side, limitPriceCents, clientOrderId });
        continue;
      }
      const { order } = result;
      this.quotes.update(order);
      log('placed', {
        orderId: order.id,
        clientOrderId,
        side,
        limitPriceCents,
        quantity,
        status: order.status,
      });
    }
  }

  /**
   * Amends one quote: fewer shares at the same price shrink it where it stands, keeping its time priority; a new
   * price is one atomic cancel-and-replace (a new order id, still post-only), never a moment with no quote at all.
   */
  private async amend(
    quote: Quote,
    change: { remainingQuantity: number; limitPriceCents?: number },
  ): Promise<void> {
    const key = newIdempotencyKey();
    const body =
      change.limitPriceCents === undefined ? change : { ...change, clientOrderId: nextClientOrderId() };
    const { data, error } = await patiently('amend', () =>
      this.api.POST('/api/limit-orders/{id}/amend', {
        params: { path: { id: quote.id }, header: { 'idempotency-key': key } },
        body,
      }),
    );
    // Refused (it would take, or it filled meanwhile): the quote stays as it was, and the stream tells the rest.
    if (!data) return reportRefusal('amend', error, { orderId: quote.id, side: quote.side, ...change });
    if (data.replacedOrder) this.quotes.update(data.replacedOrder);
    this.quotes.update(data.order);
    log('amended', {
      orderId: data.order.id,
      replacesOrderId: data.order.replacesOrderId,
      side: data.order.side,
      limitPriceCents: data.order.priceCents,
      remainingQuantity: data.order.remainingQuantity,
      priorityKept: data.priorityKept,
    });
  }

  private async cancel(orderIds: string[]): Promise<void> {
    const { data, error } = await patiently('cancel', () =>
      this.api.POST('/api/limit-orders/cancel', { body: { orderIds } }),
    );
    if (!data) return reportRefusal('cancel', error, { orderIds });
    for (const result of data.data) {
      const { orderId } = result;
      if ('error' in result) {
        reportRefusal('cancel', result.error, { orderId });
        continue;
      }
      const { order } = result;
      this.quotes.update(order);
      log('cancelled', { orderId, reason: 'not wanted' });
    }
  }

  /** Stops quoting, lets a refresh in flight finish, and cancels our orders; answers whether none is left. */
  async stop(): Promise<boolean> {
    this.state = 'stopped';
    await this.work;
    const { data, error } = await patiently('cancel-all', () => this.cancelAll());
    if (!data) {
      reportRefusal('cancel-all', error, {});
      return false;
    }
    this.quotes.clear();
    log('cancelled', { cancelledCount: data.cancelledCount, orderIds: data.data.map((order) => order.id) });
    return true;
  }
}

/**
 * The dead man's switch of our credential: armed with PMX_HEARTBEAT_SECONDS and kept up by a heartbeat every third
 * of it, so that one slow or retried heartbeat still lands in time. Should this process die or lose the network,
 * the exchange cancels every order it placed once the time is up.
 */
class DeadMansSwitch {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<unknown> = Promise.resolve();
  private armed = false;

  constructor(private readonly api: ExchangeClient) {}

  async arm(): Promise<void> {
    if (!(await this.beat())) throw new Error('could not arm the dead man’s switch');
    this.armed = true;
    this.beatLater();
  }

  private beatLater(): void {
    this.timer = setTimeout(
      () => {
        this.beating = this.beat()
          .catch((error: unknown) => log('error', { request: 'heartbeat', error: String(error) }))
          .finally(() => this.armed && this.beatLater());
      },
      (HEARTBEAT_SECONDS * 1000) / 3,
    );
  }

  private async beat(): Promise<boolean> {
    const { data, error } = await patiently('heartbeat', () =>
      this.api.POST('/api/heartbeat', { body: { timeoutSeconds: HEARTBEAT_SECONDS } }),
    );
    if (!data) reportRefusal('heartbeat', error, {});
    else
      log('heartbeat', { armed: data.armed, timeoutSeconds: data.timeoutSeconds, expiresAt: data.expiresAt });
    return Boolean(data?.armed);
  }

  /** Disarms the switch, once our orders are cancelled (a heartbeat in flight could otherwise arm it again). */
  async disarm(): Promise<void> {
    this.armed = false;
    clearTimeout(this.timer);
    await this.beating;
    const { data, error } = await patiently('heartbeat', () => this.api.DELETE('/api/heartbeat'));
    if (!data) return reportRefusal('heartbeat', error, {});
    log('heartbeat', { armed: data.armed });
  }
}

/** An API key or session token: PMX_TOKEN, else a fresh account registered for the run. */
async function signIn(): Promise<string> {
  if (process.env.PMX_TOKEN) return process.env.PMX_TOKEN;
  const email = `bot-${randomBytes(4).toString('hex')}@example.com`;
  const { data, error } = await createClient({ baseUrl: BASE_URL }).POST('/api/auth/register', {
    body: { email, password: randomBytes(12).toString('base64url') },
  });
  if (!data) throw new Error(`cannot register: ${error?.error}`);
  log('registered', { email });
  return data.token;
}

/** PMX_OPTION, else the first option of the first open event. */
async function chooseOption(api: ExchangeClient): Promise<string> {
  if (process.env.PMX_OPTION) return process.env.PMX_OPTION;
  const { data } = await api.GET('/api/events', { params: { query: { status: 'open', limit: 1 } } });
  const option = data?.data[0]?.options[0];
  if (!option) throw new Error('no open market to quote: set PMX_OPTION');
  return option.id;
}

/** What we hold in the option when we start (YES shares less NO shares), which the quotes lean against. */
async function positionIn(api: ExchangeClient, optionId: string): Promise<number> {
  const { data, error } = await api.GET('/api/positions');
  if (!data) throw new Error(`cannot read the positions: ${error?.code}`);
  return data.data
    .filter((position) => position.optionId === optionId)
    .reduce((sum, { side, quantity }) => sum + (side === 'YES' ? quantity : -quantity), 0);
}

/**
 * The stream, following our orders and fills (the user channel) and the option's book and trades. Resolves once
 * every subscription is in place, so that no fill slips by before the first quote.
 */
function follow(token: string, optionId: string, maker: MarketMaker): Promise<WebSocket> {
  const socket = new WebSocket(`${BASE_URL.replace(/^http/, 'ws')}/api/stream`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const channels = ['user', `trades:${optionId}`, `book:${optionId}`];
  const pending = new Set(channels);
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.once('open', () => {
      for (const channel of channels) socket.send(JSON.stringify({ op: 'subscribe', channel }));
    });
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as StreamMessage;
      if (message.type === 'error') reject(new Error(`stream: ${message.code} ${message.error}`));
      if (message.type === 'subscribed' || message.type === 'snapshot') {
        pending.delete(message.channel);
        if (pending.size === 0) resolve(socket);
      }
      maker.hear(message);
    });
  });
}

async function main(): Promise<void> {
  const token = await signIn();
  const api = createClient({ baseUrl: BASE_URL, token });
  const optionId = await chooseOption(api);
  const maker = new MarketMaker(api, optionId, await positionIn(api, optionId));
  const deadMansSwitch = new DeadMansSwitch(api);
  await deadMansSwitch.arm();
  const socket = await follow(token, optionId, maker);
  log('quoting', { optionId, levels: LEVELS, spreadCents: SPREAD, size: SIZE, pullCents: PULL_CENTS });
  maker.start();

  let stopping = false;
  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping', { reason });
    let cancelled = false;
    try {
      cancelled = await maker.stop();
      // Unless every order is gone the switch stays armed, to cancel what we could not.
      if (cancelled) await deadMansSwitch.disarm();
    } catch (error) {
      log('error', { error: String(error) });
    }
    socket.close();
    log('stopped');
    process.exit(cancelled ? exitCode : 1);
  };
  process.once('SIGINT', () => void stop('SIGINT', 0));
  process.once('SIGTERM', () => void stop('SIGTERM', 0));
  // A market maker that cannot see its fills must not keep quoting.
  socket.on('close', () => void stop('stream closed', 1));
  if (RUN_SECONDS > 0) setTimeout(() => void stop('time', 0), RUN_SECONDS * 1000);
}

main().catch((error: unknown) => {
  log('error', { error: String(error) });
  process.exit(1);
});
