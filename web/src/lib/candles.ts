import type { OptionDetail, Side } from '../api/types';
import type { GetAnswer } from './hooks';

/** One interval of an option's YES price as `GET /api/options/{optionId}/candles` gives it (cents and shares). */
export type Candle = GetAnswer<'/api/options/{optionId}/candles'>['data'][number];
export type CandleInterval = GetAnswer<'/api/options/{optionId}/candles'>['interval'];
export type ChartView = 'line' | 'candles';

export const INTERVALS: { value: CandleInterval; label: string }[] = [
  { value: '1m', label: '1 min' },
  { value: '1h', label: '1 hour' },
  { value: '1d', label: '1 day' },
];

export const INTERVAL_MS: Record<CandleInterval, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '1d': 86_400_000,
};

/**
 * Candles read and drawn per interval: three hours of minutes, a week of hours, a year of days (and for the
 * intervals the API serves besides those the chart offers, about as long a stretch).
 */
export const CANDLES_SHOWN: Record<CandleInterval, number> = {
  '1m': 180,
  '5m': 288,
  '15m': 384,
  '1h': 168,
  '6h': 240,
  '1d': 365,
};

/** Fewer trades than this in the chart's range draw too few candles to read: such a market opens on the line. */
export const THIN_TRADES = 5;

const RANGE_MS: Record<string, number> = { '1d': 86_400_000, '1w': 7 * 86_400_000, '1m': 30 * 86_400_000 };

/** An execution as the stream and the tape carry it. */
export interface CandleTrade {
  yesPriceCents: number;
  quantity: number;
  takerSide: Side;
  at: string;
}

/** The start of the interval holding `ms`: intervals start on multiples of their width since the epoch (UTC). */
export function intervalStart(ms: number, interval: CandleInterval): number {
  const width = INTERVAL_MS[interval];
  return Math.floor(ms / width) * width;
}

/** The first interval to read: `CANDLES_SHOWN` of them up to the current one. */
export function candlesFrom(interval: CandleInterval, now: number): string {
  const start = intervalStart(now, interval) - (CANDLES_SHOWN[interval] - 1) * INTERVAL_MS[interval];
  return new Date(start).toISOString();
}

/** What a trade adds to the volume in cents: its shares at the taker's side price, as the service counts. */
function notionalCents(trade: CandleTrade): number {
  return trade.quantity * (trade.takerSide === 'YES' ? trade.yesPriceCents : 100 - trade.yesPriceCents);
}

function flat(t: number, close: number): Candle {
  return { t: new Date(t).toISOString(), o: close, h: close, l: close, c: close, v: 0, vc: 0 };
}

/**
 * The candles (oldest first, one for every interval from the first) with one more execution, as the service
 * would count it: within an interval the high and low widen, the close is the latest and the volumes add up; a
 * trade past the last candle opens a new one, the intervals between flat at the previous close with no volume.
 * A trade before the first candle lies outside what is shown and changes nothing.
 */
export function withTrade(candles: Candle[], trade: CandleTrade, interval: CandleInterval): Candle[] {
  const start = intervalStart(Date.parse(trade.at), interval);
  const price = trade.yesPriceCents;
  const last = candles[candles.length - 1];
  if (!last || start > Date.parse(last.t)) {
    const gap = last ? upTo(candles, interval, start - INTERVAL_MS[interval]) : candles;
    const opened: Candle = { ...flat(start, price), v: trade.quantity, vc: notionalCents(trade) };
    return [...gap, opened];
  }
  const index = candles.findIndex((candle) => Date.parse(candle.t) === start);
  if (index < 0) return candles;
  const candle = candles[index]!;
  const next = [...candles];
  next[index] = {
    ...candle,
    h: Math.max(candle.h, price),
    l: Math.min(candle.l, price),
    // A candle read with no trades holds the previous close; its first trade is its open.
    ...(candle.v === 0 ? { o: price, h: price, l: price } : {}),
    c: price,
    v: candle.v + trade.quantity,
    vc: candle.vc + notionalCents(trade),
  };
  return next;
}

/** The candles with the trades added in the order given (the stream's commit order). */
export function withTrades(candles: Candle[], trades: CandleTrade[], interval: CandleInterval): Candle[] {
  return trades.reduce((current, trade) => withTrade(current, trade, interval), candles);
}

/**
 * The candles up to the interval holding `until`: every interval since the last candle flat at its close with no
 * volume, as the service fills the intervals without trades. No candles stay none.
 */
export function upTo(candles: Candle[], interval: CandleInterval, until: number): Candle[] {
  const last = candles[candles.length - 1];
  if (!last) return candles;
  const end = intervalStart(until, interval);
  const width = INTERVAL_MS[interval];
  const added: Candle[] = [];
  for (let t = Date.parse(last.t) + width; t <= end; t += width) added.push(flat(t, last.c));
  return added.length > 0 ? [...candles, ...added] : candles;
}

/** An option's trades within the line chart's range (`all`: every one the market read holds). */
export function tradesInRange(option: OptionDetail, range: string, now: number): number {
  const span = RANGE_MS[range];
  if (span === undefined) return option.priceHistory.length;
  return option.priceHistory.filter((point) => Date.parse(point.t) >= now - span).length;
}

/**
 * The chart a market opens on: candles of the chosen option when it trades enough to draw them; the line for a
 * thin market, and for an exclusive event, whose chart is every option's chance together.
 */
export function defaultChartView(
  market: { exclusive: boolean },
  option: OptionDetail | undefined,
  range: string,
  now: number,
): ChartView {
  if (market.exclusive || !option) return 'line';
  return tradesInRange(option, range, now) >= THIN_TRADES ? 'candles' : 'line';
}

/** The finest interval whose window (`CANDLES_SHOWN`) holds the option's trades as read. */
export function defaultInterval(option: OptionDetail | undefined, now: number): CandleInterval {
  const times = (option?.priceHistory ?? []).map((point) => Date.parse(point.t));
  const first = times.length > 0 ? Math.min(...times) : now;
  return (
    INTERVALS.find(({ value }) => now - first < CANDLES_SHOWN[value] * INTERVAL_MS[value])?.value ?? '1d'
  );
}
