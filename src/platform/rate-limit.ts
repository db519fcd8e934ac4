import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitOptions, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { RateLimitedError } from './errors.js';
import type { Metrics } from './metrics.js';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  redis: Redis | null;
  keyPrefix: string;
  metrics: Metrics;
}

type Counted = { current: number; ttl: number };
type Incr = (
  key: string,
  done: (error: Error | null, result?: Counted) => void,
  window: number,
  max: number,
) => void;
interface Store {
  incr: Incr;
  child(routeOptions: unknown): Store;
}
type StoreCtor = new (...args: unknown[]) => Store;

// The plugin's own stores: the shared one in Redis and the in-memory one.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreCtor;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreCtor;

/**
 * Redis is an accelerator, never a single point of failure: the counters live in Redis while it answers and in
 * this instance's memory while it does not (unreachable, or no answer within ioredis' `commandTimeout`). The switch
 * is logged once per outage and every request counted locally is counted in `/metrics`.
 */
function sharedOrLocalStore(redis: Redis, nameSpace: string, onLocal: () => void): FastifyRateLimitStoreCtor {
  class SharedOrLocal {
    constructor(
      private readonly shared: Store,
      private readonly local: Store,
    ) {}

    incr: Incr = (key, done, window, max) => {
      if (redis.status !== 'ready') {
        onLocal();
        this.local.incr(key, done, window, max);
        return;
      }
      this.shared.incr(
        key,
        (error, result) => {
          if (!error) return done(null, result);
          onLocal();
          this.local.incr(key, done, window, max);
        },
        window,
        max,
      );
    };

    child(routeOptions: unknown): SharedOrLocal {
      return new SharedOrLocal(this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  }
  return class extends SharedOrLocal {
    constructor(options: FastifyRateLimitOptions) {
      const params = options as { continueExceeding?: boolean; exponentialBackoff?: boolean; cache?: number };
      super(
        new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, nameSpace),
        new LocalStore(params.continueExceeding, params.exponentialBackoff, params.cache),
      );
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

/** Logs Redis going away once (not once per request or reconnect attempt), and coming back. */
function watchRedis(redis: Redis, log: FastifyBaseLogger, metrics: Metrics): () => void {
  let local = false;
  redis.on('error', (err: Error) => {
    if (!local)
      log.warn({ err }, 'Redis is unreachable; rate limits count in this instance until it is back');
    local = true;
  });
  redis.on('ready', () => {
    if (local) log.info('Redis is back; rate limits count in Redis again');
    local = false;
  });
  return () => {
    metrics.rateLimitFallbacks.inc();
    if (!local) log.warn('Redis did not answer; rate limits count in this instance until it is back');
    local = true;
  };
}

/**
 * The budget a request draws from: a signed-in user has two, one for their browser sessions (all of them together)
 * and one for their API keys (all of them together), so a bot cannot lock its owner out of the web app and browsing
 * never refuses the bot's orders; an unauthenticated request draws from its address's.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const user = request.user;
  if (!user) return `ip:${request.ip}`;
  return user.credential.kind === 'session' ? `web:${user.userId}` : `user:${user.userId}`;
}

/** Each budget of `rateLimitKey`, per window. With Redis the counters are shared by every instance. */
export const rateLimitPlugin = fp<RateLimitOptions>(
  async (app: FastifyInstance, options) => {
    const { redis } = options;
    await app.register(rateLimit, {
      global: false,
      max: options.max,
      timeWindow: options.windowMs,
      hook: 'onRequest',
      enableDraftSpec: true,
      ...(redis
        ? {
            store: sharedOrLocalStore(
              redis,
              `${options.keyPrefix}ratelimit:`,
              watchRedis(redis, app.log, options.metrics),
            ),
          }
        : {}),
      keyGenerator: rateLimitKey,
      errorResponseBuilder: (_request, context) => new RateLimitedError(Math.ceil(context.ttl / 1000)),
    });
    // Counted in an application-wide hook, before any route's or area's own checks, so that every answer, a 401
    // or 403 included, carries the RateLimit headers (and bad credentials are limited like anything else). A route
    // that says `config: { rateLimit: false }` (the web app's files) is not counted.
    const limit = app.rateLimit();
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config?.rateLimit === false) return;
      await limit.call(app, request, reply);
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
