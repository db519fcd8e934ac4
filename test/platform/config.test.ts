import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: null,
      dataDir: './data',
      startingBalanceCents: 100000,
      rateLimitMax: 60,
      streakTimezone: 'Asia/Kolkata',
      seedDemo: true,
      authCacheTtlMs: 30000,
      database: {
        poolSize: 10,
        timeouts: { acquireMs: 2000, statementMs: 5000, lockMs: 2000, idleInTransactionMs: 10000 },
        startupTimeoutMs: 60000,
      },
      maxQueuedOrdersPerOption: 1000,
      redisTimeoutMs: 100,
      shutdownTimeoutMs: 10000,
      connections: { streamPerAddress: 100, idlePerAddress: 64 },
      securityLogRetentionDays: 365,
    });
    expect(loadConfig({ SECURITY_LOG_RETENTION_DAYS: '0' }).securityLogRetentionDays).toBe(0);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'not a url'],
    ['STARTING_BALANCE_CENTS', '-5'],
    ['STREAK_TIMEZONE', 'Mars/Olympus'],
    ['SEED_DEMO', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['ADMIN_BOOTSTRAP_TOKEN', 'short'],
    ['DATABASE_LOCK_TIMEOUT_MS', '5000'],
    ['DATABASE_LOCK_TIMEOUT_MS', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['MAX_QUEUED_ORDERS_PER_OPTION', '0'],
    ['AUTH_CACHE_TTL_MS', '-1'],
    ['AUTH_CACHE_TTL_MS', '600000'],
    ['DATABASE_STARTUP_TIMEOUT_MS', 'soon'],
    ['REDIS_TIMEOUT_MS', '0'],
    ['SHUTDOWN_TIMEOUT_MS', '10'],
    ['STREAM_MAX_CONNECTIONS_PER_ADDRESS', '0'],
    ['HTTP_MAX_IDLE_CONNECTIONS_PER_ADDRESS', '-3'],
    ['SECRETS_KEY', 'c2hvcnQ='],
    ['SECRETS_KEY', `${Buffer.alloc(32).toString('base64')},not base64!`],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_PORT', '3000'],
    ['METRICS_PORT', 'ninety'],
    ['SECURITY_LOG_RETENTION_DAYS', '-1'],
    ['SECURITY_LOG_RETENTION_DAYS', 'a year'],
    ['SECURITY_LOG_RETENTION_DAYS', '1.5'],
  ])('stops on %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrowError(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrowError(name);
  });

  it('needs SECRETS_KEY in production on PostgreSQL, and takes a keyring, the current key first', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/exchange' };
    expect(() => loadConfig(production)).toThrowError(
      'SECRETS_KEY is required in production with DATABASE_URL',
    );
    // The embedded database (no DATABASE_URL) makes a key of its own in DATA_DIR.
    expect(loadConfig({ NODE_ENV: 'production' }).secretsKeys).toEqual([]);
    const [current, previous] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const config = loadConfig({
      ...production,
      SECRETS_KEY: `${current.toString('base64')}, ${previous.toString('base64')}`,
    });
    expect(config.secretsKeys).toEqual([current, previous]);
  });

  it('serves metrics to this machine only unless a token or a port of their own is set', () => {
    expect(loadConfig({}).metrics).toEqual({ token: null, port: null, host: '0.0.0.0' });
    expect(
      loadConfig({ METRICS_TOKEN: 'a-long-enough-token', METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' })
        .metrics,
    ).toEqual({ token: 'a-long-enough-token', port: 9464, host: '10.0.0.5' });
  });
});
