import type { FastifyBaseLogger } from 'fastify';
import { AccountsRepository } from './modules/accounts/repository.js';
import { AccountsService } from './modules/accounts/service.js';
import { createAutomation } from './modules/automation/module.js';
import { createCompetitions } from './modules/competitions/module.js';
import { FlagsRepository } from './modules/flags/repository.js';
import { FlagsService, flagPrerequisites } from './modules/flags/service.js';
import { createGamification } from './modules/gamification/module.js';
import { createIntegrations } from './modules/integrations/module.js';
import { AuditRepository } from './modules/ledger/audit.js';
import { LedgerRepository } from './modules/ledger/repository.js';
import { MarketDataRepository } from './modules/market-data/repository.js';
import { MarketDataService } from './modules/market-data/service.js';
import { createMarkets } from './modules/markets/module.js';
import { MarketReadCache } from './modules/markets/read-cache.js';
import { NotificationsRepository } from './modules/notifications/repository.js';
import { NotificationsService } from './modules/notifications/service.js';
import { createProfile } from './modules/profile/module.js';
import { createSocial } from './modules/social/module.js';
import { StreamHub } from './modules/stream/hub.js';
import { StreamRepository } from './modules/stream/repository.js';
import { StreamService } from './modules/stream/service.js';
import { HeartbeatRepository } from './modules/trading/heartbeat-repository.js';
import { HeartbeatService } from './modules/trading/heartbeats.js';
import { TradingRepository } from './modules/trading/repository.js';
import { TradingService } from './modules/trading/service.js';
import { createWebhooks } from './modules/webhooks/module.js';
import type { Config } from './platform/config.js';
import type { Database } from './platform/db/database.js';
import { JobRunner } from './platform/jobs.js';
import type { Metrics } from './platform/metrics.js';

export interface ServiceDependencies {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  metrics: Metrics;
}

export type Services = Awaited<ReturnType<typeof createServices>>;

/**
 * The composition root: every service of the product with the listeners that tie them together (market data,
 * feed items, webhooks, protections, copy trading follow the exchange's commits), and the background jobs. The
 * app, the admin CLI and the jobs all run on what this builds, so a change made from any of them has the same
 * consequences.
 */
export async function createServices({ config, database, log, metrics }: ServiceDependencies) {
  const db = database.db;
  const jobs = new JobRunner(log, metrics);
  const ledger = new LedgerRepository();
  const accounts = new AccountsService(db, new AccountsRepository(), ledger, config);
  const notifications = new NotificationsService(db, new NotificationsRepository());
  const tradingRepository = new TradingRepository();
  const trading = new TradingService(
    db,
    tradingRepository,
    ledger,
    { ...config, transactionsPerMarket: database.kind === 'pglite' ? 1 : 2 },
    { log, metrics },
  );
  const markets = createMarkets({ db, trading, ledger, notifications, settings: config });
  jobs.register('expire-orders', () => trading.expireDueOrders());
  const heartbeats = new HeartbeatService(db, new HeartbeatRepository(), trading);
  jobs.register('heartbeats', () => heartbeats.fireLapsed(), config.heartbeatCheckMs);
  jobs.register('close-events', () => markets.lifecycle.closeDueEvents());
  jobs.register('settle-events', () => markets.lifecycle.settleDueEvents());
  const stream = new StreamService(database, new StreamRepository(), new StreamHub(), log);
  stream.attach(trading);
  const marketReads = new MarketReadCache(
    markets.catalogue,
    markets.changes,
    database,
    log,
    config.readCacheMaxMb,
  );
  marketReads.attach(trading);
  const marketData = new MarketDataService(db, new MarketDataRepository(), tradingRepository, ledger);
  marketData.attach(trading);
  const gamification = createGamification({ db, ledger, notifications, jobs, settings: config });
  const profile = createProfile({ db, notifications, config });
  const social = createSocial({
    db,
    markets: markets.editing,
    notifications,
    profile,
    gamification,
    credentials: accounts,
  });
  stream.attachDiscussion(social.discussionEvents);
  stream.attachNotifications(notifications);
  const competitions = createCompetitions({ db, ledger, notifications, social, accounts, jobs });
  const flags = new FlagsService(db, new FlagsRepository(), {
    refreshMs: config.flagsRefreshMs,
    prerequisites: flagPrerequisites(config),
  });
  const integrations = createIntegrations({ config, db, flags, log });
  const webhooks = createWebhooks({ db, notifications, jobs, config });
  const automation = createAutomation({
    db,
    trading,
    prices: markets.catalogue,
    notifications,
    outbox: webhooks.outbox,
    flags,
    jobs,
    log,
    config,
  });
  await accounts.ensureAdmin();
  return {
    jobs,
    ledger,
    accounts,
    notifications,
    trading,
    heartbeats,
    markets,
    stream,
    marketReads,
    marketData,
    gamification,
    profile,
    social,
    competitions,
    flags,
    integrations,
    webhooks,
    automation,
    /** Checks the ledger invariants (design.md section 3), as `npm run audit` does. */
    audit: () => new AuditRepository().run(db),
    /** Starts following other instances' changes (credentials, market data, the read cache). */
    async listen(): Promise<void> {
      await accounts.watchCredentialChanges(database);
      await stream.start();
      await marketReads.start();
    },
    async stopListening(): Promise<void> {
      await accounts.stopWatchingCredentialChanges();
      await stream.stop();
      await marketReads.stop();
    },
  };
}
