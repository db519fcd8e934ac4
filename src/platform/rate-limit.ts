import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitOptions, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { RateLimitedError } from './errors.js';
import type { Metrics } from './metrics.js';
import { OrderBudget } from './order-budget.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route pulls quotes (cancels, cancel-all, the dead man's switch): it draws on the user's budget for pulling
     * rather than the request budget, so that a bot that has spent its requests can still take its orders down.
     */
    pulls?: boolean;
  }
  interface FastifyInstance {
    /** The per-user order budget, which order-placing routes draw on beside the request budget. */
    orderBudget: OrderBudget;
  }
}

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  redis: Redis | null;
  /** The longest a request waits for Redis before it counts in this instance's memory. */
  redisTimeoutMs: number;
  keyPrefix: string;
  metrics: Metrics;
  /** The order budget: orders per user per window. */
  orders: { limit: number; windowMs: number };
  /** The budget of the routes that pull quotes, per `rateLimitKey` and window. */
  pullMax: number;
  /** The budget of a user's browser sessions together (browsing the web app), per window. */
  browseMax: number;
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

/** How often an open circuit asks Redis whether it answers again. */
const PROBE_INTERVAL_MS = 1_000;
/** Unanswered probes after which the connection is given up and opened anew (a stalled connection may never answer). */
const PROBES_BEFORE_RECONNECT = 3;

/**
 * Whether requests ask Redis at all. Closed, they ask it and wait at most `timeoutMs` for its answer. A request that
 * Redis fails or does not answer in time opens the circuit: from then on requests count in the instance's memory
 * without asking, and a probe (PING) asks Redis every second in the background, reconnecting after three
 * unanswered probes; the first answered probe closes the circuit. So a stalled Redis delays only the requests in
 * flight when it stalls, by at most `timeoutMs`. While the client is not connected at all, requests count locally
 * without opening the circuit: the client reconnects by itself.
 */
export class RedisCircuit {
  private open = false;
  private probe: NodeJS.Timeout | null = null;
  private unanswered = 0;

  constructor(
    private readonly redis: Redis,
    readonly timeoutMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  get usable(): boolean {
    return !this.open && this.redis.status === 'ready';
  }

  /** Stops asking Redis after a failure or a wait past `timeoutMs`. */
  trip(why: string): void {
    if (this.open) return;
    this.open = true;
    this.log.warn(
      { why, timeoutMs: this.timeoutMs },
      'Redis did not answer; rate limits count in this instance until it answers again',
    );
    this.scheduleProbe();
  }

  stop(): void {
    if (this.probe) clearTimeout(this.probe);
    this.probe = null;
  }

  private scheduleProbe(): void {
    this.probe = setTimeout(() => void this.runProbe(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private async runProbe(): Promise<void> {
    if (await answersWithin(this.redis.ping(), this.timeoutMs)) {
      this.open = false;
      this.unanswered = 0;
      this.log.info('Redis answers again; rate limits count in Redis again');
      return;
    }
    this.unanswered += 1;
    if (this.unanswered % PROBES_BEFORE_RECONNECT === 0 && this.redis.status === 'ready')
      this.redis.disconnect(true);
    this.scheduleProbe();
  }
}

async function answersWithin(reply: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([reply.then(() => true as const), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Redis is an accelerator, never a single point of failure and never a delay: the counters live in Redis while it
 * answers within the circuit's bound, and in this instance's memory otherwise (unreachable, failing, or stalled).
 * Every request counted locally is counted in `/metrics`.
 */
function sharedOrLocalStore(
  circuit: RedisCircuit,
  redis: Redis,
  nameSpace: string,
  onLocal: () => void,
): FastifyRateLimitStoreCtor {
  class SharedOrLocal {
    constructor(
      private readonly shared: Store,
      private readonly local: Store,
    ) {}

    incr: Incr = (key, done, window, max) => {
      const countLocally = () => {
        onLocal();
        this.local.incr(key, done, window, max);
      };
      if (!circuit.usable) return countLocally();
      let settled = false;
      const deadline = setTimeout(() => {
        settled = true;
        circuit.trip(`no answer within ${circuit.timeoutMs} ms`);
        countLocally();
      }, circuit.timeoutMs);
      this.shared.incr(
        key,
        (error, result) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          if (!error) return done(null, result);
          circuit.trip(error.message);
          countLocally();
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
      log.warn(
        { cause: err.message },
        'Redis is unreachable; rate limits count in this instance until it is back',
      );
    local = true;
  });
  redis.on('ready', () => {
    if (local) log.info('Redis is back; rate limits count in Redis again');
    local = false;
  });
  return () => metrics.rateLimitFallbacks.inc();
}

/**
 * The budget a request draws from: a signed-in user has two, one for their browser sessions (all of them together,
 * of `browseMax`) and one for their API keys (all of them together, of `max`), so a bot cannot lock its owner out of
 * the web app and browsing never refuses the bot's orders; an unauthenticated request draws from its address's.
 */
const BROWSING = 'web:';

export function rateLimitKey(request: FastifyRequest): string {
  const user = request.user;
  if (!user) return `ip:${request.ip}`;
  return user.credential.kind === 'session' ? `${BROWSING}${user.userId}` : `user:${user.userId}`;
}

/** Each budget of `rateLimitKey`, per window. With Redis the counters are shared by every instance. */
export const rateLimitPlugin = fp<RateLimitOptions>(
  async (app: FastifyInstance, options) => {
    const { redis } = options;
    const circuit = redis ? new RedisCircuit(redis, options.redisTimeoutMs, app.log) : null;
    app.addHook('onClose', async () => circuit?.stop());
    app.decorate(
      'orderBudget',
      new OrderBudget(options.orders.limit, options.orders.windowMs, redis, circuit, options.keyPrefix),
    );
    await app.register(rateLimit, {
      global: false,
      // A person opening twenty markets in new tabs makes twenty cold loads of a handful of reads each: the browser
      // sessions' budget is sized for browsing, apart from what a bot's keys may send.
      max: (_request, key) => (key.startsWith(BROWSING) ? options.browseMax : options.max),
      timeWindow: options.windowMs,
      hook: 'onRequest',
      enableDraftSpec: true,
      ...(redis && circuit
        ? {
            store: sharedOrLocalStore(
              circuit,
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
    const pulls = app.rateLimit({
      max: options.pullMax,
      keyGenerator: (request) => `pulls:${rateLimitKey(request)}`,
    });
    app.addHook('onRequest', async (request, reply) => {
      const config = request.routeOptions.config;
      if (config?.rateLimit !== false) await (config?.pulls ? pulls : limit).call(app, request, reply);
      if (request.credentialCheckFailure) throw request.credentialCheckFailure;
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
