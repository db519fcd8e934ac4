import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  ordersPlaced: Counter<'kind'>;
  fills: Counter;
  jobRuns: Counter<'job' | 'outcome'>;
  jobLagSeconds: Histogram<'job'>;
  batchFailures: Counter;
  batchStepSeconds: Counter<'step'>;
  batchRequests: Counter;
  ordersRefused: Counter<'reason'>;
  rateLimitFallbacks: Counter;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    ordersPlaced: new Counter({
      name: 'exchange_orders_total',
      help: 'Orders accepted',
      labelNames: ['kind'],
      registers: [registry],
    }),
    fills: new Counter({ name: 'exchange_fills_total', help: 'Fills executed', registers: [registry] }),
    batchFailures: new Counter({
      name: 'exchange_order_batch_failures_total',
      help: 'Order batches that failed and were placed request by request',
      registers: [registry],
    }),
    batchStepSeconds: new Counter({
      name: 'exchange_order_batch_step_seconds_total',
      help:
        "Wall time of the order pipeline's transactions by step: lock (waiting for the market's lock and the batch " +
        'before), hold, decide_write (deciding, reading ahead, sending the writes), answer (making the answers and ' +
        'the announcements), announce (until every statement has answered), commit',
      labelNames: ['step'],
      registers: [registry],
    }),
    batchRequests: new Counter({
      name: 'exchange_order_batch_requests_total',
      help: "Requests taken by the order pipeline's transactions (orders, cancels, amends, conversions)",
      registers: [registry],
    }),
    ordersRefused: new Counter({
      name: 'exchange_orders_unavailable_total',
      help: 'Orders and cancels answered 503: queue_full, option_busy (lock timeout) or database',
      labelNames: ['reason'],
      registers: [registry],
    }),
    rateLimitFallbacks: new Counter({
      name: 'rate_limit_local_fallback_total',
      help: "Requests counted in this instance's memory because Redis was unreachable",
      registers: [registry],
    }),
    jobRuns: new Counter({
      name: 'jobs_runs_total',
      help: 'Background job runs',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    }),
    jobLagSeconds: new Histogram({
      name: 'jobs_lag_seconds',
      help: 'How late background work ran after it became due',
      labelNames: ['job'],
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300],
      registers: [registry],
    }),
  };
}

export const metricsPlugin = fp<{ metrics: Metrics }>(
  async (app: FastifyInstance, { metrics }) => {
    const latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [metrics.registry],
    });
    app.decorate('metrics', metrics);
    app.addHook('onResponse', async (request, reply) => {
      latency.observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unknown',
          status: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
    });
    app.get('/metrics', { config: { rateLimit: false }, schema: { hide: true } }, async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  },
  { name: 'metrics' },
);
