import { ColorType, type Time } from 'lightweight-charts';

/** A colour of the current theme, from the stylesheet's variables. */
export function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** What every chart of the app starts with: its height, the page's font, no background of its own, the library's logo. */
export function chartBase(height: number) {
  return {
    autoSize: true,
    height,
    layout: {
      background: { type: ColorType.Solid, color: 'transparent' },
      fontFamily: 'inherit',
      attributionLogo: true,
    },
  } as const;
}

/** The current theme's text and grid colours of a chart. */
export function chartColours() {
  const grid = cssVar('--border', '#ddd');
  return {
    layout: { textColor: cssVar('--muted', '#555') },
    grid: { vertLines: { color: grid }, horzLines: { color: grid } },
  };
}

/** A theme colour (#rrggbb) made see-through, for what sits behind the prices (volume bars, an area's fill). */
export function translucent(colour: string, alpha: number): string {
  if (!/^#[0-9a-f]{6}$/i.test(colour)) return colour;
  const channel = (at: number) => Number.parseInt(colour.slice(at, at + 2), 16);
  return `rgba(${channel(1)}, ${channel(3)}, ${channel(5)}, ${alpha})`;
}

/** The chart library reads times as UTC; the axis and the pointer speak the reader's own time. */
export function localTime(time: Time, withDate: boolean): string {
  const date = new Date((time as number) * 1000);
  return withDate
    ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
    : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** A UTC day as a date, whatever the reader's time zone: day candles and day ticks start at 00:00 UTC. */
export function utcDay(time: Time, style: 'medium' | 'short' = 'medium'): string {
  const date = new Date((time as number) * 1000);
  return style === 'short'
    ? date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
    : date.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
}

/** A row of pressed-or-not chips choosing one value: a chart's range, interval or kind. */
export function ChipChoice<T extends string>({
  legend,
  choices,
  value,
  onChange,
}: {
  legend: string;
  choices: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset className="chips small">
      <legend className="visually-hidden">{legend}</legend>
      {choices.map((item) => (
        <button
          key={item.value}
          type="button"
          className="chip"
          aria-pressed={value === item.value}
          onClick={() => onChange(item.value)}
        >
          {item.label}
        </button>
      ))}
    </fieldset>
  );
}

/** The notice the chart library's licence asks for, with its link. */
export function Attribution() {
  return (
    <p className="attribution muted small">
      Chart: TradingView Lightweight Charts™, copyright © TradingView, Inc.,{' '}
      <a href="https://www.tradingview.com/" target="_blank" rel="noopener noreferrer">
        tradingview.com
        <span className="visually-hidden"> (opens in a new tab)</span>
      </a>
    </p>
  );
}
