import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { RateLimitedError } from './errors.js';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  redis: Redis | null;
  keyPrefix: string;
}

/**
 * One budget per signed-in user (whatever key or session they use) and per address otherwise.
 * With Redis the counters are shared, so every instance draws from the same budget.
 */
export const rateLimitPlugin = fp<RateLimitOptions>(
  async (app: FastifyInstance, options) => {
    await app.register(rateLimit, {
      global: true,
      max: options.max,
      timeWindow: options.windowMs,
      hook: 'onRequest',
      enableDraftSpec: true,
      ...(options.redis ? { redis: options.redis, nameSpace: `${options.keyPrefix}ratelimit:` } : {}),
      keyGenerator: (request) => (request.user ? `user:${request.user.userId}` : `ip:${request.ip}`),
      errorResponseBuilder: (_request, context) => new RateLimitedError(Math.ceil(context.ttl / 1000)),
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
