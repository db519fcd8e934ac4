import { useEffect, useRef, useState } from 'react';
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
const MIN_SPAN_MS = 60 * 60 * 1000;

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

/**
 * YES price history of each option as step lines (a price holds until the next trade), carried on to now, with a
 * text summary for screen readers.
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
  const series = options.filter((option) => option.priceHistory.length > 0);
  const times = series.flatMap((option) => option.priceHistory.map((point) => Date.parse(point.t)));
  const end = Math.max(Date.now(), ...times);
  const start = Math.min(end - MIN_SPAN_MS, ...times);
  const x = (t: number) => PAD.left + ((t - start) / (end - start)) * (width - PAD.left - PAD.right);
  const y = (cents: number) => PAD.top + ((100 - cents) / 100) * (HEIGHT - PAD.top - PAD.bottom);

  const summary = series
    .map((option) => {
      const prices = option.priceHistory.map((point) => point.yesPriceCents);
      const last = prices[prices.length - 1];
      return `${option.label}: Yes ${formatPrice(last)} now, between ${formatPrice(Math.min(...prices))} and ${formatPrice(Math.max(...prices))}`;
    })
    .join('. ');

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
      <div ref={ref}>
        {series.length === 0 ? (
          <p className="empty">No trades in this period yet: the chart starts with the first trade.</p>
        ) : (
          <svg width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} role="img">
            <title>{`Yes price history. ${summary}.`}</title>
            {[0, 25, 50, 75, 100].map((cents) => (
              <g key={cents} className="grid-line">
                <line x1={PAD.left} x2={width - PAD.right} y1={y(cents)} y2={y(cents)} />
                <text x={PAD.left - 6} y={y(cents) + 4} textAnchor="end">
                  {cents}¢
                </text>
              </g>
            ))}
            {series.map((option, index) => {
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
            <text className="axis-label" x={PAD.left} y={HEIGHT - 6}>
              {formatDate(new Date(start).toISOString())}
            </text>
            <text className="axis-label" x={width - PAD.right} y={HEIGHT - 6} textAnchor="end">
              Now
            </text>
          </svg>
        )}
      </div>
      {series.length > 1 ? (
        <figcaption className="legend" aria-hidden="true">
          {series.map((option, index) => (
            <span key={option.id} className={`legend-item series-${index % SERIES_COLOURS}`}>
              <span className="swatch" />
              {option.label} {formatPrice(option.priceHistory[option.priceHistory.length - 1]?.yesPriceCents)}
            </span>
          ))}
        </figcaption>
      ) : null}
    </figure>
  );
}
