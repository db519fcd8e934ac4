/**
 * A small market-making bot: it quotes both sides of one option (a YES bid as BUY YES, a YES ask as BUY NO) with the
 * typed client, follows its fills on the WebSocket stream and quotes again around the new price after each one, and
 * cancels its orders when it stops (Ctrl-C, SIGTERM, or after PMX_RUN_SECONDS).
 *
 *   npm run example:bot                        # against http://localhost:3000 with a fresh demo account
 *   PMX_URL=https://… PMX_TOKEN=pmx_live_… PMX_OPTION=12 npm run example:bot
 *
 * Every action is printed as one JSON line: {"event":"placed"|"filled"|"cancelled"|…}.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { createClient, type ExchangeClient, type Order } from '../clients/typescript/src/index.js';

const BASE_URL = process.env.PMX_URL ?? 'http://localhost:3000';
const SPREAD = Number(process.env.PMX_SPREAD_CENTS ?? 4);
const SIZE = Number(process.env.PMX_SIZE ?? 10);
const RUN_SECONDS = Number(process.env.PMX_RUN_SECONDS ?? 0);

const log = (event: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ event, ...fields }));

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

/** The price to quote around: the last trade, else the middle of the best bid and ask, else 50. */
async function fairPrice(api: ExchangeClient, optionId: string): Promise<number> {
  const { data } = await api.GET('/api/orderbook/{optionId}', { params: { path: { optionId } } });
  if (!data) throw new Error(`option ${optionId} not found`);
  const bid = data.yes.bids[0]?.priceCents;
  const ask = data.yes.asks[0]?.priceCents;
  return data.lastYesPriceCents ?? (bid && ask ? Math.round((bid + ask) / 2) : 50);
}

class MarketMaker {
  private readonly open = new Map<string, Order>();
  private quoting: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly api: ExchangeClient,
    private readonly optionId: string,
  ) {}

  /** Cancels what is left of the current quotes, then quotes both sides around the fair price. */
  requote(): Promise<void> {
    this.quoting = this.quoting.then(async () => {
      if (this.stopped) return;
      await this.cancelAll();
      const fair = await fairPrice(this.api, this.optionId);
      const bid = Math.min(98, Math.max(1, fair - Math.floor(SPREAD / 2)));
      const ask = Math.max(bid + 1, Math.min(99, fair + Math.ceil(SPREAD / 2)));
      await this.place('YES', bid);
      await this.place('NO', 100 - ask);
    });
    return this.quoting;
  }

  private async place(side: 'YES' | 'NO', limitPriceCents: number): Promise<void> {
    const { data, error } = await this.api.POST('/api/limit-orders', {
      body: { optionId: this.optionId, side, action: 'BUY', quantity: SIZE, limitPriceCents },
      headers: { 'idempotency-key': randomBytes(12).toString('hex') },
    });
    if (!data) return log('refused', { side, limitPriceCents, code: error?.code, error: error?.error });
    log('placed', { orderId: data.id, side, limitPriceCents, quantity: SIZE, status: data.status });
    if (data.status === 'open' || data.status === 'partially_filled') this.open.set(data.id, data);
  }

  /** Lets a quote in flight finish, then cancels everything left. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.quoting.catch(() => {});
    await this.cancelAll();
  }

  async cancelAll(): Promise<void> {
    for (const id of [...this.open.keys()]) {
      const { data, error } = await this.api.DELETE('/api/limit-orders/{id}', { params: { path: { id } } });
      this.open.delete(id);
      if (data) log('cancelled', { orderId: id, filledQuantity: data.filledQuantity });
      else log('cancel-refused', { orderId: id, code: error?.code });
    }
  }

  /** A fill of one of our orders, from the stream: forget it when done, and quote again around the new price. */
  onFill(fill: { orderId: string; quantity: number; priceCents: number; side: string }): void {
    log('filled', fill);
    const order = this.open.get(fill.orderId);
    if (order && order.filledQuantity + fill.quantity >= order.quantity) this.open.delete(fill.orderId);
    this.requote().catch((error: unknown) => log('error', { error: String(error) }));
  }
}

/** The user channel of the stream: our fills as they commit. */
function followFills(token: string, maker: MarketMaker): Promise<WebSocket> {
  const socket = new WebSocket(`${BASE_URL.replace(/^http/, 'ws')}/api/stream`, {
    headers: { authorization: `Bearer ${token}` },
  });
  socket.on('message', (raw) => {
    const message = JSON.parse(String(raw)) as { type: string; fill?: Parameters<MarketMaker['onFill']>[0] };
    if (message.type === 'fill' && message.fill) maker.onFill(message.fill);
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.send(JSON.stringify({ op: 'subscribe', channel: 'user' }));
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function main(): Promise<void> {
  const token = await signIn();
  const api = createClient({ baseUrl: BASE_URL, token });
  const optionId = await chooseOption(api);
  const maker = new MarketMaker(api, optionId);
  const socket = await followFills(token, maker);
  log('quoting', { optionId, spreadCents: SPREAD, size: SIZE });
  await maker.requote();
  const stop = async (reason: string) => {
    log('stopping', { reason });
    socket.close();
    await maker.stop();
    log('stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (RUN_SECONDS > 0) setTimeout(() => void stop('time'), RUN_SECONDS * 1000);
}

main().catch((error: unknown) => {
  log('error', { error: String(error) });
  process.exit(1);
});
