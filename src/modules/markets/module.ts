import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { TradingService } from '../trading/service.js';
import { MarketCatalogue } from './catalogue.js';
import { CatalogueChanges } from './changes.js';
import { MarketDisputes } from './disputes.js';
import { DisputesRepository } from './disputes-repository.js';
import { MarketEditing } from './editing.js';
import { MarketLifecycle } from './lifecycle.js';
import { MarketsRepository } from './repository.js';

export type Markets = ReturnType<typeof createMarkets>;

/**
 * Markets: the catalogue of events and options and its public reads, operators' edits, the lifecycle
 * draft → open → closed → resolved → settled, and disputes before settlement.
 */
export function createMarkets(deps: {
  db: Kysely<DB>;
  trading: TradingService;
  ledger: LedgerRepository;
  notifications: NotificationsService;
  settings: { disputeWindowHours: number };
}) {
  const { db, trading, ledger, notifications, settings } = deps;
  const markets = new MarketsRepository();
  const disputesRepository = new DisputesRepository();
  const changes = new CatalogueChanges(db, markets);
  const catalogue = new MarketCatalogue(db, markets, trading, settings);
  const editing = new MarketEditing(markets, ledger, changes, catalogue);
  const lifecycle = new MarketLifecycle(
    db,
    markets,
    disputesRepository,
    trading,
    notifications,
    changes,
    catalogue,
    settings,
  );
  const disputes = new MarketDisputes(
    db,
    markets,
    disputesRepository,
    trading,
    notifications,
    changes,
    lifecycle,
    settings,
  );
  return { catalogue, editing, lifecycle, disputes, changes };
}
