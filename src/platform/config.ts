import type { DatabaseTimeouts } from './db/pool.js';

/**
 * Configuration comes only from environment variables and is validated once at start.
 * A wrong value stops the process with a message that names the variable.
 */

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  databaseUrl: string | null;
  dataDir: string;
  /** Bounds of every wait on PostgreSQL (milliseconds; 0 = none), and how long start-up waits for it. */
  database: { poolSize: number; timeouts: DatabaseTimeouts; startupTimeoutMs: number };
  maxQueuedOrdersPerOption: number;
  redisUrl: string | null;
  redisKeyPrefix: string;
  /** The longest a request waits for Redis before it counts its rate limit in the instance's memory. */
  redisTimeoutMs: number;
  /** The longest a graceful shutdown may take before the process exits anyway (with code 1). */
  shutdownTimeoutMs: number;
  /** What one address may hold open: WebSocket connections, and idle keep-alive HTTP connections. */
  connections: { streamPerAddress: number; idlePerAddress: number };
  publicUrl: string;
  adminEmail: string | null;
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
  /** The most limit orders one batch request carries. */
  maxBatchOrders: number;
  /** How often each instance looks for dead man's switches that went off. */
  heartbeatCheckMs: number;
  loginMaxFailures: number;
  loginWindowMinutes: number;
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
  ai: { baseUrl: string; apiKey: string | null; model: string; timeoutMs: number } | null;
  cricketApiUrl: string | null;
  cricketApiKey: string | null;
  cricketCacheSeconds: number;
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(name, `must be an integer, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false, got "${value}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const value = raw(env, name);
  if (value === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return value;
}

function timezone(env: Env, name: string, fallback: string): string {
  const value = raw(env, name) ?? fallback;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: value });
  } catch {
    throw new ConfigError(name, `must be an IANA time zone such as Asia/Kolkata, got "${value}"`);
  }
  return value;
}

function trustProxy(env: Env): boolean | string {
  const value = raw(env, 'TRUST_PROXY');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return value;
}

/** S3-compatible object storage (AWS S3, MinIO, R2...) for avatars; unset S3_BUCKET keeps them on local disk. */
export interface S3Config {
  bucket: string;
  region: string;
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

function s3Config(env: Env): S3Config | null {
  const bucket = raw(env, 'S3_BUCKET');
  if (bucket === undefined) {
    for (const name of ['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
      if (raw(env, name) !== undefined) throw new ConfigError(name, 'is set but S3_BUCKET is not');
    }
    return null;
  }
  const accessKeyId = raw(env, 'S3_ACCESS_KEY_ID') ?? null;
  const secretAccessKey = raw(env, 'S3_SECRET_ACCESS_KEY') ?? null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError(
      accessKeyId === null ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with its pair',
    );
  }
  return {
    bucket,
    region: raw(env, 'S3_REGION') ?? 'us-east-1',
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const port = int(env, 'PORT', 3000, 0, 65535);
  const adminEmail = raw(env, 'ADMIN_EMAIL')?.toLowerCase() ?? null;
  if (adminEmail !== null && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(adminEmail)) {
    throw new ConfigError('ADMIN_EMAIL', 'must be an email address');
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
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: raw(env, 'DATA_DIR') ?? './data',
    database: databaseConfig(env),
    maxQueuedOrdersPerOption: int(env, 'MAX_QUEUED_ORDERS_PER_OPTION', 1000, 1, 1_000_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: raw(env, 'REDIS_KEY_PREFIX') ?? 'pmx:',
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 100, 5, 10_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 1_000, 600_000),
    connections: {
      streamPerAddress: int(env, 'STREAM_MAX_CONNECTIONS_PER_ADDRESS', 100, 1, 1_000_000),
      idlePerAddress: int(env, 'HTTP_MAX_IDLE_CONNECTIONS_PER_ADDRESS', 64, 1, 1_000_000),
    },
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`,
    adminEmail,
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
    maxBatchOrders: int(env, 'MAX_BATCH_ORDERS', 20, 1, 200),
    heartbeatCheckMs: int(env, 'HEARTBEAT_CHECK_MS', 1000, 50, 60_000),
    loginMaxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginWindowMinutes: int(env, 'LOGIN_WINDOW_MINUTES', 15, 1, 1440),
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
  };
}

function databaseConfig(env: Env): Config['database'] {
  const timeouts = {
    acquireMs: int(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 2000, 0, 600_000),
    statementMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 0, 3_600_000),
    lockMs: int(env, 'DATABASE_LOCK_TIMEOUT_MS', 2000, 0, 3_600_000),
    idleInTransactionMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10_000, 0, 3_600_000),
  };
  // A lock wait is a statement: at or past the statement timeout, a busy option would never be told apart.
  if (timeouts.statementMs > 0 && (timeouts.lockMs === 0 || timeouts.lockMs >= timeouts.statementMs)) {
    throw new ConfigError('DATABASE_LOCK_TIMEOUT_MS', 'must be set below DATABASE_STATEMENT_TIMEOUT_MS');
  }
  return {
    poolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    timeouts,
    startupTimeoutMs: int(env, 'DATABASE_STARTUP_TIMEOUT_MS', 60_000, 0, 3_600_000),
  };
}

/** A provider key without its provider's address is a deployment mistake worth stopping for. */
function secretFor(env: Env, name: string, urlName: string): string | null {
  const value = raw(env, name) ?? null;
  if (value !== null && raw(env, urlName) === undefined) {
    throw new ConfigError(name, `is set but ${urlName} is not`);
  }
  return value;
}

function aiConfig(env: Env): Config['ai'] {
  const baseUrl = url(env, 'AI_BASE_URL', ['http:', 'https:']);
  const apiKey = secretFor(env, 'AI_API_KEY', 'AI_BASE_URL');
  const model = raw(env, 'AI_MODEL') ?? null;
  const timeoutMs = int(env, 'AI_TIMEOUT_MS', 8000, 50, 120_000);
  if (baseUrl === null) {
    if (model !== null) throw new ConfigError('AI_MODEL', 'is set but AI_BASE_URL is not');
    return null;
  }
  if (model === null) throw new ConfigError('AI_MODEL', 'is required when AI_BASE_URL is set');
  return { baseUrl, apiKey, model, timeoutMs };
}
