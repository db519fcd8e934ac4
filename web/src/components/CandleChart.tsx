import {
  CandlestickSeries,
  CrosshairMode,
  createChart,
  HistogramSeries,
  type IChartApi,
  type ISeriesApi,
  type MouseEventParams,
  TickMarkType,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { type ReactNode, type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import type { OptionDetail } from '../api/types';
import {
  CANDLES_SHOWN,
  type Candle,
  type CandleInterval,
  INTERVAL_MS,
  INTERVALS,
  upTo,
} from '../lib/candles';
import { formatCredits, formatNumber, formatPrice } from '../lib/format';
import { useApi } from '../lib/hooks';
import { CANDLES_PATH, candlesInit } from '../lib/market-data';
import { useTheme } from '../theme';
import {
  Attribution,
  ChipChoice,
  chartBase,
  chartColours,
  cssVar,
  localTime,
  translucent,
  utcDay,
} from './ChartParts';
import { ErrorMessage, Loading } from './Status';

const HEIGHT = 260;
/** Wider bars than this would make a few candles look like a trend: a young market's candles keep a sane width. */
const MAX_BAR_SPACING = 24;
/** The chart runs to now: a new interval without trades shows as a flat candle this soon after it starts. */
const TICK_MS = 30_000;

const INTERVAL_WORDS: Record<CandleInterval, string> = {
  '1m': '1-minute',
  '5m': '5-minute',
  '15m': '15-minute',
  '1h': '1-hour',
  '6h': '6-hour',
  '1d': '1-day',
};

const seconds = (candle: Candle) => (Date.parse(candle.t) / 1000) as UTCTimestamp;

/** When a candle starts, as a reader says it: the day for day candles (UTC days), else the local time. */
function candleTime(candle: Candle, interval: CandleInterval): string {
  return interval === '1d' ? utcDay(seconds(candle)) : localTime(seconds(candle), true);
}

function tickMark(time: Time, type: TickMarkType, interval: CandleInterval): string {
  if (interval === '1d' || type === TickMarkType.DayOfMonth) return utcDay(time, 'short');
  if (type === TickMarkType.Year || type === TickMarkType.Month) return utcDay(time, 'short');
  return localTime(time, false);
}

interface CandlePlot {
  chart: IChartApi;
  prices: ISeriesApi<'Candlestick'>;
  volumes: ISeriesApi<'Histogram'>;
}

/** The chart with its two series: candles above, volume below; `onMove` hears the time under the pointer. */
function createCandlePlot(
  element: HTMLElement,
  onMove: (time: number | null) => void,
): CandlePlot & { remove(): void } {
  const chart = createChart(element, {
    ...chartBase(HEIGHT),
    timeScale: {
      timeVisible: true,
      secondsVisible: false,
      fixLeftEdge: true,
      fixRightEdge: true,
      maxBarSpacing: MAX_BAR_SPACING,
    },
    crosshair: { mode: CrosshairMode.Magnet },
    handleScroll: false,
    handleScale: false,
    localization: { priceFormatter: (price: number) => `${Math.round(price)}¢` },
  });
  const prices = chart.addSeries(CandlestickSeries, {
    borderVisible: false,
    priceLineVisible: false,
    priceFormat: { type: 'price', precision: 0, minMove: 1 },
  });
  prices.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.28 } });
  const volumes = chart.addSeries(HistogramSeries, {
    priceScaleId: 'volume',
    priceFormat: { type: 'volume' },
    lastValueVisible: false,
    priceLineVisible: false,
  });
  volumes.priceScale().applyOptions({ scaleMargins: { top: 0.78, bottom: 0 }, visible: false });
  const move = (param: MouseEventParams) => onMove(param.time === undefined ? null : (param.time as number));
  chart.subscribeCrosshairMove(move);
  return {
    chart,
    prices,
    volumes,
    remove: () => {
      chart.unsubscribeCrosshairMove(move);
      chart.remove();
    },
  };
}

/** Draws the candles and volumes in the theme's colours, with the interval's time labels. */
function paintCandles(
  { chart, prices, volumes }: CandlePlot,
  candles: Candle[],
  interval: CandleInterval,
): void {
  chart.applyOptions({
    ...chartColours(),
    timeScale: { tickMarkFormatter: (time: Time, type: TickMarkType) => tickMark(time, type, interval) },
    localization: {
      timeFormatter: (time: Time) => (interval === '1d' ? utcDay(time) : localTime(time, true)),
    },
  });
  const up = cssVar('--yes', '#0b6e37');
  const down = cssVar('--no', '#b0241a');
  // An interval without trades holds the previous close: drawn faint, so the traded candles stand out.
  const idle = translucent(cssVar('--muted', '#555e72'), 0.6);
  prices.applyOptions({ upColor: up, downColor: down, wickUpColor: up, wickDownColor: down });
  prices.setData(
    candles.map((candle) => ({
      time: seconds(candle),
      open: candle.o,
      high: candle.h,
      low: candle.l,
      close: candle.c,
      ...(candle.v === 0 ? { color: idle, wickColor: idle } : {}),
    })),
  );
  volumes.setData(
    candles.map((candle) => ({
      time: seconds(candle),
      value: candle.v,
      color: translucent(candle.c >= candle.o ? up : down, 0.45),
    })),
  );
}

