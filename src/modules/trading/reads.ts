import type { Kysely } from 'kysely';
import { ladderLevels, restingLevelsOf } from '../../exchange/ladder.js';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable, Tx } from '../../platform/db/types.js';
import { encodeCursor } from '../../platform/http.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderFilter, PositionsPage, TradeFilter, TradingReadsRepository } from './reads-repository.js';
import { bookHouseOf } from './rows.js';
import { positionCursorOf, toPositionView, valueOfGroups } from './views.js';

/** What traders read of trading: an option's book, their orders, trades, conversions, positions and portfolio. */
export class TradingReads {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly reads: TradingReadsRepository,
    private readonly ledger: LedgerRepository,
  ) {}

  /**
   * An option's book as it stands, the one read behind the order book and the stream's snapshot: every level with
   * resting orders or a house quote (the house quotes only while the market is open), bids then asks, best first.
   */
  async book(optionId: number) {
    const found = await this.reads.bookAt(this.db, optionId);
    if (!found) return null;
    const { option, levels, makers } = found;
    return { option, levels: ladderLevels(restingLevelsOf(levels), bookHouseOf(option, makers)) };
  }

  hasHeldPosition(trx: Tx, userId: number, eventId: number): Promise<boolean> {
    return this.reads.hasHeldPosition(trx, userId, eventId);
  }

  listOrders(userId: number, filter: OrderFilter, beforeId: number | null, limit: number) {
    return this.reads.listOrders(this.db, userId, filter, beforeId, limit);
  }

  listConversions(userId: number, eventSlug: string | undefined, beforeId: number | null, limit: number) {
    return this.reads.listConversions(this.db, userId, eventSlug, beforeId, limit);
  }

  listTrades(userId: number, filter: TradeFilter, beforeId: number | null, limit: number) {
    return this.reads.listTrades(this.db, userId, filter, beforeId, limit);
  }

  /**
   * Positions valued by the valuation rule, in the order of their option and side (those after `page.after`: all
   * of them, or a page of `page.limit`), and the portfolio summary over all of them whatever the page.
   */
  async portfolio(userId: number, page: PositionsPage = { limit: null, after: null }) {
    const [positions, summary] = await Promise.all([
      this.reads.positionsOf(this.db, userId, page),
      this.summary(this.db, userId),
    ]);
    const more = page.limit !== null && positions.length > page.limit;
    const rows = more ? positions.slice(0, page.limit ?? undefined) : positions;
    const last = rows.at(-1);
    return {
      data: rows.map(toPositionView),
      nextCursor: more && last ? encodeCursor(positionCursorOf(last.option_id, last.side)) : null,
      summary,
    };
  }

  /**
   * The portfolio summary: cash, reserved, every open position valued by the valuation rule (summed in SQL per
   * mark, never row by row), realized P&L and open orders. The value over time ends on its total.
   */
  async summary(db: Queryable, userId: number) {
    const [groups, balances, realizedPnlCents, openOrders] = await Promise.all([
      this.reads.holdingGroups(db, userId),
      this.ledger.userBalances(db, userId),
      this.reads.realizedPnl(db, userId),
      this.reads.openOrderCount(db, userId),
    ]);
    const { valueCents: positionsValueCents, unrealizedPnlCents } = valueOfGroups(groups);
    return {
      cashCents: balances.cashCents,
      reservedCents: balances.reservedCents,
      positionsValueCents,
      totalValueCents: balances.cashCents + balances.reservedCents + positionsValueCents,
      realizedPnlCents,
      unrealizedPnlCents,
      openOrders,
    };
  }
}
