import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { UnauthenticatedError } from './errors.js';

export interface Metrics {
  registry: Registry;
  ordersPlaced: Counter<'kind'>;
  fills: Counter;
  jobRuns: Counter<'job' | 'outcome'>;
  jobLagSeconds: Histogram<'job'>;
  batchFailures: Counter;
  batchStepSeconds: Counter<'step'>;
  batchRequests: Counter;
  batchTransactions: Counter;
  batchMarkets: Counter;
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
    batchTransactions: new Counter({
      name: 'exchange_order_batch_transactions_total',
      help: "The order pipeline's transactions that took requests",
      registers: [registry],
    }),
    batchMarkets: new Counter({
      name: 'exchange_order_batch_markets_total',
      help: "Markets locked by the order pipeline's transactions that took requests (added up over them)",
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

/**
 * Who may read the metrics (config `metrics`): with a token, whoever sends it as a Bearer credential; without one,
 * a peer on this machine whose request no proxy forwarded (a proxy on the same host would make everyone local).
 */
export interface MetricsAccess {
  token: string | null;
  /** Served on a port of their own (`METRICS_PORT`), and so not on the service's port at all. */
  ownPort: boolean;
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function isLoopback(address: string | undefined): boolean {
  const v4 = address?.replace(/^::ffff:/i, '') ?? '';
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** Whether a request may read the metrics: 'yes', or the status that refuses it (401 asks for the token). */
export function metricsVerdict(token: string | null, request: IncomingMessage): 'yes' | 401 | 404 {
  if (token !== null) {
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    return sameSecret(given, token) ? 'yes' : 401;
  }
  const forwarded =
    request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
  return isLoopback(request.socket.remoteAddress) && !forwarded ? 'yes' : 404;
}

export const metricsPlugin = fp<{ metrics: Metrics; access: MetricsAccess }>(
  async (app: FastifyInstance, { metrics, access }) => {
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
    if (access.ownPort) return;
    app.get('/metrics', { config: { rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
      const verdict = metricsVerdict(access.token, request.raw);
      if (verdict === 401) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw new UnauthenticatedError('Metrics need Authorization: Bearer <METRICS_TOKEN>');
      }
      // As if there were no such route: nothing tells a stranger that metrics are here.
      if (verdict === 404)
        return reply
          .status(404)
          .send({ error: `No route GET ${request.url.split('?')[0]}`, code: 'NOT_FOUND' });
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  },
  { name: 'metrics' },
);

/**
 * The metrics on a port of their own (`METRICS_PORT`): `GET /metrics` only, with the token when one is set. The
 * process owns it (server.ts), as it owns the service's port.
 */
export async function startMetricsServer(
  registry: Registry,
  options: { host: string; port: number; token: string | null },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const verdict = options.token === null ? 'yes' : metricsVerdict(options.token, request);
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    } else if (verdict !== 'yes') {
      response
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' })
        .end('Metrics need Authorization: Bearer <METRICS_TOKEN>\n');
    } else {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics failed\n'),
      );
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