/** Draws the candles with their volume below them, and reports the candle under the pointer. */
function useCandleChart(
  container: RefObject<HTMLDivElement | null>,
  candles: Candle[],
  interval: CandleInterval,
  fitKey: string,
  onHover: (time: number | null) => void,
) {
  const plot = useRef<CandlePlot | null>(null);
  const hover = useRef(onHover);
  hover.current = onHover;
  const { theme } = useTheme();

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const created = createCandlePlot(element, (time) => hover.current(time));
    plot.current = created;
    return () => {
      created.remove();
      plot.current = null;
    };
  }, [container]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the theme changes the colours read from the styles
  useEffect(() => {
    if (plot.current) paintCandles(plot.current, candles, interval);
  }, [candles, theme, interval]);

  // A new option or interval is fitted to the width; a live trade moves the candles in place.
  // biome-ignore lint/correctness/useExhaustiveDependencies: fitKey stands for what is drawn
  useEffect(() => {
    if (candles.length > 0) plot.current?.chart.timeScale().fitContent();
  }, [fitKey, candles.length > 0]);
}

/** An option's candles for the interval, read from `from` and running to now (a flat candle for a quiet one). */
function useCandles(optionId: string, interval: CandleInterval, from: string) {
  const read = useApi(CANDLES_PATH, candlesInit(optionId, interval, from));
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);
  const candles = useMemo(
    () => upTo(read.data?.data ?? [], interval, Math.max(now, Date.now())).slice(-CANDLES_SHOWN[interval]),
    [read.data, interval, now],
  );
  return { read, candles };
}

/** A candle in words: open, high, low, close and the volume. */
function describe(candle: Candle): string {
  return (
    `opened at ${formatPrice(candle.o)}, ranged ${formatPrice(candle.l)} to ${formatPrice(candle.h)}, ` +
    `closed at ${formatPrice(candle.c)} on ${formatNumber(candle.v)} shares`
  );
}

function Readout({ candle, interval }: { candle: Candle; interval: CandleInterval }) {
  const change = candle.c - candle.o;
  return (
    <p className="candle-readout small" data-testid="candle-readout">
      <span className="muted">{candleTime(candle, interval)}</span>
      <span>
        Open <strong>{formatPrice(candle.o)}</strong>
      </span>
      <span>
        High <strong>{formatPrice(candle.h)}</strong>
      </span>
      <span>
        Low <strong>{formatPrice(candle.l)}</strong>
      </span>
      <span>
        Close <strong>{formatPrice(candle.c)}</strong>{' '}
        <span className={change > 0 ? 'gain' : change < 0 ? 'loss' : 'muted'}>
          {change > 0 ? '+' : change < 0 ? '−' : '±'}
          {Math.abs(change)}¢
        </span>
      </span>
      <span>
        Volume <strong>{formatNumber(candle.v)}</strong> shares ({formatCredits(candle.vc)})
      </span>
    </p>
  );
}

/** The plot the chart draws in, with what it holds in data attributes, and a line while it loads or is empty. */
function CandleCanvas({
  container,
  candles,
  interval,
  read,
}: {
  container: RefObject<HTMLDivElement | null>;
  candles: Candle[];
  interval: CandleInterval;
  read: { data?: unknown; error: unknown };
}) {
  const last = candles[candles.length - 1];
  return (
    <div
      className="chart-plot"
      data-testid="candle-chart"
      data-candles={candles.length}
      data-traded={candles.filter((candle) => candle.v > 0).length}
      data-last={last ? [seconds(last), last.o, last.h, last.l, last.c, last.v].join(',') : ''}
      data-interval-ms={INTERVAL_MS[interval]}
    >
      <div ref={container} className="chart-canvas" style={{ height: HEIGHT }} />
      {read.data && candles.length === 0 ? (
        <p className="chart-empty muted">No trades yet: the candles start with the first trade.</p>
      ) : null}
      {!read.data && !read.error ? (
        <div className="chart-empty">
          <Loading label="Loading the candles…" />
        </div>
      ) : null}
    </div>
  );
}

/**
 * Candles of one option's YES price (open, high, low, close per 1-minute, 1-hour or 1-day interval, with the
 * volume below), read when shown and moved by the stream's trades in place (the market page keeps the cached
 * candles up to date). Above the plot, the candle under the pointer, or the latest, in figures.
 */
export function CandleChart({
  option,
  interval,
  onInterval,
  from,
  controls,
  several,
}: {
  option: OptionDetail;
  interval: CandleInterval;
  onInterval: (interval: CandleInterval) => void;
  /** The first interval read: fixed for the page's visit, so that the candles read stay the cached ones. */
  from: string;
  controls: ReactNode;
  /** The market has other options, which the candles leave out. */
  several: boolean;
}) {
  const { read, candles } = useCandles(option.id, interval, from);
  const container = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  useCandleChart(
    container,
    candles,
    interval,
    `${option.id}:${interval}:${read.data ? 'read' : ''}`,
    setHover,
  );
  const last = candles[candles.length - 1];
  const shown = (hover === null ? undefined : candles.find((candle) => seconds(candle) === hover)) ?? last;
  const first = candles[0];

  return (
    <figure className="chart">
      <div className="chart-head">
        <h2>Price history</h2>
        <div className="chart-controls">
          {controls}
          <ChipChoice legend="Candle interval" choices={INTERVALS} value={interval} onChange={onInterval} />
        </div>
      </div>
      <p className="candle-title small">
        <strong>{option.label}</strong>: Yes price, {INTERVAL_WORDS[interval]} candles
        {several ? <span className="muted"> (the option picked in the table)</span> : null}
      </p>
      {shown ? <Readout candle={shown} interval={interval} /> : null}
      {first && last ? (
        <p className="visually-hidden">
          Candles of the Yes price of {option.label}, {INTERVAL_WORDS[interval]} each: {candles.length} from{' '}
          {candleTime(first, interval)} to {candleTime(last, interval)}. The latest {describe(last)}.
        </p>
      ) : null}
      <CandleCanvas container={container} candles={candles} interval={interval} read={read} />
      <ErrorMessage error={read.error} onRetry={read.reload} />
      <figcaption className="legend">
        <Attribution />
      </figcaption>
    </figure>
  );
}
