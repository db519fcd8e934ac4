import { randomUUID } from 'node:crypto';
import type { ExchangeApi, Json } from './api.js';

/**
 * What an agent may trade, set by the human who starts the server and checked here before any order leaves: the
 * largest order (cents it may cost, shares), the cash it may spend in a UTC day, and a preview before every order.
 * A preview states the exact cost now (the exchange's own quote) and the most the order can cost; an order is
 * placed only from a preview that is fresh, within the limits, and still priced as previewed.
 */
export interface Limits {
  /** The most one order may cost: a BUY's worst case (every share at its worst price, with the fee). */
  maxOrderCents: number;
  /** The most shares one order may carry. */
  maxOrderShares: number;
  /** The most cash spent in a UTC day: today's buys, and what open orders hold. */
  maxDailySpendCents: number;
  /** How long a preview may be placed. */
  previewTtlMs: number;
}

export interface OrderIntent {
  optionId: string;
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  quantity: number;
  type: 'market' | 'limit';
  /** A limit order's price; a market trade's worst price (default: whatever the book offers now). */
  priceCents?: number | undefined;
  timeInForce?: 'GTC' | 'IOC' | 'FOK' | undefined;
  postOnly?: boolean | undefined;
}

export interface Quote {
  filledQuantity: number;
  totalCents: number;
  notionalCents: number;
  feeCents: number;
  averagePriceCents: number | null;
  worstPriceCents: number | null;
  takerFeeBps: number;
  refusal: { code: string; error: string } | null;
}

export interface Preview {
  previewId: string;
  expiresAt: string;
  order: OrderIntent;
  /** What would fill at once, and its exact cost (BUY) or proceeds (SELL) now, fee included. */
  now: { filledQuantity: number; totalCents: number; averagePriceCents: number | null };
  /** A limit order's rest, which rests on the book at its price. */
  resting: number;
  /** The most the order can cost (a BUY; 0 for a SELL): checked against the limits. */
  worstCaseCents: number;
  /** The cash spent today before it, and the limits it was checked against. */
  spentTodayCents: number;
  limits: Limits;
}

/** A refusal the agent reads: why, in words and a code. */
export class Refused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Fee in cents on a notional, rounded up as the exchange rounds it. */
const feeOf = (notionalCents: number, bps: number) => Math.ceil((notionalCents * bps) / 10_000);

export class TradingGuard {
  private readonly previews = new Map<string, Preview & { quoteTotalCents: number; expires: number }>();

