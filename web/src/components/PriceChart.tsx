import {
  CrosshairMode,
  createChart,
  createSeriesMarkers,
  type IChartApi,
  type ISeriesApi,
  LineSeries,
  LineStyle,
  LineType,
  type MouseEventParams,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { type ReactNode, type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import type { OptionDetail } from '../api/types';
import { type ChartSeries, chartSeries, valueAt } from '../lib/chart-series';
import { chanceTenths, formatDate, formatPrice, formatTenths } from '../lib/format';
import { useTheme } from '../theme';
import { Attribution, ChipChoice, chartBase, chartColours, localTime } from './ChartParts';

export const RANGES = [
  { value: '1d', label: '1 day' },
  { value: '1w', label: '1 week' },
  { value: '1m', label: '1 month' },
  { value: 'all', label: 'All' },
] as const;
export type Range = (typeof RANGES)[number]['value'];

const HEIGHT = 240;
/** Colours in the palette (styles.css, one per theme); past it, lines repeat a colour with another dash. */
const COLOURS = 8;
const DASHES = [LineStyle.Solid, LineStyle.Dashed, LineStyle.Dotted];
/** The same dashes as SVG stroke patterns, for the legend's swatches. */
const SWATCH_DASH = ['', '6 4', '2 3'];
const HOUSE_DASH = '9 5';

function lineStyle(series: ChartSeries) {
  return series.kind === 'house'
    ? LineStyle.LargeDashed
    : (DASHES[Math.floor(series.index / COLOURS) % DASHES.length] ?? LineStyle.Solid);
}

function swatchDash(series: ChartSeries): string {
  return series.kind === 'house'
    ? HOUSE_DASH
    : (SWATCH_DASH[Math.floor(series.index / COLOURS) % SWATCH_DASH.length] ?? '');
}

function colourOf(index: number): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(`--series-${index % COLOURS}`);
  return value.trim() || '#2563eb';
}

function legendNote(series: ChartSeries): string {
  if (series.kind === 'none') return 'no trade and no house quote yet: no price';
  if (series.kind === 'house')
    return series.chanceBps === null ? 'house starting price, no trade yet' : 'no trade yet';
  if (series.kind === 'flat') return 'no trade in this period';
  return '';
}

/** A value on the chart: a YES price in cents, or in an exclusive event a chance in percent. */
function formatValue(value: number | null, exclusive: boolean): string {
  if (value === null) return '—';
  if (!exclusive) return formatPrice(value);
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

function Swatch({ series, colour }: { series: ChartSeries; colour: string }) {
  return (
    <svg className="swatch" width="22" height="10" aria-hidden="true">
      <line
        x1="1"
        x2="21"
        y1="5"
        y2="5"
        stroke={colour}
        strokeWidth="3"
        strokeDasharray={swatchDash(series)}
      />
    </svg>
  );
}

/** The chart, its time scale in local time; `onMove` hears the time under the pointer. */
function createPriceChart(element: HTMLElement, onMove: (time: number | null) => void) {
  const chart = createChart(element, {
    ...chartBase(HEIGHT),
    rightPriceScale: { scaleMargins: { top: 0.08, bottom: 0.08 } },
    timeScale: {
      timeVisible: true,
      secondsVisible: false,
      fixLeftEdge: true,
      fixRightEdge: true,
      tickMarkFormatter: (time: Time) => localTime(time, false),
    },
    crosshair: { mode: CrosshairMode.Magnet },
    handleScroll: false,
    handleScale: false,
    localization: { timeFormatter: (time: Time) => localTime(time, true) },
  });
  const move = (param: MouseEventParams) => onMove(param.time === undefined ? null : (param.time as number));
  chart.subscribeCrosshairMove(move);
  return {
    chart,
    remove: () => {
      chart.unsubscribeCrosshairMove(move);
      chart.remove();
    },
  };
}

/** One series as a step line in its colour and dash, with a dot on the price now when it traded. */
function addLine(chart: IChartApi, item: ChartSeries): ISeriesApi<'Line'> {
  const line = chart.addSeries(LineSeries, {
    color: colourOf(item.index),
    lineWidth: 2,
    lineStyle: lineStyle(item),
    lineType: LineType.WithSteps,
    // Values are named in the legend and under the pointer, never as labels that could cover each other.
    lastValueVisible: false,
    priceLineVisible: false,
    crosshairMarkerVisible: item.kind === 'traded',
    autoscaleInfoProvider: () => ({ priceRange: { minValue: 0, maxValue: 100 } }),
  });
  line.setData(
    item.points.map((point) =>
      point.value === undefined
        ? { time: point.time as UTCTimestamp }
        : { time: point.time as UTCTimestamp, value: point.value },
    ),
  );
  // A dot on the price now: an option that traded only a moment ago still shows where it stands.
  const last = item.points[item.points.length - 1];
  if (item.kind === 'traded' && last) {
    createSeriesMarkers(line, [
      {
        time: last.time as UTCTimestamp,
        position: 'inBar',
        color: colourOf(item.index),
        shape: 'circle',
        size: 1,
      },
    ]);
  }
  return line;
}

/** Draws the series with TradingView's Lightweight Charts and reports the moment under the pointer. */
function useChart(
  container: RefObject<HTMLDivElement | null>,
  series: ChartSeries[],
  exclusive: boolean,
  onHover: (time: number | null) => void,
) {
  const chart = useRef<IChartApi | null>(null);
  const lines = useRef<ISeriesApi<'Line'>[]>([]);
  const hover = useRef(onHover);
  hover.current = onHover;
  const { theme } = useTheme();

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const created = createPriceChart(element, (time) => hover.current(time));
    chart.current = created.chart;
    return () => {
      created.remove();
      chart.current = null;
      lines.current = [];
    };
  }, [container]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the theme changes the colours read from the styles
  useEffect(() => {
    const current = chart.current;
    if (!current) return;
    current.applyOptions({
      localization: {
        timeFormatter: (time: Time) => localTime(time, true),
        priceFormatter: (price: number) => `${Math.round(price)}${exclusive ? '%' : '¢'}`,
      },
      ...chartColours(),
    });
    for (const line of lines.current) current.removeSeries(line);
    lines.current = series.map((item) => addLine(current, item));
    current.timeScale().fitContent();
  }, [series, theme, exclusive]);
}

/** The options' lines for the range, running to "now": moved along with every new point, and once a minute. */
function usePriceSeries(options: OptionDetail[], range: Range, exclusive: boolean) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const points = options.reduce((sum, option) => sum + option.priceHistory.length, 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: points stands for the histories' length
  const series = useMemo(
    () => chartSeries(options, range, Math.max(now, Date.now()), { exclusive }),
    [options, range, now, points, exclusive],
  );
  return { points, series };
}

/** Each line in words, for readers who cannot see the chart: now, and its range over the period. */
function chartSummary(
  series: ChartSeries[],
  nowText: (item: ChartSeries, i: number) => string,
  exclusive: boolean,
) {
  return series
    .map((item, i) => {
      const values = item.points.flatMap((point) => (point.value === undefined ? [] : [point.value]));
      const note = legendNote(item);
      if (item.last === null) return `${item.label}: ${note}`;
      return note
        ? `${item.label}: ${nowText(item, i)} (${note})`
        : `${item.label}: ${nowText(item, i)} now, between ${formatValue(Math.min(...values), exclusive)} and ${formatValue(Math.max(...values), exclusive)}`;
    })
    .join('. ');
}

/** The values of every line at the moment under the pointer. */
function ChartTip({
  time,
  series,
  colours,
  exclusive,
}: {
  time: number;
  series: ChartSeries[];
  colours: string[];
  exclusive: boolean;
}) {
  return (
    <div className="chart-tip" aria-hidden="true" data-testid="chart-tip">
      <strong>{formatDate(new Date(time * 1000).toISOString())}</strong>
      {series.map((item, i) => {
        const value = valueAt(item, time);
        return (
          <span key={item.optionId} className="tip-item">
            <Swatch series={item} colour={colours[i] ?? ''} />
            {item.label}:{' '}
            {value === null
              ? 'no trade yet'
              : exclusive
                ? formatValue(value, true)
                : `Yes ${formatPrice(value)}`}
          </span>
        );
      })}
    </div>
  );
}

/** Each line named, with its price or chance now; an exclusive event's chances together. */
function ChartLegend({
  series,
  colours,
  chanceNow,
  together,
}: {
  series: ChartSeries[];
  colours: string[];
  chanceNow: (i: number) => string;
  /** An exclusive event's chances now, together; null otherwise. */
  together: string | null;
}) {
  return (
    <figcaption className="legend" data-testid="chart-legend">
      {together !== null ? (
        <p className="legend-total small" data-testid="chances-total">
          Chances now, one winner: together <strong>{together}</strong>
        </p>
      ) : null}
      <ul className="plain">
        {series.map((item, i) => (
          <li key={item.optionId} className="legend-item">
            <Swatch series={item} colour={colours[i] ?? ''} />
            <span className="legend-label">{item.label}</span>{' '}
            <strong>{item.chanceBps === null ? formatPrice(item.last) : chanceNow(i)}</strong>
            {legendNote(item) ? <span className="muted small"> · {legendNote(item)}</span> : null}
          </li>
        ))}
      </ul>
      <Attribution />
    </figcaption>
  );
}

/**
 * YES price history of every option of a market, each in its own colour and dash, with a legend naming each
 * line and its price now, and the values under the pointer. Step lines from each option's trades (a price holds
 * until the next trade); an option that never traded shows the house's starting price, named as such. In an
 * exclusive event the legend gives each option's chance now, and says that they add up to 100 %.
 */
export function PriceChart({
  options,
  exclusive = false,
  range,
  onRange,
  controls,
}: {
  options: OptionDetail[];
  exclusive?: boolean;
  range: Range;
  onRange: (range: Range) => void;
  /** More choices for the chart's head (which kind of chart), before the range. */
  controls?: ReactNode;
}) {
  const container = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const { points, series } = usePriceSeries(options, range, exclusive);
  useChart(container, series, exclusive, setHover);
  const { theme } = useTheme();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the theme changes the palette
  const colours = useMemo(() => series.map((item) => colourOf(item.index)), [series, theme]);
  // An exclusive event's chances now, each to a tenth, adding up to exactly 100.0 %.
  const tenths = chanceTenths(series.map((item) => item.chanceBps ?? 0));
  const chanceNow = (i: number) => formatTenths(tenths[i] ?? 0);
  const nowText = (item: ChartSeries, i: number) =>
    item.chanceBps === null ? `Yes ${formatPrice(item.last)}` : `${chanceNow(i)} chance`;
  const together = formatTenths(tenths.reduce((sum, value) => sum + value, 0));

  return (
    <figure className="chart">
      <div className="chart-head">
        <h2>{exclusive ? 'Chances over time' : 'Price history'}</h2>
        <div className="chart-controls">
          {controls}
          <ChipChoice legend="Time range" choices={RANGES} value={range} onChange={onRange} />
        </div>
      </div>
      <p className="visually-hidden">
        {exclusive ? 'Chance of each option over time' : 'Yes price history'}.{' '}
        {chartSummary(series, nowText, exclusive)}.
      </p>
      <div className="chart-plot" data-testid="price-chart" data-points={points}>
        <div ref={container} className="chart-canvas" style={{ height: HEIGHT }} />
        {hover !== null ? (
          <ChartTip time={hover} series={series} colours={colours} exclusive={exclusive} />
        ) : null}
      </div>
      <ChartLegend
        series={series}
        colours={colours}
        chanceNow={chanceNow}
        together={exclusive ? together : null}
      />
    </figure>
  );
}
