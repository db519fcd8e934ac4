import type { Refusal, Verdict } from '../../../exchange/decision.js';
import type { OrderState } from '../../../exchange/orders.js';
import type { Tx } from '../../../platform/db/types.js';
import { InsufficientFundsError, ValidationError } from '../../../platform/errors.js';
import {
  FillOrKillError,
  InsufficientSharesError,
  KeyLimitError,
  MarketClosedError,
  NoLiquidityError,
  OrderNotOpenError,
  PostOnlyWouldTakeError,
} from '../errors.js';
import type { BatchIdempotency } from '../idempotency.js';
import type { LockedMarket, OrderRow, TradeRow, TradingRepository } from '../repository.js';
import { orderRowOf } from '../rows.js';
import type { BookOutcome, BookRequest } from '../types.js';
import { serialisePlaced, toConversionView, toOrderView } from '../views.js';
import type { DecidedWork } from './work.js';
import type { Written } from './write.js';

/**
 * The answer to each request the decisions decided, as if it came alone, put in its market's outcomes; keyed
 * requests' answers are stored with their keys for idempotent retries, in one statement for all.
 */
export class Answers {
  constructor(
    private readonly trading: TradingRepository,
    private readonly idempotency: BatchIdempotency,
  ) {}

  async of(trx: Tx, decided: DecidedWork[], written: Written): Promise<void> {
    const requests: BookRequest[] = [];
    const outcomes: BookOutcome[] = [];
    for (const d of decided) {
      const { work, decision, indexes } = d;
      const own = { bookVersions: written.bookVersions, rows: written.rows.get(d) ?? null };
      for (const [at, verdict] of decision.verdicts.entries()) {
        const index = indexes[at] as number;
        const request = work.requests[index] as BookRequest;
        const outcome = await this.outcomeOf(trx, work.market, verdict, request, own);
        work.outcomes[index] = outcome;
        requests.push(request);
        outcomes.push(outcome);
      }
    }
    await this.idempotency.record(trx, requests, outcomes);
  }

  private async outcomeOf(
    trx: Tx,
    market: LockedMarket,
    verdict: Verdict,
    request: BookRequest,
    written: WrittenFor,
  ): Promise<BookOutcome> {
    const label = (optionId: number) => market.options.find((o) => o.id === optionId)?.label ?? '';
    const slugged = (row: OrderRow) => ({
      ...row,
      event_slug: market.slug,
      option_label: label(row.option_id),
    });
    const row = (order: OrderState) => orderRowOf(order, market.dbNow, versionOf(market, order, written));
    switch (verdict.type) {
      case 'placed':
        return {
          result: builtWhenRead(201, () =>
            serialisePlaced({
              order: slugged(row(verdict.order)),
              trades: written.rows?.trades.slice(verdict.trades.from, verdict.trades.to) ?? [],
              selfTradeCancelled: verdict.selfTradeCancelled.map((order) => order.id),
            }),
          ),
        };
      case 'ended':
        if (request.type === 'cancel')
          return { result: toOrderView(slugged(row(verdict.orders[0] as OrderState))) };
        return { result: verdict.orders.length };
      case 'amended': {
        const { replacement } = verdict;
        const body = {
          order: serialisePlaced({
            order: slugged(row(verdict.order)),
            trades: replacement
              ? (written.rows?.trades.slice(replacement.trades.from, replacement.trades.to) ?? [])
              : [],
            selfTradeCancelled: replacement?.selfTradeCancelled.map((order) => order.id) ?? [],
          }),
          replacedOrder: replacement ? toOrderView(slugged(row(verdict.previous))) : null,
          priorityKept: replacement === null,
        };
        return { result: { status: 200, body, replayed: false } };
      }
      case 'converted': {
        const body = toConversionView(
          { ...verdict.conversion, eventId: market.eventId, createdAt: market.dbNow },
          { slug: market.slug, label },
        );
        return { result: { status: 201, body, replayed: false } };
      }
      case 'unchanged':
        return { result: 0 };
      case 'refused':
        return { error: await this.refusalError(trx, verdict.refusal, request) };
    }
  }

  private async refusalError(trx: Tx, refusal: Refusal, request: BookRequest): Promise<Error> {
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
      case 'INVALID_CONVERSION':
        return new ValidationError(refusal.reason, [{ field: 'body', message: refusal.reason }]);
      case 'ORDER_NOT_OPEN': {
        const orderId =
          request.type === 'cancel'
            ? request.orderId
            : request.type === 'amend'
              ? request.request.orderId
              : null;
        const order = orderId === null ? undefined : await this.trading.findOrder(trx, orderId);
        return new OrderNotOpenError(order?.status ?? 'unknown');
      }
      case 'KEY_ORDER_TOO_LARGE':
      case 'KEY_OPEN_ORDERS_LIMIT':
      case 'KEY_POSITION_LIMIT':
      case 'KEY_DAILY_LOSS_LIMIT':
        return new KeyLimitError(refusal);
    }
  }
}

/** What was written of one decision: the options' versions, and its rows (null: it wrote nothing). */
type WrittenFor = Pick<Written, 'bookVersions'> & { rows: { trades: TradeRow[]; fillIds: number[] } | null };

/** The book version an order's row leaves its option at. */
export function versionOf(
  market: LockedMarket,
  order: OrderState,
  written: Pick<Written, 'bookVersions'>,
): number {
  const version = written.bookVersions.get(order.optionId);
  return version ?? market.options.find((o) => o.id === order.optionId)?.book_version ?? 0;
}

/**
 * A placed order's answer, its body built when first read: after the commit, outside the market's lock, where the
 * next batch need not wait for it (a keyed request's answer is read inside, to be stored). Everything it is built
 * from is immutable, so it is the answer as of its own batch whenever it is read.
 */
function builtWhenRead(status: number, build: () => unknown) {
  let body: unknown;
  let built = false;
  return {
    status,
    replayed: false,
    get body() {
      if (!built) {
        body = build();
        built = true;
      }
      return body;
    },
  };
}
