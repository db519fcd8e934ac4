import { sql } from 'kysely';
import { Pool } from 'undici';
import { LedgerRepository } from '../src/modules/ledger/repository.js';
import { MarketDataRepository } from '../src/modules/market-data/repository.js';
import { MarketDataService } from '../src/modules/market-data/service.js';
import { TradingReadsRepository } from '../src/modules/trading/reads-repository.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createEvent, json, registerAdmin, registerUsers, startCluster } from './harness.js';
import { load, type ReadRun } from './reads.js';

/**
 * Candles of an option with 100,000 trades, warm: GET /api/options/{id}/candles at 1 minute (the last 1,440
 * minutes), 1 hour (the week it traded) and 1 day, in rotation, on one server process over PostgreSQL.
 *
 * The trades are written straight to the fills table, one every 6 seconds over the last week (a week of trading
 * through the order path would take the bench a week), and their candles by the very writer the trading
 * transaction calls (MarketDataService.recordFills), a thousand fills per transaction.
 */
export const CANDLE_TRADES = 100_000;
const SPACING_SECONDS = 6;
const WRITE_BATCH = 1_000;

export interface CandlesResult {
  trades: number;
  candleRows: number;
  run: ReadRun;
}

async function seedTrades(serverUrl: string, databaseUrl: string): Promise<string> {
  const pool = new Pool(serverUrl, { connections: 4 });
  const database = await openDatabase({ url: databaseUrl, dataDir: null });
  try {
    const admin = await registerAdmin(pool);
    const [optionId] = await createEvent(pool, admin, {
      title: 'Candle benchmark: will it rain in Mumbai on the first of June?',
      category: 'weather',
      options: [{ label: 'Yes', liquidityCents: 100_000 }],
    });
    const [token] = await registerUsers([pool], 1, 'candles');
    const placed = await json(pool, 'POST', '/api/trades', token as string, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      priceCents: 99,
    });
    if (placed.status !== 201) throw new Error(`seed trade: ${placed.status} ${JSON.stringify(placed.body)}`);
    const takerOrderId = Number(placed.body.id);
    const data = new MarketDataService(
      database.db,
      new MarketDataRepository(),
      new TradingReadsRepository(),
      new LedgerRepository(),
    );
    for (let from = CANDLE_TRADES - 1; from >= 0; from -= WRITE_BATCH) {
      const to = Math.max(0, from - WRITE_BATCH + 1);
      await database.db.transaction().execute(async (trx) => {
        // Oldest first, as they were made: trade i was made i × 6 s ago.
        const { rows } = await sql<{ yes_price: number; quantity: string; created_at: Date }>`
          INSERT INTO fills (option_id, yes_price, quantity, kind, taker_order_id, created_at)
          SELECT ${Number(optionId)}, 20 + (i * 7919) % 60, 1 + i % 50, 'mint', ${takerOrderId},
            now() - make_interval(secs => i * ${SPACING_SECONDS})
          FROM generate_series(${from}::int, ${to}::int, -1) AS i
          RETURNING yes_price, quantity, created_at`.execute(trx);
        await data.recordFills(trx, [
          {
            optionId: Number(optionId),
            fills: rows.map((row) => ({
              yesPriceCents: row.yes_price,
              quantity: Number(row.quantity),
              takerSide: 'YES' as const,
              at: row.created_at.toISOString(),
            })),
          },
        ]);
      });
    }
    return optionId as string;
  } finally {
    await database.close();
    await pool.close();
  }
}

export async function benchCandles(options: {
  databaseUrl: string;
  seconds: number;
  connections: number;
  pipelining: number;
  workers: number;
}): Promise<CandlesResult> {
  const cluster = await startCluster(options.databaseUrl, 1);
  try {
    const url = cluster.urls[0] as string;
    const optionId = await seedTrades(url, cluster.databaseUrl);
    const database = await openDatabase({ url: cluster.databaseUrl, dataDir: null });
    let candleRows = 0;
    try {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM candles`.execute(database.db);
      candleRows = Number(rows[0]?.n);
    } finally {
      await database.close();
    }
    const paths = ['1m', '1h', '1d'].map(
      (interval) => `/api/options/${optionId}/candles?interval=${interval}`,
    );
    const run = await load(url, paths, options.seconds, options, cluster.pids[0] as number);
    return { trades: CANDLE_TRADES, candleRows, run };
  } finally {
    await cluster.stop();
  }
}
