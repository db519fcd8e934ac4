import type { FastifyBaseLogger } from 'fastify';
import { EmailLinks } from './modules/accounts/email-links.js';
import { LoginThrottle } from './modules/accounts/login-throttle.js';
import { PasskeyRepository } from './modules/accounts/passkey-repository.js';
import { PasskeyService } from './modules/accounts/passkeys.js';
import { AccountsRepository } from './modules/accounts/repository.js';
import { SecondFactorRepository } from './modules/accounts/second-factor-repository.js';
import { SecondFactorService } from './modules/accounts/second-factors.js';
import { SECURITY_LOG_PRUNE_JOB, SecurityLog } from './modules/accounts/security-log.js';
import { SecurityLogRepository } from './modules/accounts/security-log-repository.js';
import { AccountsService } from './modules/accounts/service.js';
import { SignInAlerts } from './modules/accounts/sign-in-alerts.js';
import { SignInRepository } from './modules/accounts/sign-in-repository.js';
import { OperatorsService } from './modules/admin/operators.js';
import { AdminRepository } from './modules/admin/repository.js';
import { createAutomation } from './modules/automation/module.js';
import { createCompetitions } from './modules/competitions/module.js';
import { FlagsRepository } from './modules/flags/repository.js';
import { FlagsService, flagPrerequisites } from './modules/flags/service.js';
import { createGamification } from './modules/gamification/module.js';
import { createIntegrations } from './modules/integrations/module.js';
import { AuditRepository } from './modules/ledger/audit.js';
import { LedgerRepository } from './modules/ledger/repository.js';
import { MarketQuotes } from './modules/market-data/quotes.js';
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
import { StreamWindow } from './modules/stream/window.js';
import { HeartbeatRepository } from './modules/trading/heartbeat-repository.js';
import { HeartbeatService } from './modules/trading/heartbeats.js';
import { createTrading } from './modules/trading/module.js';
import { createWebhooks } from './modules/webhooks/module.js';
import type { Config } from './platform/config.js';
import type { Database } from './platform/db/database.js';
import { JobRunner } from './platform/jobs.js';
import { smtpMailer } from './platform/mail.js';
import type { Metrics } from './platform/metrics.js';
import { SealedColumn, SecretsAtRest } from './platform/sealed-secrets.js';
import { loadKeyring } from './platform/secrets.js';

export interface ServiceDependencies {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  metrics: Metrics;
}

export type Services = Awaited<ReturnType<typeof createServices>>;

/** How long a return waits for its user's next collateral step before the background job takes it into cash. */
const RETURNS_WAIT_MS = 10_000;
/** How often the stream's window forgets what is beyond its limits (a resume checks the limits itself). */
const STREAM_WINDOW_PRUNE_MS = 10_000;

/** How often the security log's entries past their retention are deleted (a batch at a time until none is left). */
const SECURITY_LOG_PRUNE_MS = 10 * 60_000;

/** Authenticator codes name the exchange; a proved factor stays fresh for sensitive actions this long. */
const SECOND_FACTOR_SETTINGS = { issuer: 'Predict Exchange', freshMinutes: 10 };

