import { sql } from 'kysely';
import type { PositionState } from '../../exchange/positions.js';
import type { SideText } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { PositionRow } from './repository.js';

/** What settling an option reads and writes: its holders, their closed positions and results, the house's payout. */
export class SettlementRepository {
  /** Who holds shares of an option; locked for a settlement, unlocked for a preview of one. */
  holdersOf(db: Queryable, optionId: number, lock = true): Promise<PositionRow[]> {
    const query = db
      .selectFrom('positions')
      .selectAll()
      .where('option_id', '=', optionId)
      .where('quantity', '>', 0)
      .orderBy('id');
    return (lock ? query.forUpdate() : query).execute();
  }

  async insertSettlements(
    db: Queryable,
    rows: {
      userId: number;
      optionId: number;
      eventId: number;
      side: SideText;
      outcome: 'YES' | 'NO' | 'VOID';
      quantity: number;
      payoutCents: number;
      pnlCents: number;
    }[],
  ): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('position_settlements')
      .values(
        rows.map((r) => ({
          user_id: r.userId,
          option_id: r.optionId,
          event_id: r.eventId,
          side: r.side,
          outcome: r.outcome,
          quantity: r.quantity,
          payout_cents: r.payoutCents,
          pnl_cents: r.pnlCents,
        })),
      )
      .execute();
  }

  /** The house maker's inventory in a settled option is paid out: its result there is final. */
  async settleHouse(db: Queryable, optionId: number, payoutCents: number): Promise<void> {
    await db
      .updateTable('options')
      .set((eb) => ({
        amm_yes_shares: 0,
        amm_no_shares: 0,
        amm_cash_cents: eb('amm_cash_cents', '+', payoutCents),
      }))
      .where('id', '=', optionId)
      .execute();
  }

  async savePositions(
    db: Queryable,
    positions: { userId: number; optionId: number; side: SideText; state: PositionState }[],
  ): Promise<void> {
    if (positions.length === 0) return;
    await sql`
      INSERT INTO positions (option_id, user_id, side, quantity, reserved_quantity, cost_cents, realized_pnl_cents)
      SELECT * FROM unnest(${positions.map((p) => p.optionId)}::bigint[], ${positions.map((p) => p.userId)}::bigint[],
        ${positions.map((p) => p.side)}::text[], ${positions.map((p) => p.state.quantity)}::bigint[],
        ${positions.map((p) => p.state.reservedQuantity)}::bigint[], ${positions.map((p) => p.state.costCents)}::bigint[],
        ${positions.map((p) => p.state.realizedPnlCents)}::bigint[])
      ON CONFLICT (user_id, option_id, side) DO UPDATE SET quantity = excluded.quantity,
        reserved_quantity = excluded.reserved_quantity, cost_cents = excluded.cost_cents,
        realized_pnl_cents = excluded.realized_pnl_cents, updated_at = now()`.execute(db);
  }
}
