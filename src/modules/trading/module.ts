import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Metrics } from '../../platform/metrics.js';
import { CollateralRepository } from '../ledger/collateral-repository.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { CollateralDesk } from './collateral.js';
import { IdempotencyRepository } from './idempotency-repository.js';
import type { WarnLog } from './pipeline/index.js';
import { TradingReads } from './reads.js';
import { TradingReadsRepository } from './reads-repository.js';
import { TradingRepository } from './repository.js';
import { TradingService } from './service.js';
import { SettlementService } from './settlement.js';
import { SettlementRepository } from './settlement-repository.js';
import type { TradingSettings } from './types.js';

export type Trading = ReturnType<typeof createTrading>;

/**
 * Trading: the changes to the books (orders, cancels, amends, conversions, expiries, market close) through the order
 * pipeline, the reads of orders, trades, positions and books, and the payouts at settlement.
 */
export function createTrading(deps: {
  db: Kysely<DB>;
  ledger: LedgerRepository;
  settings: TradingSettings & { holdLifetimeMs: number };
  observe: { log: WarnLog; metrics: Metrics | null };
}) {
  const { db, ledger, settings, observe } = deps;
  const repository = new TradingRepository();
  const readsRepository = new TradingReadsRepository();
  const desk = new CollateralDesk(db, new CollateralRepository(), ledger, {
    holdLifetimeMs: settings.holdLifetimeMs,
  });
  const keys = new IdempotencyRepository();
  const service = new TradingService(db, repository, keys, desk, ledger, settings, observe);
  const reads = new TradingReads(db, readsRepository, ledger);
  const settlement = new SettlementService(db, repository, new SettlementRepository(), ledger);
  return { service, reads, settlement, desk, repository, readsRepository };
}
