import { type DatabaseConfig, databaseConfig, postgresUrl } from './config-database.js';
import { bool, ConfigError, type Env, int, oneOf, raw, timezone, trustProxy, url } from './config-env.js';
import {
  type AiConfig,
  aiConfig,
  mailConfig,
  type S3Config,
  s3Config,
  secretFor,
} from './config-services.js';
import { parseKeys } from './secrets.js';

export type { S3Config };
export { ConfigError };

/**
 * Configuration comes only from environment variables and is validated once at start.
 * A wrong value stops the process with a message that names the variable. How one variable is read: config-env.ts;
 * the database's settings: config-database.ts; the outside services' (storage, mail, providers, AI):
 * config-services.ts.
 */

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  databaseUrl: string | null;
  dataDir: string;
  database: DatabaseConfig;
  maxQueuedOrdersPerOption: number;
  /** How long a request may wait for its market's transaction before it is answered 503, nothing of it written. */
  requestDeadlineMs: number;
  /** How long a collateral hold lives unspent before it is given back (past any request's deadline). */
  holdLifetimeMs: number;
  redisUrl: string | null;
  redisKeyPrefix: string;
  /** The longest a request waits for Redis before it counts its rate limit in the instance's memory. */
  redisTimeoutMs: number;
  /** The longest a graceful shutdown may take before the process exits anyway (with code 1). */
  shutdownTimeoutMs: number;
  /** What one address may hold open: WebSocket connections, and idle keep-alive HTTP connections. */
  connections: { streamPerAddress: number; idlePerAddress: number };
  /** The stream's window for clients that reconnect: the last changes of each book kept, and for how long. */
  streamWindow: { messages: number; seconds: number };
  publicUrl: string;
  /**
   * The bootstrap token that makes the first operator while no account is admin, when the operator chooses it
   * (automation); null prints a random one in the log at start.
   */
  adminBootstrapToken: string | null;
  /** Set when the environment still names ADMIN_EMAIL, which grants nothing any more: the log says so at start. */
  adminEmailIgnored: boolean;
  startingBalanceCents: number;
  streakTimezone: string;
  sessionTtlHours: number;
  /** How long an instance trusts a credential it has looked up; 0 looks every request up. */
  authCacheTtlMs: number;
  /** Bound of the public read cache (market lists, event details, order books kept as JSON), in MB. */
  readCacheMaxMb: number;
  /** How many options' order books are kept in memory between batches (the most recently used). */
  booksInMemory: number;
  /** Runs of one statement text after which it is prepared on PostgreSQL; 0 never prepares. */
  pgPrepareThreshold: number;
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Orders one user may place per window (single orders, batches' orders and amends; never cancels). */
  orderRateLimit: number;
  orderRateWindowMs: number;
  /** Requests per window of each budget for pulling quotes (cancels, cancel-all, heartbeats). */
  rateLimitPullMax: number;
  /** Requests per window of a user's browser sessions together (5 × rateLimitMax unless set). */
  rateLimitBrowseMax: number;
  /** The most limit orders one batch request carries. */
  maxBatchOrders: number;
  /** How often each instance looks for dead man's switches that went off. */
  heartbeatCheckMs: number;
  /**
   * Failed logins before sign-in is slowed down: for one account from one address, from one address whatever the
   * account, and for one account from anywhere (never refusing an address the account has signed in from before).
   */
  loginMaxFailures: number;
  loginMaxFailuresPerAddress: number;
  loginMaxFailuresPerAccount: number;
  /** The longest delay the login throttle imposes, in minutes. */
  loginWindowMinutes: number;
  /** Security log entries older than this many days are deleted; 0 keeps them for ever. */
  securityLogRetentionDays: number;
  /** Where mail goes out (verification and reset links); null: addresses are not verified. */
  smtpUrl: string | null;
  mailFrom: string;
  trustProxy: boolean | string;
  bodyLimitBytes: number;
  seedDemo: boolean;
  takerFeeBps: number;
  maxOrderQuantity: number;
  disputeWindowHours: number;
  referralRewardCents: number;
  avatarDir: string;
  s3: S3Config | null;
  jobsEnabled: boolean;
  jobIntervalMs: number;
  flagsRefreshMs: number;
  providerTimeoutMs: number;
  providerRetries: number;
  newsApiUrl: string | null;
  newsApiKey: string | null;
  newsCacheSeconds: number;
  ai: AiConfig | null;
  cricketApiUrl: string | null;
  cricketApiKey: string | null;
  cricketCacheSeconds: number;
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  /**
   * The keys that seal the secrets the service reads back (`SECRETS_KEY`, the current one first); empty: the key
   * file in DATA_DIR (see platform/secrets.ts).
   */
  secretsKeys: Buffer[];
  /**
   * Who may read `/metrics`: with a token, whoever sends it as a Bearer credential; with a port, only that port
   * serves it (on `host`); with neither, only this machine (a loopback peer that no proxy forwarded).
   */
  metrics: { token: string | null; port: number | null; host: string };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const port = int(env, 'PORT', 3000, 0, 65535);
  const adminBootstrapToken = raw(env, 'ADMIN_BOOTSTRAP_TOKEN') ?? null;
  if (adminBootstrapToken !== null && !/^[\x21-\x7e]{32,200}$/.test(adminBootstrapToken)) {
    throw new ConfigError('ADMIN_BOOTSTRAP_TOKEN', 'must be 32 to 200 printable characters without spaces');
  }
  return {
    nodeEnv,
    host: raw(env, 'HOST') ?? '0.0.0.0',
    port,
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      nodeEnv === 'test' ? 'silent' : 'info',
    ),
    // The service writes through it: a host of it must take writes.
    databaseUrl: postgresUrl(env, 'DATABASE_URL', ['any', 'read-write', 'primary']),
    dataDir: raw(env, 'DATA_DIR') ?? './data',
    database: databaseConfig(env),
    maxQueuedOrdersPerOption: int(env, 'MAX_QUEUED_ORDERS_PER_OPTION', 1000, 1, 1_000_000),
    ...requestBounds(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: raw(env, 'REDIS_KEY_PREFIX') ?? 'pmx:',
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 100, 5, 10_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 1_000, 600_000),
    connections: {
      streamPerAddress: int(env, 'STREAM_MAX_CONNECTIONS_PER_ADDRESS', 100, 1, 1_000_000),
      idlePerAddress: int(env, 'HTTP_MAX_IDLE_CONNECTIONS_PER_ADDRESS', 64, 1, 1_000_000),
    },
    streamWindow: {
      messages: int(env, 'STREAM_WINDOW_MESSAGES', 1000, 1, 1_000_000),
      seconds: int(env, 'STREAM_WINDOW_SECONDS', 300, 1, 7 * 24 * 3600),
    },
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`,
    adminBootstrapToken,
    adminEmailIgnored: raw(env, 'ADMIN_EMAIL') !== undefined,
    startingBalanceCents: int(env, 'STARTING_BALANCE_CENTS', 100_000, 0, 1_000_000_000),
    streakTimezone: timezone(env, 'STREAK_TIMEZONE', 'Asia/Kolkata'),
    sessionTtlHours: int(env, 'SESSION_TTL_HOURS', 24 * 30, 1, 24 * 365),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30_000, 0, 300_000),
    readCacheMaxMb: int(env, 'READ_CACHE_MAX_MB', 16, 1, 4096),
    booksInMemory: int(env, 'BOOKS_IN_MEMORY', 2_000, 16, 1_000_000),
    pgPrepareThreshold: int(env, 'PG_PREPARE_THRESHOLD', 5, 0, 1_000_000),
    rateLimitMax: int(env, 'RATE_LIMIT_MAX', 60, 1, 10_000_000),
    rateLimitWindowMs: int(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    orderRateLimit: int(env, 'ORDER_RATE_LIMIT', 100, 1, 10_000_000),
    orderRateWindowMs: int(env, 'ORDER_RATE_WINDOW_MS', 1000, 100, 3_600_000),
    rateLimitPullMax: int(env, 'RATE_LIMIT_PULL_MAX', 600, 1, 10_000_000),
    // Five cold loads of a page a minute for every request a bot may send: 300 by default.
    rateLimitBrowseMax: int(
      env,
      'RATE_LIMIT_BROWSE_MAX',
      Math.min(10_000_000, 5 * int(env, 'RATE_LIMIT_MAX', 60, 1, 10_000_000)),
      1,
      10_000_000,
    ),
    maxBatchOrders: int(env, 'MAX_BATCH_ORDERS', 20, 1, 200),
    heartbeatCheckMs: int(env, 'HEARTBEAT_CHECK_MS', 1000, 50, 60_000),
    loginMaxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginMaxFailuresPerAddress: int(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 20, 1, 100_000),
    loginMaxFailuresPerAccount: int(env, 'LOGIN_MAX_FAILURES_PER_ACCOUNT', 50, 1, 100_000),
    loginWindowMinutes: int(env, 'LOGIN_WINDOW_MINUTES', 15, 1, 1440),
    securityLogRetentionDays: int(env, 'SECURITY_LOG_RETENTION_DAYS', 365, 0, 36_500),
    ...mailConfig(env, port),
    trustProxy: trustProxy(env),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    seedDemo: bool(env, 'SEED_DEMO', true),
    takerFeeBps: int(env, 'TAKER_FEE_BPS', 0, 0, 1000),
    maxOrderQuantity: int(env, 'MAX_ORDER_QUANTITY', 1_000_000, 1, 1_000_000_000),
    disputeWindowHours: int(env, 'DISPUTE_WINDOW_HOURS', 24, 0, 24 * 30),
    referralRewardCents: int(env, 'REFERRAL_REWARD_CENTS', 500, 0, 1_000_000),
    avatarDir: raw(env, 'AVATAR_DIR') ?? `${raw(env, 'DATA_DIR') ?? './data'}/avatars`,
    s3: s3Config(env),
    jobsEnabled: bool(env, 'JOBS_ENABLED', true),
    jobIntervalMs: int(env, 'JOB_INTERVAL_MS', 5000, 50, 3_600_000),
    flagsRefreshMs: int(env, 'FLAGS_REFRESH_MS', 2000, 50, 60_000),
    providerTimeoutMs: int(env, 'PROVIDER_TIMEOUT_MS', 3000, 50, 60_000),
    providerRetries: int(env, 'PROVIDER_RETRIES', 2, 0, 5),
    newsApiUrl: url(env, 'NEWS_API_URL', ['http:', 'https:']),
    newsApiKey: secretFor(env, 'NEWS_API_KEY', 'NEWS_API_URL'),
    newsCacheSeconds: int(env, 'NEWS_CACHE_SECONDS', 600, 1, 86_400),
    ai: aiConfig(env),
    cricketApiUrl: url(env, 'CRICKET_API_URL', ['http:', 'https:']),
    cricketApiKey: secretFor(env, 'CRICKET_API_KEY', 'CRICKET_API_URL'),
    cricketCacheSeconds: int(env, 'CRICKET_CACHE_SECONDS', 5, 1, 3600),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 5000, 50, 60_000),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    secretsKeys: secretsKeys(env, nodeEnv),
    metrics: metricsConfig(env, port),
  };
}

/**
 * In production on PostgreSQL the key must come from the environment: the instances share it, and it must outlive
 * any one machine's disk (elsewhere the service may make one in DATA_DIR).
 */
function secretsKeys(env: Env, nodeEnv: Config['nodeEnv']): Buffer[] {
  const value = raw(env, 'SECRETS_KEY');
  if (value === undefined && nodeEnv === 'production' && raw(env, 'DATABASE_URL') !== undefined) {
    throw new ConfigError(
      'SECRETS_KEY',
      'is required in production with DATABASE_URL (webhook and TOTP secrets are sealed with it); ' +
        'make one with: openssl rand -base64 32',
    );
  }
  if (value === undefined) return [];
  try {
    return parseKeys(value);
  } catch (error) {
    throw new ConfigError(
      'SECRETS_KEY',
      `${(error as Error).message}: give base64 keys of 32 bytes, the current one first, separated by commas`,
    );
  }
}

function metricsConfig(env: Env, port: number): Config['metrics'] {
  const token = raw(env, 'METRICS_TOKEN') ?? null;
  if (token !== null && !/^[\x21-\x7e]{16,200}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 16 to 200 printable characters without spaces');
  }
  const metricsPort = raw(env, 'METRICS_PORT') === undefined ? null : int(env, 'METRICS_PORT', 0, 1, 65535);
  if (metricsPort !== null && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', 'must differ from PORT');
  }
  return { token, port: metricsPort, host: raw(env, 'METRICS_HOST') ?? raw(env, 'HOST') ?? '0.0.0.0' };
}

/**
 * A request's deadline, and how long what its collateral step set aside lives: longer than the deadline and any
 * transaction that may still be spending it (its statements each bounded by the statement timeout), so that a hold
 * is given back only once nothing can spend it any more.
 */
function requestBounds(env: Env) {
  const requestDeadlineMs = int(env, 'REQUEST_DEADLINE_MS', 5_000, 100, 600_000);
  return { requestDeadlineMs, holdLifetimeMs: requestDeadlineMs + 120_000 };
}
