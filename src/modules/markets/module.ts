import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { TradingReads } from '../trading/reads.js';
import type { TradingService } from '../trading/service.js';
import type { SettlementService } from '../trading/settlement.js';
import { MarketCatalogue } from './catalogue.js';
import { CatalogueChanges } from './changes.js';
import { MarketDisputes } from './disputes.js';
import { DisputesRepository } from './disputes-repository.js';
import { MarketEditing } from './editing.js';
import { MarketLifecycle } from './lifecycle.js';
import { MarketsRepository } from './repository.js';
import { TradingStatus } from './status.js';
import { TradingStatusRepository } from './status-repository.js';

export type Markets = ReturnType<typeof createMarkets>;

/**
 * Markets: the catalogue of events and options and its public reads, operators' edits, the lifecycle
 * draft → open → closed → resolved → settled, disputes before settlement, and the trading status operators set.
 */
export function createMarkets(deps: {
  db: Kysely<DB>;
  /** Where the public reads go: a replica that never shows less than the primary, or the primary. */
  publicReads: Kysely<DB>;
  trading: TradingService;
  tradingReads: TradingReads;
  settlement: SettlementService;
  ledger: LedgerRepository;
  notifications: NotificationsService;
  settings: { disputeWindowHours: number; takerFeeBps: number };
}) {
  const { db, publicReads, trading, tradingReads, settlement, ledger, notifications, settings } = deps;
  const markets = new MarketsRepository();
  const disputesRepository = new DisputesRepository();
  const changes = new CatalogueChanges(db, markets);
  const catalogue = new MarketCatalogue(db, markets, tradingReads, settings, publicReads);
  const editing = new MarketEditing(markets, ledger, changes, catalogue);
  const lifecycle = new MarketLifecycle(
    db,
    markets,
    disputesRepository,
    { trading, settlement },
    notifications,
    changes,
    catalogue,
    settings,
  );
  const disputes = new MarketDisputes(
    db,
    markets,
    disputesRepository,
    tradingReads,
    notifications,
    changes,
    lifecycle,
    settings,
  );
  const status = new TradingStatus(db, new TradingStatusRepository(), settings);
  return { catalogue, editing, lifecycle, disputes, changes, status };
}
