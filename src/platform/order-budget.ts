import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { AppError, toErrorResponse, ValidationError } from './errors.js';

/** A user placed more orders in the window than their order budget allows; nothing of this request was placed. */
export class OrderRateLimitedError extends AppError {
  constructor(limit: number, windowMs: number, retryAfterSeconds: number) {
    super(
      429,
      'ORDER_RATE_LIMITED',
      `Order budget used up: at most ${limit} orders per ${windowMs / 1000} s; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds, limit, windowMs },
    );
  }
}

/** Whether Redis may be asked now, and how to give up on it (the rate limit's circuit). */
export interface RedisGate {
  readonly usable: boolean;
  readonly timeoutMs: number;
  trip(why: string): void;
}

/**
 * Takes `n` from a counter unless that would pass `max` (taking nothing always passes); answers [count, ms left in
 * the window, taken 0|1].
 */
const TAKE = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = tonumber(ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if n > 0 and current + n > tonumber(ARGV[2]) then
  if ttl < 0 then ttl = tonumber(ARGV[3]) end
  return {current, ttl, 0}
end
local after = redis.call('INCRBY', KEYS[1], n)
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return {after, ttl, 1}`;

/** Gives `n` back to a counter still in its window, never below 0. */
const GIVE_BACK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local after = redis.call('DECRBY', KEYS[1], tonumber(ARGV[1]))
if after < 0 then redis.call('INCRBY', KEYS[1], -after) end
return 1`;

interface Window {
  count: number;
  resetAt: number;
}

/**
 * The per-user order budget, beside the request budget: a batch is one request but carries many orders, so the
 * orders a user places (single orders, the orders of a batch, amends) are counted here too, per fixed window. A
 * request that would pass the budget is refused whole (429 ORDER_RATE_LIMITED, Retry-After) and takes nothing from
 * it; cancels never draw on it, so pulling quotes always works. Counted in Redis, shared by every instance, while it
 * answers within the circuit's bound; otherwise in this instance's memory, like the request budget.
 */
export class OrderBudget {
  private readonly local: LRUCache<string, Window>;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly redis: Redis | null,
    private readonly gate: RedisGate | null,
    private readonly keyPrefix: string,
  ) {
    this.local = new LRUCache({ max: 100_000 });
  }

  /**
   * Takes `orders` from the user's budget and sets the Order-RateLimit headers on the reply; throws the 429 when the
   * budget cannot cover them (or a 400 when no window ever could).
   */
  async take(userId: number, orders: number, reply: FastifyReply): Promise<void> {
    if (orders > this.limit)
      throw new ValidationError(`This request carries ${orders} orders; the order budget is ${this.limit}`, [
        { field: 'body', message: `at most ${this.limit} orders per ${this.windowMs / 1000} s` },
      ]);
    const key = `${this.keyPrefix}orders:${userId}`;
    const { count, resetMs, taken } = (await this.takeShared(key, orders)) ?? this.takeLocal(key, orders);
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    reply.header('order-ratelimit-limit', this.limit);
    reply.header('order-ratelimit-remaining', Math.max(0, this.limit - count));
    reply.header('order-ratelimit-reset', resetSeconds);
    if (!taken) {
      reply.header('retry-after', resetSeconds);
      throw new OrderRateLimitedError(this.limit, this.windowMs, resetSeconds);
    }
  }

  /**
   * Gives back what orders refused for a passing fault (503: nothing placed, retry) took from the budget, so that a
   * retry never pays twice; the Order-RateLimit-Remaining header grows by as much.
   */
  async giveBack(userId: number, orders: number, reply: FastifyReply): Promise<void> {
    if (orders <= 0) return;
    const key = `${this.keyPrefix}orders:${userId}`;
    if (this.redis && this.gate?.usable) {
      await this.withinBound(this.redis.eval(GIVE_BACK, 1, key, orders) as Promise<number>);
    } else {
      const window = this.local.get(key);
      if (window) window.count = Math.max(0, window.count - orders);
    }
    const remaining = Number(reply.getHeader('order-ratelimit-remaining'));
    if (Number.isFinite(remaining))
      reply.header('order-ratelimit-remaining', Math.min(this.limit, remaining + orders));
  }

  private async withinBound<T>(reply: Promise<T>): Promise<T | null> {
    const gate = this.gate as RedisGate;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), gate.timeoutMs);
    });
    try {
      const answer = await Promise.race([reply, late]);
      if (answer === null) gate.trip(`no answer within ${gate.timeoutMs} ms`);
      return answer;
    } catch (error) {
      gate.trip((error as Error).message);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  private async takeShared(key: string, orders: number) {
    if (!this.redis || !this.gate?.usable) return null;
    const answer = await this.withinBound(
      this.redis.eval(TAKE, 1, key, orders, this.limit, this.windowMs) as Promise<[number, number, number]>,
    );
    return answer && { count: Number(answer[0]), resetMs: Number(answer[1]), taken: answer[2] === 1 };
  }

  private takeLocal(key: string, orders: number) {
    const now = Date.now();
    let window = this.local.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.windowMs };
      this.local.set(key, window);
    }
    const taken = orders === 0 || window.count + orders <= this.limit;
    if (taken) window.count += orders;
    return { count: window.count, resetMs: window.resetAt - now, taken };
  }
}

/**
 * What one request takes from a user's order budget, and giving back the part that orders refused with 503 took
 * (never more than it took: a replay or a refusal before the charge took nothing).
 */
export function orderCharge(budget: OrderBudget, userId: number, reply: FastifyReply) {
  let taken = 0;
  return {
    charge: async (orders: number): Promise<void> => {
      await budget.take(userId, orders, reply);
      taken += orders;
    },
    giveBack: async (orders: number): Promise<void> => {
      const given = Math.min(taken, orders);
      taken -= given;
      await budget.giveBack(userId, given, reply);
    },
  };
}

/** Runs one order's request; when it is refused with 503 (nothing placed), gives back what it took from the budget. */
export async function givingBackOn503<T>(
  budget: ReturnType<typeof orderCharge>,
  place: () => Promise<T>,
): Promise<T> {
  try {
    return await place();
  } catch (error) {
    if (toErrorResponse(error).status === 503) await budget.giveBack(1);
    throw error;
  }
}
