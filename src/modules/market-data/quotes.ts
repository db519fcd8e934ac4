import type { Kysely } from 'kysely';
import type { BookState, MarketState, Refusal } from '../../exchange/decision.js';
import { positionKey } from '../../exchange/execution.js';
import { House } from '../../exchange/house.js';
import type { Action, Side } from '../../exchange/money.js';
import { OrderBook } from '../../exchange/order-book.js';
import { restingOf } from '../../exchange/orders.js';
import { EMPTY_POSITION } from '../../exchange/positions.js';
import { type Quoter, quoteMarketOrder } from '../../exchange/quote.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import {
  InsufficientFundsError,
  NotFoundError,
  toErrorResponse,
  ValidationError,
} from '../../platform/errors.js';
import {
  FillOrKillError,
  InsufficientSharesError,
  MarketClosedError,
  NoLiquidityError,
  PostOnlyWouldTakeError,
} from '../trading/errors.js';
import {
  eventHouseOf,
  houseMakerOf,
  makerInventoriesOf,
  orderStateOf,
  positionStateOf,
} from '../trading/rows.js';
import type { MarketDataRepository, QuoteMarketRow } from './repository.js';

export interface QuoteQuery {
  optionId: number;
  side: Side;
  action: Action;
  quantity: number;
  /** The worst price accepted in the order's side; by default any (99 for a BUY, 1 for a SELL). */
  priceCents?: number | undefined;
}

/**
 * Quotes for a size: what a market trade of N shares would cost (or bring) right now, decided by the exchange's one
 * decision against the option's book and house maker as they stand, without placing anything. Read in one snapshot,
 * so the book, the maker and the trader's cash and shares are those of one moment.
 */
export class MarketQuotes {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly data: MarketDataRepository,
    private readonly settings: { takerFeeBps: number; maxOrderQuantity: number },
  ) {}

  async quote(query: QuoteQuery, userId: number | null) {
    if (query.quantity > this.settings.maxOrderQuantity) {
      throw new ValidationError(`quantity may be at most ${this.settings.maxOrderQuantity}`, [
        { field: 'query.quantity', message: `must be <= ${this.settings.maxOrderQuantity}` },
      ]);
    }
    const priceCents = query.priceCents ?? (query.action === 'BUY' ? 99 : 1);
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const market = await this.data.quoteMarket(trx, query.optionId);
        if (!market) throw new NotFoundError('Option');
        const [book, quoter] = await Promise.all([
          this.book(trx, query.optionId),
          this.quoter(trx, userId, query.optionId),
        ]);
        const request = { ...query, priceCents };
        const quote = quoteMarketOrder(book, this.marketState(market), quoter, request);
        const averagePriceCents =
          quote.filledQuantity > 0 ? round4(quote.notionalCents / quote.filledQuantity) : null;
        return {
          optionId: String(query.optionId),
          side: query.side,
          action: query.action,
          quantity: query.quantity,
          priceCents,
          filledQuantity: quote.filledQuantity,
          unfilledQuantity: query.quantity - quote.filledQuantity,
          notionalCents: quote.notionalCents,
          feeCents: quote.feeCents,
          totalCents:
            query.action === 'BUY'
              ? quote.notionalCents + quote.feeCents
              : quote.notionalCents - quote.feeCents,
          averagePriceCents,
          worstPriceCents: quote.levels.at(-1)?.priceCents ?? null,
          levels: quote.levels,
          selfTradeCancels: quote.selfTradeCancels,
          refusal: quote.refusal && refusalBody(quote.refusal),
          forUser: userId !== null,
          takerFeeBps: this.settings.takerFeeBps,
          bookVersion: market.book_version,
          quotedAt: market.db_now.toISOString(),
        };
      });
  }

  /** The option's resting orders, in time order, as the order pipeline's book holds them. */
  private async book(trx: Tx, optionId: number): Promise<BookState> {
    const orders = (await this.data.restingOrders(trx, optionId)).map(orderStateOf);
    return {
      book: new OrderBook(orders.map(restingOf)),
      orders: new Map(orders.map((order) => [order.id, order])),
    };
  }

  /** A signed-in trader quotes with their own cash and shares, and their own resting orders left out. */
  private async quoter(trx: Tx, userId: number | null, optionId: number): Promise<Quoter> {
    if (userId === null) return { kind: 'anyone' };
    const [availableCents, rows] = await Promise.all([
      this.data.cashForCollateral(trx, userId),
      this.data.positionsIn(trx, userId, optionId),
    ]);
    const positions = new Map(
      (['YES', 'NO'] as const).map((side) => [positionKey(userId, optionId, side), EMPTY_POSITION]),
    );
    for (const row of rows) positions.set(positionKey(userId, optionId, row.side), positionStateOf(row));
    return { kind: 'trader', userId, availableCents, positions };
  }

  /** The market as the order pipeline hands it to the decision. */
  private marketState(market: QuoteMarketRow): MarketState {
    const house = market.exclusive
      ? eventHouseOf(market.event_liquidity_b, makerInventoriesOf(market.makers))
      : House.ofOption(market.id, houseMakerOf(market));
    return {
      closed:
        market.event_status !== 'open'
          ? market.event_status
          : market.closes_at <= market.db_now
            ? 'past its closing time'
            : null,
      conversionsClosed: null,
      house,
      exclusive: null,
      feeBps: this.settings.takerFeeBps,
      now: market.db_now,
    };
  }
}

/** The error an order refused this way is answered with: its status, code, message and details. */
function refusalBody(refusal: Refusal) {
  const { status, body } = toErrorResponse(refusalError(refusal));
  return { status, ...body };
}

function refusalError(refusal: Refusal): Error {
  switch (refusal.code) {
    case 'MARKET_CLOSED':
      return new MarketClosedError(refusal.state);
    case 'INSUFFICIENT_FUNDS':
      return new InsufficientFundsError(refusal.neededCents, refusal.availableCents);
    case 'INSUFFICIENT_SHARES':
      return new InsufficientSharesError(refusal.needed, refusal.available);
    case 'NO_LIQUIDITY':
      return new NoLiquidityError();
    case 'POST_ONLY_WOULD_TAKE':
      return new PostOnlyWouldTakeError();
    case 'FOK_NOT_FILLED':
      return new FillOrKillError(refusal.fillableQuantity);
    default:
      throw new Error(`a market order is never refused with ${refusal.code}`);
  }
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
