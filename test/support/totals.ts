import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';

/**
 * The leaderboard's totals the database keeps per trader (migration 190) equal what the trades, positions and
 * settlements they summarise add up to.
 */
export async function expectTraderTotalsKept(database: Database): Promise<void> {
  const { rows } = await sql<{ user_id: string; kept: string; summed: string }>`
    WITH summed AS (
      SELECT user_id, sum(volume) AS volume, sum(pnl) AS pnl, sum(results) AS results, sum(wins) AS wins FROM (
        SELECT user_id, sum(quantity * price_cents) AS volume, 0 AS pnl, 0 AS results, 0 AS wins
        FROM trades GROUP BY user_id
        UNION ALL
        SELECT user_id, 0, sum(realized_pnl_cents), count(*) FILTER (WHERE realized_pnl_cents <> 0), 0
        FROM positions GROUP BY user_id
        UNION ALL
        SELECT user_id, 0, 0, 0, count(*) FROM position_settlements
        WHERE outcome = side AND quantity > 0 GROUP BY user_id) parts
      GROUP BY user_id)
    SELECT coalesce(s.user_id, t.user_id) AS user_id,
      concat_ws('/', t.volume_cents, t.realized_pnl_cents, t.positions_with_result, t.winning_predictions) AS kept,
      concat_ws('/', coalesce(s.volume, 0), coalesce(s.pnl, 0), coalesce(s.results, 0), coalesce(s.wins, 0)) AS summed
    FROM summed s FULL JOIN trader_totals t ON t.user_id = s.user_id
    ORDER BY 1`.execute(database.db);
  const differing = rows.filter((row) => row.kept !== row.summed);
  expect(differing).toEqual([]);
  expect(rows.length).toBeGreaterThan(0);
}
