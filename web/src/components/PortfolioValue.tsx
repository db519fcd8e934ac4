import {
  AreaSeries,
  CrosshairMode,
  createChart,
  type IChartApi,
  type ISeriesApi,
  type MouseEventParams,
  TickMarkType,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import { useAuth } from '../auth';
import { formatCredits, formatDate, formatSignedCredits, pnlClass } from '../lib/format';
import { useApi } from '../lib/hooks';
import {
  openingRange,
  VALUE_RANGES,
  type ValueChange,
  type ValueNow,
  type ValuePoint,
  type ValueRange,
  valueChange,
  valuePoints,
} from '../lib/portfolio-value';
import { useTheme } from '../theme';
import {
  Attribution,
  ChipChoice,
  chartBase,
  chartColours,
  cssVar,
  localTime,
  translucent,
} from './ChartParts';
import { ErrorMessage, Loading } from './Status';

const HEIGHT = 200;

const seconds = (point: ValuePoint) => Math.floor(Date.parse(point.t) / 1000) as UTCTimestamp;
const credits = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A mark on the time axis: the day where a day starts, else the time of day. */
function tickMark(time: Time, type: TickMarkType): string {
  if (type === TickMarkType.Time || type === TickMarkType.TimeWithSeconds) return localTime(time, false);
  return new Date((time as number) * 1000).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** Draws the total value as an area and reports the moment under the pointer. */
function useValueChart(
  container: RefObject<HTMLDivElement | null>,
  points: ValuePoint[],
  onHover: (time: number | null) => void,
) {
  const chart = useRef<IChartApi | null>(null);
  const area = useRef<ISeriesApi<'Area'> | null>(null);
  const hover = useRef(onHover);
  hover.current = onHover;
  const { theme } = useTheme();

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const created = createChart(element, {
      ...chartBase(HEIGHT),
      // Room below the line for the library's logo in the corner.
      rightPriceScale: { scaleMargins: { top: 0.12, bottom: 0.22 } },
      timeScale: { timeVisible: true, secondsVisible: false, fixLeftEdge: true, fixRightEdge: true },
      crosshair: { mode: CrosshairMode.Magnet },
      handleScroll: false,
      handleScale: false,
      localization: {
        timeFormatter: (time: Time) => localTime(time, true),
        priceFormatter: (value: number) => credits.format(value),
      },
    });
    area.current = created.addSeries(AreaSeries, { lineWidth: 2, priceLineVisible: false });
    const move = (param: MouseEventParams) =>
      hover.current(param.time === undefined ? null : (param.time as number));
    created.subscribeCrosshairMove(move);
    chart.current = created;
    return () => {
      created.unsubscribeCrosshairMove(move);
      created.remove();
      chart.current = null;
      area.current = null;
    };
  }, [container]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the theme changes the colours read from the styles
  useEffect(() => {
    const current = chart.current;
    if (!current) return;
    const accent = cssVar('--accent', '#2152c8');
    current.applyOptions({
      ...chartColours(),
      timeScale: { tickMarkFormatter: (time: Time, type: TickMarkType) => tickMark(time, type) },
    });
    area.current?.applyOptions({
      lineColor: accent,
      topColor: translucent(accent, 0.28),
      bottomColor: translucent(accent, 0.02),
    });
    // One point is no line: a new account's chart stays empty until its second point, and says so.
    const drawn = points.length < 2 ? [] : points;
    area.current?.setData(
      drawn.map((point) => ({ time: seconds(point), value: point.totalValueCents / 100 })),
    );
    current.timeScale().fitContent();
  }, [points, theme]);
}

function Change({ change, span }: { change: ValueChange; span: string }) {
  const percent = change.percent;
  return (
    <>
      <span className={pnlClass(change.changeCents)}>
        {formatSignedCredits(change.changeCents)}
        {percent === null
          ? ''
          : ` (${percent > 0 ? '+' : percent < 0 ? '−' : ''}${Math.abs(percent).toFixed(2)}%)`}
      </span>{' '}
      <span className="muted">over {span}</span>
    </>
  );
}

function Breakdown({ point }: { point: ValuePoint }) {
  return (
    <div className="chart-tip" aria-hidden="true" data-testid="value-tip">
      <strong>{formatDate(point.t)}</strong>
      <span>Total {formatCredits(point.totalValueCents)}</span>
      <span className="muted">Cash {formatCredits(point.cashCents)}</span>
      {point.reservedCents > 0 ? (
        <span className="muted">Held for orders {formatCredits(point.reservedCents)}</span>
      ) : null}
      <span className="muted">Positions {formatCredits(point.positionsValueCents)}</span>
    </div>
  );
}

/**
 * The portfolio's total value (cash, what open orders hold and the positions at their marks) over a day, a week, a
 * month or since joining, read once per range and ending on the portfolio as it now stands.
 */
export function PortfolioValue({ current }: { current: ValueNow | undefined }) {
  const { me } = useAuth();
  const [chosen, setRange] = useState<ValueRange | null>(null);
  const range = chosen ?? (me ? openingRange(me.createdAt, Date.now()) : '1w');
  // Read once the account (its age) is known, so the opening period is read, and only it.
  const history = useApi(me ? '/api/me/portfolio-history' : null, { params: { query: { range } } });
  const points = useMemo(
    () => valuePoints(history.data?.data ?? [], current, Date.now()),
    [history.data, current],
  );
  const container = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  useValueChart(container, points, setHover);
  const change = valueChange(points);
  const span = VALUE_RANGES.find((item) => item.value === range)?.span ?? '';
  const hovered = hover === null ? undefined : points.find((point) => seconds(point) === hover);
  const low = points.length > 0 ? Math.min(...points.map((point) => point.totalValueCents)) : 0;
  const high = points.length > 0 ? Math.max(...points.map((point) => point.totalValueCents)) : 0;

  return (
    <section className="card" aria-labelledby="value-heading">
      <figure className="chart">
        <div className="chart-head">
          <h2 id="value-heading">Value over time</h2>
          <ChipChoice legend="Period" choices={VALUE_RANGES} value={range} onChange={setRange} />
        </div>
        {change ? (
          <p className="value-change" data-testid="value-change">
            <strong>{formatCredits(change.nowCents)}</strong>{' '}
            {points.length > 1 ? <Change change={change} span={span} /> : null}
          </p>
        ) : null}
        {change ? (
          <p className="visually-hidden">
            Total value over {span}: from {formatCredits(change.startCents)} to{' '}
            {formatCredits(change.nowCents)}, between {formatCredits(low)} and {formatCredits(high)}.
          </p>
        ) : null}
        <div
          className="chart-plot"
          data-testid="value-chart"
          data-points={points.length}
          data-last={points.at(-1)?.totalValueCents}
          data-previous={points.at(-2)?.totalValueCents}
        >
          <div ref={container} className="chart-canvas" style={{ height: HEIGHT }} />
          {hovered ? <Breakdown point={hovered} /> : null}
          {history.data && points.length < 2 ? (
            <p className="chart-empty muted small value-young">
              Your value over time starts with your account: a point every 5 minutes over a day, every hour
              over a week.
            </p>
          ) : null}
          {!history.data && !history.error ? (
            <div className="chart-empty">
              <Loading label="Loading your value over time…" />
            </div>
          ) : null}
        </div>
        <ErrorMessage error={history.error} onRetry={history.reload} />
        <figcaption className="legend">
          <p className="muted small">
            Cash, what your open orders hold, and your positions at their prices then (a resolved option at
            its payout).
          </p>
          <Attribution />
        </figcaption>
      </figure>
    </section>
  );
}
