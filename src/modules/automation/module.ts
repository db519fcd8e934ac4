import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { JobRunner } from '../../platform/jobs.js';
import type { MarketCatalogue } from '../markets/catalogue.js';
import type { NotificationsService } from '../notifications/service.js';
import type { TradingService } from '../trading/service.js';
import type { WebhookOutbox } from '../webhooks/module.js';
import { CopyRepository } from './copy-repository.js';
import { CopyTradingService, type ErrorLog, type FlagReader } from './copy-trading.js';
import { ProtectionsService } from './protections.js';
import { AutomationRepository } from './repository.js';
import { type PlacedReads, TradingEvents } from './trading-events.js';

export { automationRoutes } from './routes.js';

export const AUTOMATION_JOBS = { mirror: 'copy-trading.mirror' } as const;

/**
 * What acts for a user while they are away: feed items and webhooks for their orders, stop-loss/take-profit
 * protections, and copy trading. Hooks into the exchange's order listeners, which run inside each order's
 * transaction under the option lock.
 */
export function createAutomation(deps: {
  db: Kysely<DB>;
  trading: TradingService;
  prices: Pick<MarketCatalogue, 'shownYesPrice'>;
  notifications: NotificationsService;
  outbox: WebhookOutbox;
  flags: FlagReader;
  jobs: JobRunner;
  log: ErrorLog;
  config: { maxOrderQuantity: number };
}) {
  const repository = new AutomationRepository();
  const events = new TradingEvents(repository, deps.notifications, deps.outbox);
  const protections = new ProtectionsService(deps.db, repository, deps.trading, events, deps.prices);
  const copyTrading = new CopyTradingService(
    deps.db,
    new CopyRepository(),
    repository,
    deps.trading,
    events,
    deps.flags,
    { maxOrderQuantity: deps.config.maxOrderQuantity },
    deps.log,
  );
  deps.trading.onOrderCommitted<PlacedReads>(
    (trx, changes, read) => events.ordersCommitted(trx, changes, read),
    (trx, scope) => events.read(trx, scope),
  );
  deps.trading.onOrderCommitted((trx, changes) => protections.afterOrders(trx, changes));
  deps.trading.onOrderCommitted((trx, changes) => copyTrading.afterOrders(trx, changes));
  deps.trading.onOrdersEnded((trx, orders, reason) => events.ordersEnded(trx, orders, reason));
  deps.trading.onConverted((trx, conversions) => events.conversionsMade(trx, conversions));
  deps.jobs.register(AUTOMATION_JOBS.mirror, () => copyTrading.mirrorDue());
  return { protections, copyTrading };
}
