import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/** What was written between `from` and `to` (the database's clock), to be moved `byMs` into the past. */
export interface TimeWindow {
  from: Date;
  to: Date;
  byMs: number;
}

/**
 * Moves what a stopped service wrote in each window back in time, in its embedded database (`DATA_DIR`): every
 * `created_at` of every table (fills, trades, ledger entries, users, markets…), so trades made a second apart read
 * as made hours or days apart. The candles are then built again from the moved fills by the rule the service
 * itself follows (migration 090). The windows must not overlap, and the later a window, the smaller its move, so
 * that times keep the order of the ids.
 */
export async function moveBack(dataDir: string, windows: TimeWindow[]): Promise<void> {
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pglite') });
  try {
    const tables = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
       WHERE table_schema = 'public' AND column_name = 'created_at' AND data_type LIKE 'timestamp%'`,
    );
    await db.transaction(async (tx) => {
      for (const { from, to, byMs } of windows) {
        for (const { table_name: table } of tables.rows) {
          await tx.query(
            `UPDATE "${table}" SET created_at = created_at - make_interval(secs => $3)
             WHERE created_at >= $1 AND created_at < $2`,
            [from.toISOString(), to.toISOString(), byMs / 1000],
          );
        }
      }
      await tx.exec(`
        DELETE FROM candles;
        INSERT INTO candles (option_id, interval, bucket, open, high, low, close, volume_shares, volume_cents)
        SELECT f.option_id, i.name, to_timestamp(floor(extract(epoch FROM f.created_at) / i.seconds) * i.seconds),
          (array_agg(f.yes_price ORDER BY f.id))[1], max(f.yes_price), min(f.yes_price),
          (array_agg(f.yes_price ORDER BY f.id DESC))[1], sum(f.quantity),
          sum(f.quantity * CASE WHEN o.side = 'YES' THEN f.yes_price ELSE 100 - f.yes_price END)
        FROM fills f
        JOIN orders o ON o.id = f.taker_order_id
        CROSS JOIN (VALUES ('1m', 60), ('1h', 3600), ('1d', 86400)) AS i (name, seconds)
        GROUP BY f.option_id, i.name, i.seconds, floor(extract(epoch FROM f.created_at) / i.seconds);
      `);
    });
  } finally {
    await db.close();
  }
}
