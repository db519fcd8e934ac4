import ccxt, { type PredictionExchange } from 'ccxt';
import pmx from '../src/index.js';

/**
 * A strategy written for CCXT's unified prediction API alone: it buys an outcome trading well below its recent
 * average and sells what it holds once the price is back above it. Nothing in it knows which venue it trades on;
 * `exchange()` is the only line that names one. Run it against the exchange:
 *
 *   PMX_URL=http://localhost:3000 PMX_API_KEY=pmx_live_... npx tsx clients/ccxt/examples/mean-reversion.ts
 *
 * and against Kalshi by making `exchange()` return `new ccxt.prediction.kalshi({ apiKey, privateKey })` (with an
 * `OUTCOME` Kalshi knows). One JSON line per decision.
 */
function exchange(): PredictionExchange {
  return new pmx({ apiKey: process.env.PMX_API_KEY, urls: { api: { rest: process.env.PMX_URL } } });
}

const EDGE = Number(process.env.EDGE ?? 0.03);
const SIZE = Number(process.env.SIZE ?? 10);
const CYCLES = Number(process.env.CYCLES ?? 0);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 60_000);

const say = (event: string, fields: object = {}) => console.log(JSON.stringify({ event, ...fields }));

/** The outcome to trade: the one named, else the YES of the first active market found. */
async function pickOutcome(venue: PredictionExchange): Promise<string> {
  if (process.env.OUTCOME) return process.env.OUTCOME;
  const events = await venue.fetchEvents({ status: 'active', limit: 20 });
  const outcome = events.flatMap((event) => event.markets).find((market) => market.active)?.outcomes[0];
  if (!outcome) throw new Error('no active market');
  return outcome.outcome;
}

async function decide(venue: PredictionExchange, outcome: string) {
  const candles = await venue.fetchOHLCV(outcome, '1h', undefined, 24);
  const closes = candles.map((candle) => candle[4] as number);
  const ticker = await venue.fetchTicker(outcome);
  const [position] = await venue.fetchPositions([outcome]);
  const held = position?.contracts ?? 0;
  if (closes.length === 0 || ticker.ask === undefined)
    return say('wait', { outcome, reason: 'no prices yet' });
  const average = closes.reduce((sum, close) => sum + close, 0) / closes.length;
  if (ticker.ask <= average - EDGE) {
    const order = await venue.createOrder(outcome, 'limit', 'buy', SIZE, ticker.ask, { timeInForce: 'IOC' });
    return say('buy', { outcome, average, ask: ticker.ask, filled: order.filled, id: order.id });
  }
  if (held > 0 && ticker.bid !== undefined && ticker.bid >= average + EDGE) {
    const order = await venue.createOrder(outcome, 'limit', 'sell', held, ticker.bid, { timeInForce: 'IOC' });
    return say('sell', { outcome, average, bid: ticker.bid, filled: order.filled, id: order.id });
  }
  return say('hold', { outcome, average, bid: ticker.bid, ask: ticker.ask, held });
}

const venue = exchange();
try {
  const outcome = await pickOutcome(venue);
  const balance = await venue.fetchBalance();
  say('start', { venue: venue.id, outcome, cash: balance.USD?.free, ccxt: ccxt.version });
  for (let cycle = 0; CYCLES === 0 || cycle < CYCLES; cycle++) {
    if (cycle > 0) await venue.sleep(INTERVAL_MS);
    await decide(venue, outcome);
  }
} finally {
  await venue.close();
}
