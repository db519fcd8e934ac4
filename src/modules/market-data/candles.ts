import { type Side, sidePrice } from '../../exchange/money.js';

/**
 * Candle intervals and their widths; every bucket starts at a multiple of its width since the Unix epoch (UTC), so a
 * 6-hour candle starts at 00:00, 06:00, 12:00 or 18:00 UTC.
 */
export const INTERVALS = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '1d': 86_400_000,
} as const;
export type Interval = keyof typeof INTERVALS;
export const INTERVAL_NAMES = Object.keys(INTERVALS) as Interval[];

/** The most candles one answer holds. */
export const MAX_CANDLES = 1_440;

/** One interval of an option's YES price: open, high, low, close, and the volume in shares and in cents. */
export interface Candle {
  t: string;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  vc: number;
}

/** A stored candle: the start of its interval in milliseconds. */
export interface CandleRow {
  bucket: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volumeShares: number;
  volumeCents: number;
}

/** One execution as the candles count it. */
export interface CandleFill {
  yesPriceCents: number;
  quantity: number;
  takerSide: Side;
  at: number;
}

export function bucketOf(at: number, interval: Interval): number {
  const width = INTERVALS[interval];
  return Math.floor(at / width) * width;
}

/**
 * The candles these fills make, per interval and bucket, in the order given (the order they were made): what one
 * committed change adds to the stored candles.
 */
export function candlesOf(fills: CandleFill[]): { interval: Interval; row: CandleRow }[] {
  const out = new Map<string, { interval: Interval; row: CandleRow }>();
  for (const interval of INTERVAL_NAMES) {
    for (const fill of fills) {
      const bucket = bucketOf(fill.at, interval);
      const key = `${interval}:${bucket}`;
      const price = fill.yesPriceCents;
      const cents = fill.quantity * sidePrice(fill.takerSide, price);
      const found = out.get(key)?.row;
      if (!found) {
        out.set(key, {
          interval,
          row: {
            bucket,
            open: price,
            high: price,
            low: price,
            close: price,
            volumeShares: fill.quantity,
            volumeCents: cents,
          },
        });
        continue;
      }
      found.high = Math.max(found.high, price);
      found.low = Math.min(found.low, price);
      found.close = price;
      found.volumeShares += fill.quantity;
      found.volumeCents += cents;
    }
  }
  return [...out.values()];
}

/**
 * Every interval of [from, to) from the first with a price: stored candles as they are, and each empty interval as
 * a flat candle at the previous close with no volume (the first one at `previousClose`, the close before `from`).
 */
export function denseCandles(
  rows: CandleRow[],
  previousClose: number | null,
  interval: Interval,
  from: number,
  to: number,
): Candle[] {
  const width = INTERVALS[interval];
  const candles: Candle[] = [];
  let close = previousClose;
  let next = 0;
  for (let bucket = bucketOf(from, interval); bucket < to; bucket += width) {
    const row = rows[next];
    if (row && row.bucket === bucket) {
      next += 1;
      close = row.close;
      candles.push({
        t: new Date(bucket).toISOString(),
        o: row.open,
        h: row.high,
        l: row.low,
        c: row.close,
        v: row.volumeShares,
        vc: row.volumeCents,
      });
    } else if (close !== null) {
      const t = new Date(bucket).toISOString();
      candles.push({ t, o: close, h: close, l: close, c: close, v: 0, vc: 0 });
    }
  }
  return candles;
}
