import type { OptionDetail } from '../api/types';

/** How an option's line is drawn: its trades, its last price held flat, or the house's starting quote. */
export type SeriesKind = 'traded' | 'flat' | 'house' | 'none';

export interface ChartPoint {
  /** Seconds since the epoch (UTC), as the chart library takes time. */
  time: number;
  /** The YES price then; absent before the option's first trade (the line starts at its first trade). */
  value?: number;
}

export interface ChartSeries {
  optionId: string;
  label: string;
  /** The option's place in the market: its colour and dash, the same on every range. */
  index: number;
  kind: SeriesKind;
  points: ChartPoint[];
  /**
   * The value at the right edge (now): the YES price, or in an exclusive event the option's chance in percent; null
   * for an option with no price at all (no trade, no house).
   */
  last: number | null;
  /** An exclusive event's option: its chance now in basis points (those of all options add up to 10,000). */
  chanceBps: number | null;
}

/** What the chart needs to know of the market: whether its options are one market ("who wins?"). */
export interface ChartMarket {
  exclusive: boolean;
}

const INDEPENDENT: ChartMarket = { exclusive: false };

const SPAN_MS: Record<string, number> = { '1d': 86_400_000, '1w': 7 * 86_400_000, '1m': 30 * 86_400_000 };
/** The shortest span drawn, so that a burst of trades a minute old still reads as a line. */
const MIN_SPAN_MS = 5 * 60_000;
/** About this many points across the chart: the library spaces points evenly, so they are evenly spaced in time. */
const BUCKETS = 240;
const STEP_CHOICES_S = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 86_400];

/** The price history's trades in time order. */
function trades(history: { t: string; yesPriceCents: number }[]): { time: number; value: number }[] {
  return history
    .map((point) => ({ time: Date.parse(point.t) / 1000, value: point.yesPriceCents }))
    .sort((a, b) => a.time - b.time);
}

/**
 * Every option of a market as a line over the chosen range, up to now, sampled at even steps (a price holds until
 * the next trade): its trades in the range; an option that traded only before the range at its last price; one
 * that never traded at the house's starting price (drawn differently, and named so in the legend). Nothing is
 * drawn before an option's first trade, and nothing is invented between trades.
 *
 * In an exclusive event a trade in one option moves the house's chances of all of them, so every line ends at its
 * option's chance now (the chances add up to 100 %), and an option without a trade in the range is drawn flat at
 * that chance.
 */
export function chartSeries(
  options: OptionDetail[],
  range: string,
  now = Date.now(),
  market: ChartMarket = INDEPENDENT,
): ChartSeries[] {
  const times = options.flatMap((option) => option.priceHistory.map((point) => Date.parse(point.t)));
  const span = SPAN_MS[range];
  const earliest = times.length > 0 ? Math.min(...times) : now - 86_400_000;
  const startMs = Math.min(span ? now - span : earliest, now - MIN_SPAN_MS);
  const endMs = Math.max(now, ...times);
  const wanted = (endMs - startMs) / 1000 / BUCKETS;
  const step = STEP_CHOICES_S.find((choice) => choice >= wanted) ?? Math.ceil(wanted / 86_400) * 86_400;
  const first = Math.floor(startMs / 1000 / step) * step;
  const last = Math.ceil(endMs / 1000 / step) * step;
  const grid: number[] = [];
  for (let time = first; time <= last; time += step) grid.push(time);
  return options.map((option, index) => {
    const chanceBps = market.exclusive ? option.probabilityBps : null;
    const base = { optionId: option.id, label: option.label, index, chanceBps };
    const traded = trades(option.priceHistory);
    // An exclusive event always shows a chance for each option: the house's, or the traded prices scaled.
    if (!market.exclusive && option.lastYesPriceCents === null && option.houseLiquidityCents === 0) {
      // Neither a trade nor a house quote: there is no price to draw.
      return { ...base, kind: 'none', points: grid.map((time) => ({ time })), last: null, chanceBps: null };
    }
    if (traded.length > 0) {
      let next = 0;
      let value: number | undefined;
      const points = grid.map((time) => {
        while (next < traded.length && (traded[next]?.time ?? Infinity) <= time)
          value = traded[next++]?.value;
        return value === undefined ? { time } : { time, value };
      });
      // A trade after the last grid line still shows: it is the price now (in an exclusive event, the chance).
      const latest = chanceBps === null ? traded[traded.length - 1]!.value : chanceBps / 100;
      const tail = points[points.length - 1];
      if (tail) tail.value = latest;
      return { ...base, kind: 'traded', points, last: latest };
    }
    const flat = chanceBps !== null ? chanceBps / 100 : (option.lastYesPriceCents ?? option.yesPriceCents);
    return {
      ...base,
      kind: option.lastYesPriceCents === null ? 'house' : 'flat',
      points: grid.map((time) => ({ time, value: flat })),
      last: flat,
    };
  });
}

/** A series' YES price at a moment: its last point at or before it, or null before its first trade. */
export function valueAt(series: ChartSeries, time: number): number | null {
  let value: number | null = null;
  for (const point of series.points) {
    if (point.time > time) break;
    value = point.value ?? null;
  }
  return value;
}