/** Passkeys belong to the host name of PUBLIC_URL and are made on pages served from its origin. */
function passkeySettings(publicUrl: string) {
  const url = new URL(publicUrl);
  return { rpName: SECOND_FACTOR_SETTINGS.issuer, rpId: url.hostname, origin: url.origin };
}

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
  const accountsRepository = new AccountsRepository();
  const signIn = new SignInRepository();
  const throttle = new LoginThrottle(db, signIn, config);
  const accounts = new AccountsService(db, accountsRepository, ledger, config, throttle);
  const mailer = smtpMailer(config.smtpUrl, config.mailFrom);
  const emailLinks = new EmailLinks(
    db,
    { accounts: accountsRepository, signIn },
    mailer,
    accounts,
    throttle,
    config,
    log,
  );
  if (!mailer)
    log.warn(
      'SMTP_URL is not set: addresses are not verified (no verification or password reset mail is sent)',
    );
  const secretBox = loadKeyring(
    {
      configured: config.secretsKeys,
      nodeEnv: config.nodeEnv,
      databaseKind: database.kind,
      dataDir: config.dataDir,
    },
    log,
  );
  const totpSecrets = new SealedColumn(db, secretBox, {
    table: 'second_factors',
    column: 'secret',
    what: 'authenticator app (TOTP) secrets',
  });
  const passkeys = new PasskeyService(db, new PasskeyRepository(), passkeySettings(config.publicUrl));
  const secondFactors = new SecondFactorService(
    db,
    new SecondFactorRepository(),
    passkeys,
    SECOND_FACTOR_SETTINGS,
    (userId, password, from) => accounts.confirmPassword(userId, password, from),
    totpSecrets,
  );
  accounts.setLoginChallenge((user) => secondFactors.challengeFor(user));
  const securityLog = new SecurityLog(db, new SecurityLogRepository(), {
    retentionDays: config.securityLogRetentionDays,
  });
  jobs.register(SECURITY_LOG_PRUNE_JOB, () => securityLog.prune(), SECURITY_LOG_PRUNE_MS);
  const notifications = new NotificationsService(db, new NotificationsRepository());
  const tradingModule = createTrading({
    db,
    ledger,
    settings: { ...config, transactionsPerMarket: database.kind === 'pglite' ? 1 : 2 },
    observe: { log, metrics },
  });
  const trading = tradingModule.service;
  const markets = createMarkets({
    db,
    publicReads: database.reads,
    trading,
    tradingReads: tradingModule.reads,
    settlement: tradingModule.settlement,
    ledger,
    notifications,
    settings: config,
  });
  jobs.register('expire-orders', () => trading.cancels.expireDueOrders());
  // What markets gave back and nobody's own step has taken yet, into cash; and holds nothing will spend any more.
  jobs.register('take-back-returns', () => tradingModule.desk.takeBackReturns(RETURNS_WAIT_MS), 5_000);
  jobs.register('release-expired-holds', () => tradingModule.desk.releaseExpired(), 30_000);
  const heartbeats = new HeartbeatService(db, new HeartbeatRepository(), trading.cancels);
  jobs.register('heartbeats', () => heartbeats.fireLapsed(), config.heartbeatCheckMs);
  jobs.register('close-events', () => markets.lifecycle.closeDueEvents());
  jobs.register('settle-events', () => markets.lifecycle.settleDueEvents());
  const streamRepository = new StreamRepository();
  const streamWindow = new StreamWindow(database, streamRepository, config.streamWindow);
  const stream = new StreamService(database, streamRepository, new StreamHub(), log, streamWindow);
  jobs.register('prune-stream-window', () => streamWindow.prune(), STREAM_WINDOW_PRUNE_MS);
  stream.attach(trading, tradingModule.reads);
  const marketReads = new MarketReadCache(
    markets.catalogue,
    markets.changes,
    database,
    log,
    config.readCacheMaxMb,
  );
  marketReads.attach(trading);
  const marketDataRepository = new MarketDataRepository();
  const marketData = new MarketDataService(
    db,
    marketDataRepository,
    tradingModule.readsRepository,
    ledger,
    database.reads,
  );
  marketData.attach(trading);
  const marketQuotes = new MarketQuotes(db, marketDataRepository, config);
  const gamification = createGamification({ db, ledger, notifications, jobs, settings: config });
  const profile = createProfile({ db, notifications, config });
  const signInAlerts = new SignInAlerts({
    db,
    accounts: accountsRepository,
    feed: notifications,
    mailer,
    wants: (userId) => profile.notificationChoices.accepts(db, userId, 'newSignIn'),
    publicUrl: config.publicUrl,
    log,
  });
  securityLog.onNewSignIn((signIn) => signInAlerts.announce(signIn));
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
    facts: { addressesVerified: mailer !== null },
  });
  const integrations = createIntegrations({ config, db, flags, log });
  const webhooks = createWebhooks({ db, notifications, jobs, config, secretBox });
  const secrets = new SecretsAtRest(secretBox, [webhooks.secrets, totpSecrets]);
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
  const operators = new OperatorsService(db, new AdminRepository(), accounts);
  return {
    jobs,
    ledger,
    accounts,
    emailLinks,
    secondFactors,
    passkeys,
    securityLog,
    notifications,
    trading,
    tradingReads: tradingModule.reads,
    heartbeats,
    markets,
    stream,
    marketReads,
    marketData,
    marketQuotes,
    gamification,
    profile,
    social,
    competitions,
    flags,
    integrations,
    webhooks,
    /** The secrets the service reads back (webhook signing secrets, TOTP secrets), sealed under SECRETS_KEY. */
    secrets,
    automation,
    operators,
    /** Checks the ledger invariants (design.md section 3), as `npm run audit` does. */
    audit: () => new AuditRepository().run(db),
    /** Starts following other instances' changes (credentials, market data, the read cache). */
    async listen(): Promise<void> {
      await accounts.watchCredentialChanges(database);
      await stream.start();
      await marketReads.start();
    },
    async stopListening(): Promise<void> {
      mailer?.close();
      await accounts.stopWatchingCredentialChanges();
      await stream.stop();
      await marketReads.stop();
    },
  };
}
