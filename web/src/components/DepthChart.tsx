import type { BookLevel, Side } from '../api/types';
import { formatNumber, formatPrice } from '../lib/format';

const WIDTH = 320;
/** Levels drawn on each side: the depth near the price, where a trader's order would reach. */
const DEPTH_LEVELS = 15;
const HEIGHT = 96;
const PAD = { top: 8, right: 8, bottom: 4, left: 8 };

/** Shares available at each price or better, running outwards from the best bid and the best ask. */
function cumulative(levels: BookLevel[]): { priceCents: number; total: number }[] {
  let total = 0;
  return levels.map((level) => {
    total += level.quantity;
    return { priceCents: level.priceCents, total };
  });
}

/**
 * The book's depth: how many shares a buyer (asks, right) or a seller (bids, left) can trade up to each price,
 * house quotes included. Drawn at a fixed size that scales with its box.
 */
export function DepthChart({ bids, asks, side }: { bids: BookLevel[]; asks: BookLevel[]; side: Side }) {
  const bidSteps = cumulative(bids.slice(0, DEPTH_LEVELS));
  const askSteps = cumulative(asks.slice(0, DEPTH_LEVELS));
  const all = [...bidSteps, ...askSteps];
  if (all.length === 0) return null;
  const low = Math.min(...all.map((step) => step.priceCents)) - 1;
  const high = Math.max(...all.map((step) => step.priceCents)) + 1;
  const top = Math.max(...all.map((step) => step.total));
  const x = (cents: number) => PAD.left + ((cents - low) / (high - low)) * (WIDTH - PAD.left - PAD.right);
  const y = (total: number) => PAD.top + (1 - total / top) * (HEIGHT - PAD.top - PAD.bottom);
  const base = y(0);
  const area = (steps: { priceCents: number; total: number }[]) => {
    const points: string[] = [];
    let previous = 0;
    for (const step of steps) {
      points.push(`${x(step.priceCents)},${y(previous)}`, `${x(step.priceCents)},${y(step.total)}`);
      previous = step.total;
    }
    const last = steps[steps.length - 1];
    if (last) points.push(`${x(last.priceCents)},${base}`);
    return points.join(' ');
  };
  const name = side === 'YES' ? 'Yes' : 'No';
  const summary = `Depth of ${name}: ${formatNumber(bidSteps[bidSteps.length - 1]?.total ?? 0)} shares bid down to ${formatPrice(
    bidSteps[bidSteps.length - 1]?.priceCents,
  )}, ${formatNumber(askSteps[askSteps.length - 1]?.total ?? 0)} offered up to ${formatPrice(askSteps[askSteps.length - 1]?.priceCents)}`;
  return (
    <figure className="depth">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" preserveAspectRatio="none">
        <title>{summary}</title>
        <polygon className="depth-bids" points={area(bidSteps)} />
        <polygon className="depth-asks" points={area(askSteps)} />
        <line className="depth-base" x1={PAD.left} x2={WIDTH - PAD.right} y1={base} y2={base} />
      </svg>
      <div className="depth-axis small muted" aria-hidden="true">
        <span>{formatPrice(low + 1)}</span>
        <span>{formatPrice(high - 1)}</span>
      </div>
      <figcaption className="muted small">
        Depth: shares bid (left) and offered (right) at each price or better
      </figcaption>
    </figure>
  );
}
