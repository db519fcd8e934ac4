import type { Action, BookLevel, EventStatus, MarketDetail, OrderBook, Resolution, Side } from '../api/types';

/** An execution heard on the market-data stream, tagged with its option. */
export interface LiveTrade {
  optionId: string;
  yesPriceCents: number;
  quantity: number;
  /** The side the taker traded: volume counts what the taker paid or got, at that side's price. */
  takerSide: Side;
  at: string;
}

/** What a trade adds to its option's volume in cents: the taker's side price times the shares, as the service counts. */
function takerNotionalCents(trade: LiveTrade): number {
  const price = trade.takerSide === 'YES' ? trade.yesPriceCents : 100 - trade.yesPriceCents;
  return price * trade.quantity;
}

/**
 * The market as last read, with the trades heard since: each option's last price follows its latest trade, its
 * volume grows by each, and its chart gains a point per trade. Trades the read already holds (at or before its
 * last point) are skipped. An independent option's price and chance are its last trade's; an exclusive event's
 * chances are the house's over all its options, which a trade in one moves in all, so they stay as read until the
 * next read (they always add up to 100 %).
 */
export function withLiveTrades(market: MarketDetail, trades: LiveTrade[]): MarketDetail {
  if (trades.length === 0) return market;
  return {
    ...market,
    options: market.options.map((option) => {
      const history = option.priceHistory;
      const lastSeen = history.length > 0 ? Date.parse(history[history.length - 1]!.t) : -Infinity;
      const fresh = trades
        .filter((trade) => trade.optionId === option.id && Date.parse(trade.at) > lastSeen)
        .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
      const latest = fresh[fresh.length - 1];
      if (!latest) return option;
      const price = latest.yesPriceCents;
      const chance = market.exclusive
        ? {}
        : { yesPriceCents: price, noPriceCents: 100 - price, probabilityBps: price * 100 };
      return {
        ...option,
        volumeShares: option.volumeShares + fresh.reduce((sum, trade) => sum + trade.quantity, 0),
        volumeCents: option.volumeCents + fresh.reduce((sum, trade) => sum + takerNotionalCents(trade), 0),
        ...chance,
        lastYesPriceCents: price,
        priceHistory: [
          ...history,
          ...fresh.map((trade) => ({ t: trade.at, yesPriceCents: trade.yesPriceCents })),
        ],
      };
    }),
  };
}

export function isTradable(status: EventStatus): boolean {
  return status === 'open';
}

/** Cents a share of `side` pays once its option resolved to `resolution`. */
export function payoutCents(side: Side, resolution: Exclude<Resolution, null>): number {
  if (resolution === 'VOID') return 50;
  return side === resolution ? 100 : 0;
}

/** The levels an order of this side and direction takes from, best first. */
export function levelsTaken(book: OrderBook, side: Side, action: Action): BookLevel[] {
  const view = side === 'YES' ? book.yes : book.no;
  return action === 'BUY' ? view.asks : view.bids;
}

export interface FillEstimate {
  /** Shares the visible book fills at this limit. */
  filled: number;
  /** What those shares cost (BUY) or bring (SELL), in cents. */
  totalCents: number;
  /** Their average price, rounded to the cent; null when nothing fills. */
  averageCents: number | null;
  /** The worst price the fill reaches. */
  worstCents: number | null;
}

/** What an order taking `quantity` shares up to `limitCents` would fill from the visible book, house depth included. */
export function estimateFill(
  levels: BookLevel[],
  action: Action,
  quantity: number,
  limitCents: number,
): FillEstimate {
  let filled = 0;
  let totalCents = 0;
  let worstCents: number | null = null;
  for (const level of levels) {
    if (filled >= quantity) break;
    const reachable = action === 'BUY' ? level.priceCents <= limitCents : level.priceCents >= limitCents;
    if (!reachable) break;
    const take = Math.min(level.quantity, quantity - filled);
    filled += take;
    totalCents += take * level.priceCents;
    worstCents = level.priceCents;
  }
  return {
    filled,
    totalCents,
    averageCents: filled > 0 ? Math.round(totalCents / filled) : null,
    worstCents,
  };
}

/** The price a market order needs to fill `quantity` from the visible book: the level where it would stop. */
export function priceToFill(levels: BookLevel[], quantity: number): number | null {
  let filled = 0;
  for (const level of levels) {
    filled += level.quantity;
    if (filled >= quantity) return level.priceCents;
  }
  return levels[levels.length - 1]?.priceCents ?? null;
}

/** The best price to buy a side now: YES at the best YES ask, NO at 100 minus the best YES bid. */
export function buyPrice(
  option: { bestAskCents: number | null; bestBidCents: number | null; yesPriceCents: number },
  side: Side,
): number | null {
  if (side === 'YES') return option.bestAskCents;
  return option.bestBidCents === null ? null : 100 - option.bestBidCents;
}

/**
 * A market's state as a trader should read it now: `closing` once its closing time has passed while the close
 * itself is still on its way (the exchange refuses orders from that moment).
 */
export type ShownStatus = EventStatus | 'closing';

export function shownStatus(status: EventStatus, closesAt: string, now = Date.now()): ShownStatus {
  return status === 'open' && Date.parse(closesAt) <= now ? 'closing' : status;
}

/** Positions valued at the market's latest prices (a resolved option at its payout), as the service values them. */
export function markPositions<
  P extends {
    optionId: string;
    side: Side;
    quantity: number;
    costCents: number;
    resolution: Resolution;
    markPriceCents: number | null;
    valueCents: number;
    unrealizedPnlCents: number;
  },
>(positions: P[], options: { id: string; lastYesPriceCents: number | null }[]): P[] {
  return positions.map((position) => {
    const option = options.find((candidate) => candidate.id === position.optionId);
    if (!option || position.resolution || option.lastYesPriceCents === null) return position;
    const mark = position.side === 'YES' ? option.lastYesPriceCents : 100 - option.lastYesPriceCents;
    if (mark === position.markPriceCents) return position;
    const valueCents = position.quantity * mark;
    return {
      ...position,
      markPriceCents: mark,
      valueCents,
      unrealizedPnlCents: valueCents - position.costCents,
    };
  });
}