  constructor(
    private readonly api: ExchangeApi,
    readonly limits: Limits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Cash spent since 00:00 UTC (buys' notional and fees) plus what open orders hold. */
  async spentTodayCents(): Promise<number> {
    const midnight = new Date(this.now());
    midnight.setUTCHours(0, 0, 0, 0);
    const fills = await this.api.all<{
      action: string;
      notionalCents: number;
      feeCents: number;
      createdAt: string;
    }>('/api/me/fills', {}, (fill) => Date.parse(fill.createdAt) < midnight.getTime());
    const bought = fills.filter((fill) => fill.action === 'BUY');
    const portfolio = await this.api.get<{ summary: { reservedCents: number } }>('/api/positions', {
      limit: 1,
    });
    return (
      bought.reduce((sum, fill) => sum + fill.notionalCents + fill.feeCents, 0) +
      portfolio.summary.reservedCents
    );
  }

  /** States what the order would do and cost; refuses it (nothing stored) when it breaks a limit. */
  async preview(order: OrderIntent): Promise<Preview> {
    if (order.type === 'limit' && order.priceCents === undefined)
      throw new Refused('PRICE_REQUIRED', 'A limit order needs priceCents');
    if (order.quantity > this.limits.maxOrderShares)
      throw new Refused(
        'ABOVE_ORDER_LIMIT',
        `At most ${this.limits.maxOrderShares} shares an order; asked ${order.quantity}`,
      );
    const quote = await this.quote(order);
    if (order.type === 'market' && quote.refusal)
      throw new Refused(quote.refusal.code, `The exchange would refuse it now: ${quote.refusal.error}`);
    const resting =
      order.type === 'limit' && order.timeInForce !== 'IOC' && order.timeInForce !== 'FOK'
        ? order.quantity - quote.filledQuantity
        : 0;
    const worstCaseCents = order.action === 'SELL' ? 0 : this.worstCase(order, quote);
    if (worstCaseCents > this.limits.maxOrderCents)
      throw new Refused(
        'ABOVE_ORDER_LIMIT',
        `It could cost ${worstCaseCents} cents; the largest order allowed is ${this.limits.maxOrderCents} cents`,
      );
    const spentTodayCents = await this.spentTodayCents();
    if (spentTodayCents + worstCaseCents > this.limits.maxDailySpendCents)
      throw new Refused(
        'ABOVE_DAILY_LIMIT',
        `${spentTodayCents} cents spent today; ${worstCaseCents} more would pass the daily limit of ` +
          `${this.limits.maxDailySpendCents} cents`,
      );
    const expires = this.now() + this.limits.previewTtlMs;
    const preview: Preview = {
      previewId: randomUUID(),
      expiresAt: new Date(expires).toISOString(),
      order:
        order.type === 'market'
          ? { ...order, priceCents: order.priceCents ?? quote.worstPriceCents ?? undefined }
          : order,
      now: {
        filledQuantity: quote.filledQuantity,
        totalCents: quote.totalCents,
        averagePriceCents: quote.averagePriceCents,
      },
      resting,
      worstCaseCents,
      spentTodayCents,
      limits: this.limits,
    };
    this.previews.set(preview.previewId, { ...preview, quoteTotalCents: quote.totalCents, expires });
    return preview;
  }

  /**
   * Places a previewed order once: only while the preview is fresh, the limits still hold and (a market trade) the
   * exchange still quotes it at the previewed cost. The preview's id is the order's idempotency key, so a retried
   * call never places it twice.
   */
  async place(previewId: string): Promise<Json> {
    const preview = this.previews.get(previewId);
    if (!preview)
      throw new Refused('UNKNOWN_PREVIEW', 'No such preview (or it was placed already): preview again');
    if (this.now() > preview.expires) {
      this.previews.delete(previewId);
      throw new Refused('PREVIEW_EXPIRED', `The preview expired at ${preview.expiresAt}: preview again`);
    }
    const spent = await this.spentTodayCents();
    if (spent + preview.worstCaseCents > this.limits.maxDailySpendCents)
      throw new Refused(
        'ABOVE_DAILY_LIMIT',
        `${spent} cents spent today; this order would pass the daily limit`,
      );
    const { order } = preview;
    if (order.type === 'market') {
      const quote = await this.quote(order);
      if (quote.totalCents !== preview.quoteTotalCents || quote.filledQuantity !== preview.now.filledQuantity)
        throw new Refused(
          'PRICE_MOVED',
          `The book moved: ${quote.filledQuantity} shares for ${quote.totalCents} cents now, previewed ` +
            `${preview.now.filledQuantity} for ${preview.quoteTotalCents}: preview again`,
        );
    }
    this.previews.delete(previewId);
    const base = {
      optionId: order.optionId,
      side: order.side,
      action: order.action,
      quantity: order.quantity,
    };
    if (order.type === 'market')
      return this.api.post('/api/trades', { ...base, priceCents: order.priceCents as number }, previewId);
    return this.api.post(
      '/api/limit-orders',
      {
        ...base,
        limitPriceCents: order.priceCents as number,
        timeInForce: order.timeInForce,
        postOnly: order.postOnly,
      },
      previewId,
    );
  }

  private quote(order: OrderIntent): Promise<Quote> {
    return this.api.get<Quote>(`/api/options/${order.optionId}/quote`, {
      side: order.side,
      action: order.action,
      quantity: order.quantity,
      priceCents: order.priceCents,
    });
  }

  /** The most a BUY can cost: every share at its limit (a market trade: at the worst price it accepts), with the fee. */
  private worstCase(order: OrderIntent, quote: Quote): number {
    const notional = order.quantity * (order.priceCents ?? quote.worstPriceCents ?? 0);
    return notional + feeOf(notional, quote.takerFeeBps);
  }
}
