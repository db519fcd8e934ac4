import type {
  Action,
  BookLevel,
  MarketDetail,
  OptionDetail,
  OrderBook,
  Position,
  Side,
} from '../../api/types';
import { formatCredits, formatNumber } from '../../lib/format';
import { estimateFill, type FillEstimate, levelsTaken, priceToFill } from '../../lib/market';

export type Kind = 'market' | 'limit';
/** How long a limit order lives: until cancelled, until a time, only at once (the rest cancelled), whole or not at all. */
export type TimeInForce = 'GTC' | 'GTD' | 'IOC' | 'FOK';

/**
 * What the trader has put on the ticket: the direction, the order type, the shares and any price typed, and for a
 * limit order its time in force (with the hours a GTD order lives) and whether it may only rest (post-only).
 */
export interface TicketInputs {
  action: Action;
  kind: Kind;
  quantity: string;
  /** The price the user typed, remembered for the contract it was typed for; any other starts from the book. */
  typed: { contract: string; value: string } | null;
  timeInForce: TimeInForce;
  /** Hours a GTD order lives. */
  expiry: string;
  postOnly: boolean;
}

/** Whether a post-only order may have this time in force: only an order that rests can be post-only. */
export function restsInBook(timeInForce: TimeInForce): boolean {
  return timeInForce === 'GTC' || timeInForce === 'GTD';
}

/** The limit order's terms beyond price and size, chosen by the trader: those are always shown for review. */
export function makerTerms(inputs: TicketInputs): boolean {
  return inputs.kind === 'limit' && (inputs.timeInForce !== 'GTC' || inputs.postOnly);
}

export function sideName(side: Side): string {
  return side === 'YES' ? 'Yes' : 'No';
}

function clampPrice(cents: number): number {
  return Math.min(99, Math.max(1, cents));
}

/**
 * The price a new ticket starts from, always one the book has: a market order at the price that fills the whole
 * quantity from the visible book; a limit order at the best price on its own side (it waits there). Null while the
 * book is unknown, or when it has nothing to start from: the trader types a price.
 */
export function suggestedPrice(
  levels: { taken: BookLevel[]; own: BookLevel[] } | undefined,
  kind: Kind,
  quantity: number,
): number | null {
  if (!levels) return null;
  // A limit order with nobody on its own side waits at the best price of the other side, the nearest real one.
  const cents =
    kind === 'market'
      ? priceToFill(levels.taken, Math.max(1, quantity))
      : (levels.own[0]?.priceCents ?? levels.taken[0]?.priceCents ?? null);
  return cents === null ? null : clampPrice(cents);
}

/** The contract a typed price belongs to: the same option, side, direction and order type. */
export function contractOf(optionId: string, side: Side, action: Action, kind: Kind): string {
  return `${optionId}|${side}|${action}|${kind}`;
}

/** What the ticket's trader may use: cash to buy with, and the shares of this option and side they hold. */
export interface TraderMeans {
  signedIn: boolean;
  cashCents: number | null;
  positions: Position[];
}

/**
 * The order the ticket describes, read against the selected option's book and what the trader holds: its price
 * (typed, or suggested by the book), whether it is well formed, what it would fill now, what it could cost, and
 * what stands in its way, if anything.
 */
export function draftOrder(
  market: MarketDetail,
  optionId: string,
  side: Side,
  book: OrderBook | undefined,
  inputs: TicketInputs,
  means: TraderMeans,
) {
  const { action, kind, typed } = inputs;
  const option = market.options.find((candidate) => candidate.id === optionId) ?? market.options[0]!;
  const bookForOption = book?.optionId === option.id ? book : undefined;
  const qty = Number(inputs.quantity);
  const taken = bookForOption ? levelsTaken(bookForOption, side, action) : undefined;
  const own = bookForOption ? levelsTaken(bookForOption, side, action === 'BUY' ? 'SELL' : 'BUY') : undefined;
  const suggestion = suggestedPrice(taken && own ? { taken, own } : undefined, kind, qty);
  const contract = contractOf(option.id, side, action, kind);
  const price = typed?.contract === contract ? typed.value : suggestion === null ? '' : String(suggestion);
  const cents = Number(price);
  const priceGiven = price.trim() !== '';
  const valid =
    Number.isInteger(qty) && qty >= 1 && priceGiven && Number.isInteger(cents) && cents >= 1 && cents <= 99;
  const estimate: FillEstimate | null = valid && taken ? estimateFill(taken, action, qty, cents) : null;
  const holding = means.positions.find((p) => p.optionId === option.id && p.side === side);
  const sellable = holding ? holding.quantity - holding.reservedQuantity : 0;
  const worstCost = cents * qty;
  // A market order takes from the book: with nothing on the other side there is nothing to trade against.
  const noLiquidity = kind === 'market' && taken !== undefined && taken.length === 0;
  const postOnly = kind === 'limit' && inputs.postOnly && restsInBook(inputs.timeInForce);
  const wouldTake = postOnly && estimate !== null && estimate.filled > 0;
  const problem = bookForOption
    ? orderProblem({ option, side, action, qty, valid, noLiquidity, wouldTake, worstCost, sellable, means })
    : null;
  return {
    option,
    bookForOption,
    qty,
    suggestion,
    contract,
    price,
    cents,
    valid,
    estimate,
    holding,
    sellable,
    worstCost,
    noLiquidity,
    problem,
  };
}
export type OrderDraft = ReturnType<typeof draftOrder>;

/** What stops the order being placed, in words, or null when nothing does. */
function orderProblem(order: {
  option: OptionDetail;
  side: Side;
  action: Action;
  qty: number;
  valid: boolean;
  noLiquidity: boolean;
  /** A post-only order that would trade on arrival, which the exchange refuses whole. */
  wouldTake: boolean;
  worstCost: number;
  sellable: number;
  means: TraderMeans;
}): string | null {
  const { option, side, action, qty, worstCost, sellable, means } = order;
  const cash = means.cashCents;
  if (order.noLiquidity)
    return `Nobody is ${action === 'BUY' ? 'selling' : 'buying'} ${sideName(side)} shares of ${option.label} right now, so a market order cannot fill. Place a limit order to wait in the book.`;
  if (!order.valid) return 'Enter a whole number of shares (at least 1) and a price from 1¢ to 99¢.';
  if (order.wouldTake)
    return `A post-only order only waits in the book, and at this price it would trade now: ${action === 'BUY' ? 'lower' : 'raise'} the price, or untick post-only.`;
  if (action === 'BUY' && cash !== null && worstCost > cash)
    return `This order could cost ${formatCredits(worstCost)}, more than the ${formatCredits(cash)} you have available.`;
  if (action === 'SELL' && means.signedIn && qty > sellable)
    return `You can sell at most ${formatNumber(sellable)} ${sideName(side)} shares of ${option.label}.`;
  return null;
}
