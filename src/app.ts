import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import { seedDemo } from './demo.js';
import { addressRoutes } from './modules/accounts/address-routes.js';
import { passkeyRoutes } from './modules/accounts/passkey-routes.js';
import { accountsRoutes } from './modules/accounts/routes.js';
import { secondFactorRoutes } from './modules/accounts/second-factor-routes.js';
import { recordSecurityEvents } from './modules/accounts/security-log.js';
import { securityLogRoutes } from './modules/accounts/security-log-routes.js';
import { recordAdminActions } from './modules/admin/action-log.js';
import { offerBootstrap } from './modules/admin/bootstrap.js';
import { operatorRoutes, SELF_RECORDING_ROUTES } from './modules/admin/operator-routes.js';
import { adminRoutes } from './modules/admin/routes.js';
import { automationRoutes } from './modules/automation/module.js';
import { competitionsRoutes } from './modules/competitions/module.js';
import { flagsRoutes } from './modules/flags/routes.js';
import { gamificationModule } from './modules/gamification/module.js';
import { healthRoutes } from './modules/health/routes.js';
import { integrationsRoutes } from './modules/integrations/module.js';
import { marketDataRoutes } from './modules/market-data/routes.js';
import { marketsRoutes } from './modules/markets/routes.js';
import { tradingStatusGuard } from './modules/markets/status-guard.js';
import { notificationsRoutes } from './modules/notifications/routes.js';
import { profileModule } from './modules/profile/module.js';
import { socialModule } from './modules/social/module.js';
import { streamReplayRoutes, streamRoutes } from './modules/stream/routes.js';
import { conversionRoutes } from './modules/trading/conversion-routes.js';
import { makerRoutes } from './modules/trading/maker-routes.js';
import { BatchOrdersBody } from './modules/trading/maker-schemas.js';
import { tradingRoutes } from './modules/trading/routes.js';
import { webApp } from './modules/web/plugin.js';
import { webhooksRoutes } from './modules/webhooks/module.js';
import { asyncapiDocument } from './openapi/asyncapi.js';
import { swaggerOptions } from './openapi/document.js';
import { authPlugin } from './platform/auth.js';
import { acceptBodylessRequests, refuseMalformedText } from './platform/bodies.js';
import type { Config } from './platform/config.js';
import { IdleConnections, trustedPeer } from './platform/connections.js';
import { bindCursors } from './platform/cursors.js';
import type { Database } from './platform/db/database.js';
import { frameworkErrors, registerErrorHandling } from './platform/error-handler.js';
import { ShuttingDownError } from './platform/errors.js';
import { carriesSecrets, ErrorBody } from './platform/http.js';
import { createMetrics, type Metrics, metricsPlugin } from './platform/metrics.js';
import { rateLimitPlugin } from './platform/rate-limit.js';
import { buildSerializer } from './platform/serialization.js';
import { installValidators } from './platform/validation.js';
import { createServices, type Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: Services['jobs'];
    /** What the composition root built (tests and tools reach services through it). */
    services: Services;
  }
}

export interface AppDependencies {
  config: Config;
  database: Database;
  redis: Redis | null;
  metrics?: Metrics;
  /** Where log lines go instead of stdout (tests capture them to check that no secret is logged). */
  logStream?: { write(line: string): void };
}

/** Longer than any request line Node reads (its header limit is 16 KiB): every parameter reaches its route. */
const MAX_PARAM_LENGTH = 16_384;

/** How long a closing server keeps reading requests already sent to it, answering them 503. */
const CLOSE_DRAIN_MS = 250;
/** The longest that pause lasts while requests keep coming in. */
const CLOSE_DRAIN_LIMIT_MS = 2_000;

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/**
 * A request as logged: the default fields, with a credential passed in the query string (the stream's
 * `?token=`, which a browser's WebSocket cannot send as a header) masked like the Authorization header.
 */
function loggedRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]'),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config, database } = deps;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { req: loggedRequest },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    genReqId: () => randomUUID(),
    requestIdHeader: 'x-request-id',
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // A path with a trailing slash is the path without; a long path parameter reaches its route, whose schema
    // answers 400 in the documented shape (no parameter can be longer than the request line Node accepts).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    // Answered by the hook below instead, in the documented shape, with Retry-After and the rate-limit headers.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidators(app);
  acceptBodylessRequests(app);
  refuseMalformedText(app);
  bindCursors(app);
  // JSON only (multipart where a route says so): any other body type is a 415, not a confusing 400.
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  // While closing, every request but a probe is answered 503 SHUTTING_DOWN with Retry-After (in a hook after the rate
  // limit's, below; /readyz says it is shutting down, so a load balancer sends new requests elsewhere). Closing reaps only the keep-alive connections
  // idle at that moment; a response finished afterwards tells its client to hang up, or its connection would hold
  // the shutdown open until the keep-alive timeout. Before the reaping, a short pause lets the server read requests
  // already sent on idle connections and answer them 503 (which a client can safely retry) instead of resetting them
  // unread (which leaves a POST in doubt). The pause lasts until no request has come in for CLOSE_DRAIN_MS (at most
  // CLOSE_DRAIN_LIMIT_MS, which bounds the shutdown under steady load), so that a busy event loop that has not yet
  // read what was sent gets to it first. The server goes on accepting connections during the pause: closing the
  // listening socket would reset, unanswered, the connections still waiting to be accepted.
  let closing = false;
  let lastRequestAt = 0;
  // Every request the HTTP server reads, including those answered 503 while closing.
  app.server.on('request', () => {
    lastRequestAt = Date.now();
  });
  app.addHook('preClose', async () => {
    closing = true;
    if (app.server.listening) {
      const limit = Date.now() + CLOSE_DRAIN_LIMIT_MS;
      do {
        await new Promise((resolve) => setTimeout(resolve, CLOSE_DRAIN_MS));
        // One more turn of the event loop, so sockets with data waiting are read even after a long blocking task.
        await new Promise((resolve) => setImmediate(resolve));
      } while (Date.now() - lastRequestAt < CLOSE_DRAIN_MS && Date.now() < limit);
    }
  });
  // One address keeps at most HTTP_MAX_IDLE_CONNECTIONS_PER_ADDRESS keep-alive connections idle; past that, an
  // answer closes its connection (a trusted proxy's address excepted: it carries everyone's requests).
  const idle = new IdleConnections(
    app.server,
    config.connections.idlePerAddress,
    trustedPeer(config.trustProxy),
  );
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (carriesSecrets(request) && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
    if (closing || idle.closeAfterResponse(request.raw.socket)) reply.header('connection', 'close');
  });

  // Infrastructure first, then the areas of the product.
  // Security headers on every response, built once (helmet's middleware, created here and reused).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        connectSrc: ["'self'"],
        // Off: over plain http (a LAN address, no TLS proxy) it would send the web app's own files to https.
        upgradeInsecureRequests: null,
      },
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
  await app.register(
    swagger,
    swaggerOptions(config.publicUrl, {
      PlaceLimitOrderBatchRequest: BatchOrdersBody(config.maxBatchOrders),
    }),
  );
  app.addSchema(ErrorBody);
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  const asyncapi = asyncapiDocument(config.publicUrl);
  app.get('/api/asyncapi.json', { schema: { hide: true } }, async () => asyncapi);

  const metrics = deps.metrics ?? createMetrics();
  await app.register(metricsPlugin, {
    metrics,
    access: { token: config.metrics.token, ownPort: config.metrics.port !== null },
  });
  const services = await createServices({ config, database, log: app.log, metrics });
  // Secrets stored plain (before sealing) or under a key rotated out (webhook signing secrets, TOTP secrets) are
  // sealed with the current key; one sealed with a key the service lacks stops the start, before anything changes,
  // rather than deliveries or sign-ins failing later.
  const resealed = await services.secrets.sealStored();
  if (resealed.sealed + resealed.resealed > 0)
    app.log.info(resealed, 'sealed the stored secrets with the current key');
  const { accounts, notifications, trading, tradingReads, markets, stream, marketReads, jobs } = services;
  app.decorate('jobs', jobs);
  app.decorate('services', services);
  app.addHook('onReady', () => services.listen());
  app.addHook('onClose', () => services.stopListening());
  app.addHook('onSend', async (request) => marketReads.afterResponse(request.method));
  const { gamification, profile, social, competitions, flags, integrations, webhooks, automation } = services;
  if (config.seedDemo && database.kind === 'pglite' && (await markets.catalogue.isEmpty())) {
    const loaded = await seedDemo({
      markets: markets.editing,
      accounts,
      discussion: social.discussion,
      tournaments: competitions.tournaments,
    });
    app.log.info({ events: loaded }, 'loaded the demo catalogue, its traders, posts and tournament');
  }

  await app.register(authPlugin, {
    resolve: (token, address) => accounts.resolveCredential(token, address),
    verifyingAddresses: services.emailLinks.verifying,
  });
  await app.register(rateLimitPlugin, {
    max: config.rateLimitMax,
    windowMs: config.rateLimitWindowMs,
    redis: deps.redis,
    redisTimeoutMs: config.redisTimeoutMs,
    keyPrefix: config.redisKeyPrefix,
    metrics,
    orders: { limit: config.orderRateLimit, windowMs: config.orderRateWindowMs },
    pullMax: config.rateLimitPullMax,
    browseMax: config.rateLimitBrowseMax,
  });
  // While closing, every request but the probes is answered 503 SHUTTING_DOWN (counted, with the rate-limit headers).
  app.addHook('onRequest', async (request) => {
    if (closing && (request.routeOptions.config as { rateLimit?: unknown }).rateLimit !== false) {
      throw new ShuttingDownError();
    }
  });
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (request, reply) =>
    reply
      .status(404)
      .send({ error: `No route ${request.method} ${request.url.split('?')[0]}`, code: 'NOT_FOUND' }),
  );

  // Sign-ins, sessions, keys, factors and throttling land in the account's security log.
  recordSecurityEvents(app, services.securityLog);

  // Every change an operator makes through an admin route lands in the admin audit log.
  recordAdminActions(app, (entry) => services.operators.record(entry), SELF_RECORDING_ROUTES);
  app.addHook('onReady', () =>
    offerBootstrap(app, services.operators, config.adminBootstrapToken, config.adminEmailIgnored),
  );

  // Orders, amends and conversions are held to the trading status operators set (maintenance, post-only).
  app.addHook('preHandler', tradingStatusGuard(markets.status));

  await app.register(healthRoutes, { database, closing: () => closing });
  await app.register(accountsRoutes, { accounts, links: services.emailLinks });
  await app.register(addressRoutes, { accounts, links: services.emailLinks });
  await app.register(secondFactorRoutes, { accounts, factors: services.secondFactors });
  await app.register(passkeyRoutes, {
    accounts,
    factors: services.secondFactors,
    passkeys: services.passkeys,
  });
  await app.register(securityLogRoutes, { log: services.securityLog });
  await app.register(notificationsRoutes, { notifications });
  await app.register(marketsRoutes, { markets, reads: marketReads });
  await app.register(tradingRoutes, { trading, reads: tradingReads, markets: markets.catalogue });
  await app.register(conversionRoutes, {
    trading,
    reads: tradingReads,
    maxQuantity: config.maxOrderQuantity,
  });
  await app.register(makerRoutes, {
    trading,
    heartbeats: services.heartbeats,
    markets: markets.catalogue,
    maxBatchOrders: config.maxBatchOrders,
  });
  await app.register(marketDataRoutes, {
    data: services.marketData,
    quotes: services.marketQuotes,
    reads: marketReads,
  });
  await app.register(adminRoutes, { markets, audit: services.audit });
  await app.register(operatorRoutes, { operators: services.operators });
  await app.register(streamRoutes, {
    stream,
    maxConnectionsPerAddress: config.connections.streamPerAddress,
    resolve: (token, address) => accounts.resolveCredential(token, address),
  });
  await app.register(streamReplayRoutes, { window: stream.window });
  await app.register(gamificationModule, { gamification });
  await app.register(profileModule, { profile });
  await app.register(socialModule, { social });
  await app.register(competitionsRoutes, competitions);
  await app.register(flagsRoutes, { flags });
  await app.register(integrationsRoutes, { integrations });
  await app.register(webhooksRoutes, { webhooks: webhooks.service });
  await app.register(automationRoutes, automation);

  // Last: the web app's catch-all page route answers only what no API route claims.
  await app.register(webApp, {});

  if (config.jobsEnabled) {
    app.addHook('onReady', async () => jobs.start(config.jobIntervalMs));
  }
  // The jobs stop first; then whatever they or the requests left in the order pipeline is answered before the
  // database closes (a graceful stop answers every request it took).
  app.addHook('onClose', async () => {
    await jobs.stop();
    await trading.drain();
  });
  return app;
}
