import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { decodeCursor, toPage } from '../../../platform/http.js';
import type { SettlementRow, SettlementsRepository } from './repository.js';

/** A user's settled positions: what each paid when its market settled. */
export class SettlementsService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly settlements: SettlementsRepository,
  ) {}

  async list(
    userId: number,
    query: { eventSlug?: string | undefined; limit: number; cursor?: string | undefined },
  ) {
    const cursor = decodeCursor(query.cursor, 1);
    const rows = await this.settlements.list(this.db, userId, {
      eventSlug: query.eventSlug ?? null,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: query.limit,
    });
    return toPage(rows, query.limit, toSettlementView, (row) => [row.id]);
  }
}

function toSettlementView(row: SettlementRow) {
  return {
    id: String(row.id),
    eventSlug: row.event_slug,
    eventTitle: row.event_title,
    optionId: String(row.option_id),
    optionLabel: row.option_label,
    side: row.side,
    outcome: row.outcome,
    quantity: row.quantity,
    payoutCents: row.payout_cents,
    pnlCents: row.pnl_cents,
    settledAt: row.created_at.toISOString(),
  };
}
