import { type MouseEvent, useEffect, useRef, useState } from 'react';
import type { OptionDetail } from '../api/types';
import { formatDate, formatPrice } from '../lib/format';

export const RANGES = [
  { value: '1d', label: '1 day' },
  { value: '1w', label: '1 week' },
  { value: '1m', label: '1 month' },
  { value: 'all', label: 'All' },
] as const;
export type Range = (typeof RANGES)[number]['value'];

const HEIGHT = 220;
const PAD = { top: 12, right: 14, bottom: 24, left: 38 };
const SERIES_COLOURS = 6;
/** The shortest time the chart spans, so a burst of trades a minute old still reads as a line. */
const MIN_SPAN_MS = 5 * 60 * 1000;

/** The element's width in CSS pixels, so the chart draws at its real size and its labels never stretch. */
function useWidth<T extends HTMLElement>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(200, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/** The YES price of a series at time `t`: its last point at or before it, or null before its first trade. */
function priceAt(history: { t: string; yesPriceCents: number }[], t: number): number | null {
  let price: number | null = null;
  for (const point of history) {
    if (Date.parse(point.t) > t) break;
    price = point.yesPriceCents;
  }
  return price;
}

/** Options that never traded: the house quotes its starting price, drawn dashed and labelled as such. */
function HouseLines({
  options,
  x0,
  x1,
  y,
}: {
  options: OptionDetail[];
  x0: number;
  x1: number;
  y: (cents: number) => number;
}) {
  return (
    <>
      {options.map((option, index) => (
        <g key={option.id} className={`series series-${index % SERIES_COLOURS} house-line`}>
          <line x1={x0} x2={x1} y1={y(option.yesPriceCents)} y2={y(option.yesPriceCents)} />
          <text x={x1} y={y(option.yesPriceCents) - 5} textAnchor="end">
            {options.length > 1 ? `${option.label}: ` : ''}house starting price{' '}
            {formatPrice(option.yesPriceCents)}
          </text>
        </g>
      ))}
    </>
  );
}

/**
 * YES price history of each option as step lines from its first trade (a price holds until the next trade),
 * carried on to now, with the value under the pointer and a text summary for screen readers. An option that never
 * traded shows the house's starting price, labelled, instead of a made-up history.
 */
export function PriceChart({
  options,
  range,
  onRange,
}: {
  options: OptionDetail[];
  range: string;
  onRange: (range: Range) => void;
}) {
  const { ref, width } = useWidth<HTMLDivElement>(640);
  const [hover, setHover] = useState<number | null>(null);
  const series = options.filter((option) => option.priceHistory.length > 0);
  const untraded = options.filter((option) => option.lastYesPriceCents === null);
  const times = series.flatMap((option) => option.priceHistory.map((point) => Date.parse(point.t)));
  const end = Math.max(Date.now(), ...times);
  const start = Math.min(end - MIN_SPAN_MS, ...times);
  const plotWidth = width - PAD.left - PAD.right;
  const x = (t: number) => PAD.left + ((t - start) / (end - start)) * plotWidth;
  const y = (cents: number) => PAD.top + ((100 - cents) / 100) * (HEIGHT - PAD.top - PAD.bottom);
  const hoverValues =
    hover === null
      ? []
      : series.map((option) => ({ label: option.label, price: priceAt(option.priceHistory, hover) }));

  const summary = series
    .map((option) => {
      const prices = option.priceHistory.map((point) => point.yesPriceCents);
      const last = prices[prices.length - 1];
      return `${option.label}: Yes ${formatPrice(last)} now, between ${formatPrice(Math.min(...prices))} and ${formatPrice(Math.max(...prices))}`;
    })
    .join('. ');
  const onMove = (event: MouseEvent<SVGSVGElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const px = ((event.clientX - box.left) / box.width) * width;
    if (px < PAD.left || px > width - PAD.right) return setHover(null);
    setHover(start + ((px - PAD.left) / plotWidth) * (end - start));
  };

  return (
    <figure className="chart">
      <div className="chart-head">
        <h2>Price history</h2>
        <fieldset className="chips small">
          <legend className="visually-hidden">Time range</legend>
          {RANGES.map((item) => (
            <button
              key={item.value}
              type="button"
              className="chip"
              aria-pressed={range === item.value}
              onClick={() => onRange(item.value)}
            >
              {item.label}
            </button>
          ))}
        </fieldset>
      </div>
      <div ref={ref} className="chart-plot">
        {series.length === 0 && untraded.length === 0 ? (
          <p className="empty">No trades in this period. Pick a longer range to see earlier prices.</p>
        ) : (
          <svg
            width={width}
            height={HEIGHT}
            viewBox={`0 0 ${width} ${HEIGHT}`}
            role="img"
            data-testid="price-chart"
            data-points={series.reduce((sum, option) => sum + option.priceHistory.length, 0)}
            onMouseMove={onMove}
            onMouseLeave={() => setHover(null)}
          >
            <title>
              {series.length > 0
                ? `Yes price history. ${summary}.`
                : 'No trades yet: the house starting prices.'}
            </title>
            {[0, 25, 50, 75, 100].map((cents) => (
              <g key={cents} className="grid-line">
                <line x1={PAD.left} x2={width - PAD.right} y1={y(cents)} y2={y(cents)} />
                <text x={PAD.left - 6} y={y(cents) + 4} textAnchor="end">
                  {cents}¢
                </text>
              </g>
            ))}
            <HouseLines options={untraded} x0={PAD.left} x1={width - PAD.right} y={y} />
            {series.map((option) => {
              const index = options.indexOf(option);
              const points = option.priceHistory.flatMap((point, i, all) => {
                const next = all[i + 1];
                const until = next ? Date.parse(next.t) : end;
                return [
                  `${x(Date.parse(point.t))},${y(point.yesPriceCents)}`,
                  `${x(until)},${y(point.yesPriceCents)}`,
                ];
              });
              const last = option.priceHistory[option.priceHistory.length - 1]!;
              return (
                <g key={option.id} className={`series series-${index % SERIES_COLOURS}`}>
                  <polyline points={points.join(' ')} />
                  <circle cx={x(end)} cy={y(last.yesPriceCents)} r={3.5} />
                </g>
              );
            })}
            {hover !== null ? (
              <line
                className="hover-line"
                x1={x(hover)}
                x2={x(hover)}
                y1={PAD.top}
                y2={HEIGHT - PAD.bottom}
              />
            ) : null}
            <text className="axis-label" x={PAD.left} y={HEIGHT - 6}>
              {formatDate(new Date(start).toISOString())}
            </text>
            <text className="axis-label" x={width - PAD.right} y={HEIGHT - 6} textAnchor="end">
              Now
            </text>
          </svg>
        )}
        {hover !== null ? (
          <div className="chart-tip" aria-hidden="true" data-testid="chart-tip">
            <strong>{formatDate(new Date(hover).toISOString())}</strong>
            {hoverValues.map((value) => (
              <span key={value.label}>
                {value.label}: {value.price === null ? 'no trade yet' : `Yes ${formatPrice(value.price)}`}
              </span>
            ))}
          </div>
        ) : null}
      </div>
      {series.length > 1 ? (
        <figcaption className="legend" aria-hidden="true">
          {series.map((option) => (
            <span
              key={option.id}
              className={`legend-item series-${options.indexOf(option) % SERIES_COLOURS}`}
            >
              <span className="swatch" />
              {option.label} {formatPrice(option.priceHistory[option.priceHistory.length - 1]?.yesPriceCents)}
            </span>
          ))}
        </figcaption>
      ) : null}
    </figure>
  );
}
