import { apportion } from '../../exchange/house.js';
import type { LadderLevel } from '../../exchange/ladder.js';
import { ammPrice } from '../../exchange/lmsr.js';
import { MAX_PRICE, MIN_PRICE, PAYOUT_CENTS } from '../../exchange/money.js';
import { eventHouseOf, houseMakerOf } from '../trading/rows.js';
import type { DisputeRow } from './disputes-repository.js';
import type { EventRow, OptionRow } from './repository.js';

/** The wire forms of events, options, books and disputes. */

/** The price and chance shown for an option. */
export interface ShownPrice {
  yesPriceCents: number;
  probabilityBps: number;
}

/**
 * The YES price and chance shown for each option of an event. An independent option shows its own: its last trade,
 * else its house maker's price, else 50. An exclusive event shows chances that add up to exactly 100 %: its house
 * maker's (which every trade with the house moves, in all options at once), or without one the options' last traded
 * prices scaled to add up, an untraded option counting as an even share. A settled event shows the chances it
 * was settled at.
 */
export function shownPrices(event: EventRow, options: OptionRow[]): Map<number, ShownPrice> {
  const closing = closingChances(event, options);
  if (closing) return closing;
  if (!event.exclusive) return new Map(options.map((o) => [o.id, shownOf(displayYesPrice(o) * 100)]));
  // Settling pays out the house maker's inventory: what is left of it is the opening odds, not the market's.
  const house =
    event.status === 'settled'
      ? null
      : eventHouseOf(
          event.liquidity_b,
          options.map((o) => ({
            optionId: o.id,
            offset: o.amm_offset,
            yesShares: o.amm_yes_shares,
            noShares: o.amm_no_shares,
          })),
        );
  const chances = house?.chances();
  const weights = options.map(
    (o) => chances?.get(o.id) ?? o.last_yes_price ?? PAYOUT_CENTS / Math.max(1, options.length),
  );
  const bps = apportion(weights, 10_000);
  return new Map(options.map((o, index) => [o.id, shownOf(bps[index] as number)]));
}

/** A settled event shows the chances kept when it was settled (none for events settled before they were kept). */
function closingChances(event: EventRow, options: OptionRow[]): Map<number, ShownPrice> | null {
  if (event.status !== 'settled') return null;
  const shown = new Map<number, ShownPrice>();
  for (const option of options) {
    if (option.closing_probability_bps === null) return null;
    shown.set(option.id, shownOf(option.closing_probability_bps));
  }
  return shown;
}

function shownOf(probabilityBps: number): ShownPrice {
  const yesPriceCents = Math.min(MAX_PRICE, Math.max(MIN_PRICE, Math.round(probabilityBps / 100)));
  return { yesPriceCents, probabilityBps };
}

/** The YES price shown for an independent option: its last trade, else the house maker's price, else even odds. */
export function displayYesPrice(option: OptionRow): number {
  if (option.last_yes_price !== null) return option.last_yes_price;
  const house = houseMakerOf(option);
  if (house) return Math.min(MAX_PRICE, Math.max(MIN_PRICE, Math.round(ammPrice(house))));
  return 50;
}

export function toOptionView(option: OptionRow, shown: ShownPrice) {
  return {
    id: String(option.id),
    label: option.label,
    yesPriceCents: shown.yesPriceCents,
    noPriceCents: PAYOUT_CENTS - shown.yesPriceCents,
    probabilityBps: shown.probabilityBps,
    lastYesPriceCents: option.last_yes_price,
    volumeShares: option.volume_shares,
    volumeCents: option.volume_cents,
    houseLiquidityCents: option.liquidity_b,
    resolution: option.resolution,
  };
}

/** Every option of an event, with the prices shown for them. */
export function toOptionViews(event: EventRow, options: OptionRow[]) {
  const shown = shownPrices(event, options);
  return options.map((option) => toOptionView(option, shown.get(option.id) as ShownPrice));
}

export function toEventSummary(event: EventRow) {
  return {
    id: String(event.id),
    slug: event.slug,
    title: event.title,
    description: event.description,
    category: event.category,
    featured: event.featured,
    status: event.status,
    exclusive: event.exclusive,
    houseLiquidityCents: event.exclusive ? event.liquidity_b : null,
    resolutionSource: event.resolution_source,
    closesAt: event.closes_at.toISOString(),
    createdAt: event.created_at.toISOString(),
  };
}

/** The ladder (bids then asks, best first) from the YES and from the NO point of view. */
export function bothSides(levels: LadderLevel[]) {
  const view = ({ priceCents, quantity, orders, houseQuantity }: LadderLevel) => ({
    priceCents,
    quantity,
    orders,
    houseQuantity,
  });
  const yesBids = levels.filter((level) => level.side === 'bid').map(view);
  const yesAsks = levels.filter((level) => level.side === 'ask').map(view);
  const flip = (level: ReturnType<typeof view>) => ({
    ...level,
    priceCents: PAYOUT_CENTS - level.priceCents,
  });
  return {
    yes: { bids: yesBids, asks: yesAsks },
    no: { bids: yesAsks.map(flip), asks: yesBids.map(flip) },
  };
}

export function toDisputeView(row: DisputeRow & { event_slug: string }) {
  return {
    id: String(row.id),
    eventId: String(row.event_id),
    eventSlug: row.event_slug,
    userId: String(row.user_id),
    reason: row.reason,
    evidenceUrl: row.evidence_url,
    status: row.status,
    decisionNote: row.decision_note,
    createdAt: row.created_at.toISOString(),
    decidedAt: iso(row.decided_at),
  };
}

export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

export function formatCents(cents: number): string {
  return `${(cents / 100).toFixed(2)} credits`;
}
