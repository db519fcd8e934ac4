import type { Kysely } from 'kysely';
import { ladderLevels, restingLevelsOf } from '../../exchange/ladder.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderFilter, TradeFilter, TradingReadsRepository } from './reads-repository.js';
import { bookHouseOf } from './rows.js';
import { toPositionView } from './views.js';

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

  /** Positions valued at their side's last traded price, and the portfolio summary. */
  async portfolio(userId: number) {
    const [positions, balances, realizedPnlCents, openOrders] = await Promise.all([
      this.reads.positionsOf(this.db, userId),
      this.ledger.userBalances(this.db, userId),
      this.reads.realizedPnl(this.db, userId),
      this.reads.openOrderCount(this.db, userId),
    ]);
    const data = positions.map(toPositionView);
    const positionsValueCents = data.reduce((sum, p) => sum + p.valueCents, 0);
    return {
      data,
      summary: {
        cashCents: balances.cashCents,
        reservedCents: balances.reservedCents,
        positionsValueCents,
        totalValueCents: balances.cashCents + balances.reservedCents + positionsValueCents,
        realizedPnlCents,
        unrealizedPnlCents: data.reduce((sum, p) => sum + p.unrealizedPnlCents, 0),
        openOrders,
      },
    };
  }
}
