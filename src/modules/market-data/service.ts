import type { Kysely } from 'kysely';
import { ladderLevels, restingLevelsOf } from '../../exchange/ladder.js';
import type { Side } from '../../exchange/money.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { toPage } from '../../platform/http.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { TradingReadsRepository } from '../trading/reads-repository.js';
import { bookHouseOf, makerInventoriesOf } from '../trading/rows.js';
import type { TradingService } from '../trading/service.js';
import { toOrderView, valueOfGroups } from '../trading/views.js';
import { AccountHistoryRepository } from './account-history-repository.js';
import {
  bucketOf,
  type CandleFill,
  candlesOf,
  denseCandles,
  INTERVALS,
  type Interval,
  MAX_CANDLES,
} from './candles.js';
import { type HistoryRange, historyPoints, planHistory } from './history.js';
import type { MarketDataRepository, TickerFilter, TickerRow } from './repository.js';

/** The span of a candle read: explicit bounds, or the last MAX_CANDLES intervals. */
export interface CandleQuery {
  optionId: number;
  interval: Interval;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * Market data for bots and charts: candles kept up to date by the trading transactions, tickers, the public tape,
 * and a trader's own fills, settlements and portfolio history. The public reads (candles, tickers, the tape) go to
 * `publicReads`, which may be a replica that never shows less than the primary (`Database.reads`); a trader's own
 * reads, to the primary.
 */
export class MarketDataService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly data: MarketDataRepository,
    private readonly trading: TradingReadsRepository,
    private readonly ledger: LedgerRepository,
    private readonly publicReads: Kysely<DB> = db,
  ) {}

  /** The user's own history (account-history-repository.ts). */
  private readonly history = new AccountHistoryRepository();

  /** Candles follow every committed change with fills, in its own transaction: a rolled-back trade leaves none. */
  attach(trading: TradingService): void {
    trading.onBookChanged(async (trx, changes) => {
      await this.recordFills(trx, changes);
    });
  }

  /**
   * Adds the fills of a transaction's changes to their options' candles, in one statement: each option's fills in
   * the order they were made (a change after another of the same option follows it).
   */
  async recordFills(
    trx: Tx,
    changes: {
      optionId: number;
      fills: { yesPriceCents: number; quantity: number; takerSide: Side; at: string }[];
    }[],
  ): Promise<void> {
    const byOption = new Map<number, CandleFill[]>();
    for (const { optionId, fills } of changes) {
      if (fills.length === 0) continue;
      const executions = byOption.get(optionId) ?? [];
      for (const fill of fills) executions.push({ ...fill, at: Date.parse(fill.at) });
      byOption.set(optionId, executions);
    }
    const candles = [...byOption].flatMap(([optionId, executions]) =>
      candlesOf(executions).map((candle) => ({ optionId, ...candle })),
    );
    await this.data.recordCandles(trx, candles);
  }

  /**
   * The bounds a candle query covers, aligned to its interval and never past the current one (`from` inclusive,
   * `to` exclusive, in ms), and how long an answer for them stays right.
   */
  candleSpan(query: CandleQuery, now: number): { from: number; to: number; ttlMs: number } {
    const width = INTERVALS[query.interval];
    const end = bucketOf(now, query.interval) + width;
    const from = query.from === undefined ? undefined : Date.parse(query.from);
    const to = query.to === undefined ? undefined : Date.parse(query.to);
    if (from !== undefined && to !== undefined && from >= to) {
      throw new ValidationError('`from` must be before `to`', [
        { field: 'query.from', message: 'must be before query.to' },
      ]);
    }
    const alignedTo = Math.min(end, to === undefined ? end : bucketOf(to - 1, query.interval) + width);
    const alignedFrom = from === undefined ? alignedTo - MAX_CANDLES * width : bucketOf(from, query.interval);
    if ((alignedTo - alignedFrom) / width > MAX_CANDLES) {
      throw new ValidationError(`At most ${MAX_CANDLES} candles per request: narrow the range`, [
        { field: 'query.from', message: `must be at most ${MAX_CANDLES} intervals before query.to` },
      ]);
    }
    return { from: alignedFrom, to: Math.max(alignedFrom, alignedTo), ttlMs: end - now };
  }

  async candles(query: CandleQuery, span: { from: number; to: number }) {
    const found = await this.data.candles(
      this.publicReads,
      query.optionId,
      query.interval,
      new Date(span.from),
      new Date(span.to),
    );
    if (!found) throw new NotFoundError('Option');
    return {
      optionId: String(query.optionId),
      interval: query.interval,
      data: denseCandles(found.rows, found.previousClose, query.interval, span.from, span.to),
    };
  }

  async tickers(filter: TickerFilter) {
    const rows = await this.data.tickers(this.publicReads, filter);
    return { data: rows.map(toTicker) };
  }

  /** An option's executions, newest first. */
  async optionTape(optionId: number, beforeId: number | null, limit: number) {
    if (!(await this.data.publicOption(this.publicReads, optionId))) throw new NotFoundError('Option');
    return this.tapePage([optionId], beforeId, limit);
  }

  /** The executions of every option of an event, newest first. */
  async eventTape(slug: string, beforeId: number | null, limit: number) {
    const event = await this.data.publicEvent(this.publicReads, slug);
    if (!event) throw new NotFoundError('Event');
    return { ...(await this.tapePage(event.optionIds, beforeId, limit)), optionIds: event.optionIds };
  }

  private async tapePage(optionIds: number[], beforeId: number | null, limit: number) {
    const rows = await this.data.tape(this.publicReads, optionIds, beforeId, limit);
    return toPage(
      rows,
      limit,
      (row) => ({
        id: String(row.id),
        optionId: String(row.option_id),
        yesPriceCents: row.yes_price,
        quantity: Number(row.quantity),
        takerSide: row.taker_side,
        takerAction: row.taker_action,
        at: row.created_at.toISOString(),
      }),
      (row) => [row.id],
    );
  }

  /** One of a trader's orders, market or limit, as the order lists show it. */
  async userOrder(userId: number, orderId: number) {
    const row = await this.history.userOrder(this.db, userId, orderId);
    if (!row) throw new NotFoundError('Order');
    return { ...toOrderView(row), eventTitle: row.event_title };
  }

  async userFills(
    userId: number,
    filter: { optionId?: number | undefined; eventSlug?: string | undefined; orderId?: number | undefined },
    beforeId: number | null,
    limit: number,
  ) {
    const rows = await this.history.userFills(this.db, userId, filter, beforeId, limit);
    return toPage(
      rows,
      limit,
      (row) => ({
        id: String(row.id),
        fillId: String(row.fill_id),
        orderId: String(row.order_id),
        optionId: String(row.option_id),
        eventSlug: row.event_slug,
        eventTitle: row.event_title,
        optionLabel: row.option_label,
        side: row.side,
        action: row.action,
        role: row.liquidity,
        priceCents: row.price_cents,
        yesPriceCents: row.yes_price,
        quantity: row.quantity,
        notionalCents: row.quantity * row.price_cents,
        feeCents: row.fee_cents,
        createdAt: row.created_at.toISOString(),
      }),
      (row) => [row.id],
    );
  }

  async userSettlements(
    userId: number,
    filter: { eventSlug?: string | undefined },
    beforeId: number | null,
    limit: number,
  ) {
    const rows = await this.history.userSettlements(this.db, userId, filter, beforeId, limit);
    return toPage(
      rows,
      limit,
      (row) => ({
        id: String(row.id),
        optionId: String(row.option_id),
        eventSlug: row.event_slug,
        eventTitle: row.event_title,
        optionLabel: row.option_label,
        side: row.side,
        outcome: row.outcome,
        quantity: row.quantity,
        payoutCents: row.payout_cents,
        pnlCents: row.pnl_cents,
        settledAt: row.created_at.toISOString(),
      }),
      (row) => [row.id],
    );
  }

  /**
   * A trader's value over time, read in one snapshot: the planned points worked back from the holdings and balances
   * of that snapshot, then the value now, equal to the portfolio summary's total.
   */
  async portfolioHistory(userId: number, range: HistoryRange, now = Date.now()) {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const createdAt = await this.history.userCreatedAt(trx, userId);
        if (!createdAt) throw new NotFoundError('User');
        const plan = planHistory(range, createdAt.getTime(), now);
        const since = new Date(plan.firstSlot * plan.stepMs);
        const [balancesNow, holdingGroups, holdings, balanceChanges, holdingChanges] = await Promise.all([
          this.ledger.userBalances(trx, userId),
          this.trading.holdingGroups(trx, userId),
          this.history.holdings(trx, userId),
          this.history.balanceChanges(trx, userId, since, plan.stepMs),
          this.history.holdingChanges(trx, userId, since, plan.stepMs),
        ]);
        const optionIds = [...new Set(holdings.map((holding) => holding.option_id))];
        const [marks, conversionMarks] = await Promise.all([
          this.history.marks(trx, optionIds, plan.markInterval, since),
          this.history.conversionMarks(trx, optionIds, since),
        ]);
        const points = historyPoints({
          plan,
          balancesNow,
          holdingsNow: holdings.map((holding) => ({
            optionId: holding.option_id,
            side: holding.side,
            quantity: holding.quantity,
            resolution: holding.resolution,
            yesPayoutCents: holding.yes_payout_cents,
            resolvedAt: holding.resolved_at?.getTime() ?? null,
          })),
          balanceChanges,
          holdingChanges,
          marks,
          markWidthMs: INTERVALS[plan.markInterval],
          conversionMarks,
        });
        const positionsValueCents = valueOfGroups(holdingGroups).valueCents;
        points.push({
          t: new Date(now).toISOString(),
          ...balancesNow,
          positionsValueCents,
          totalValueCents: balancesNow.cashCents + balancesNow.reservedCents + positionsValueCents,
        });
        return { range, stepSeconds: plan.stepMs / 1000, data: points };
      });
  }
}

function toTicker(row: TickerRow) {
  const house = bookHouseOf(row, makerInventoriesOf(row.makers));
  const resting = restingLevelsOf(
    (row.levels ?? []).map(([side, priceCents, quantity, orders]) => ({
      side,
      priceCents,
      quantity: Number(quantity),
      orders: Number(orders),
    })),
  );
  const levels = ladderLevels(resting, house);
  const bid = levels.find((level) => level.side === 'bid');
  const ask = levels.find((level) => level.side === 'ask');
  const last = row.last_yes_price;
  const previous = row.price_24h_ago;
  return {
    optionId: String(row.id),
    eventSlug: row.event_slug,
    optionLabel: row.label,
    status: row.event_status,
    bestBidCents: bid?.priceCents ?? null,
    bestBidQuantity: bid?.quantity ?? 0,
    bestAskCents: ask?.priceCents ?? null,
    bestAskQuantity: ask?.quantity ?? 0,
    lastPriceCents: last,
    previousPriceCents: previous,
    change24hCents: last !== null && previous !== null ? last - previous : null,
    volume24hShares: row.volume_24h_shares,
    volume24hCents: row.volume_24h_cents,
    openInterest: row.open_interest,
  };
}
