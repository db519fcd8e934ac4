import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config.js';
import type { DB } from '../../platform/db/schema.js';
import type { FlagsService } from '../flags/service.js';
import { UrlGuard } from '../webhooks/url-guard.js';
import { CricketRepository } from './cricket/repository.js';
import { cricketRoutes } from './cricket/routes.js';
import { CricketService } from './cricket/service.js';
import { EventLookup } from './events.js';
import { NewsRepository } from './news/repository.js';
import { newsRoutes } from './news/routes.js';
import { NewsService } from './news/service.js';
import { paymentsRoutes } from './payments/routes.js';
import { PaymentsService } from './payments/service.js';
import { ChatCompletionsSummarizer } from './providers/ai.js';
import { HttpCricketClient } from './providers/cricket.js';
import { HttpFeedClient } from './providers/feeds.js';
import type { ProviderHttpOptions } from './providers/http.js';
import { HttpNewsSearchClient } from './providers/news-api.js';
import { EventRefsRepository } from './repository.js';
import { SponsorRepository } from './sponsor/repository.js';
import { sponsorRoutes } from './sponsor/routes.js';
import { SponsorService } from './sponsor/service.js';

export interface Integrations {
  news: NewsService;
  sponsors: SponsorService;
  cricket: CricketService;
  payments: PaymentsService;
}

/** Builds the provider clients the configuration asks for and the services on top of them. */
export function createIntegrations(deps: {
  config: Config;
  db: Kysely<DB>;
  flags: FlagsService;
  log: FastifyBaseLogger;
}): Integrations {
  const { config, db, flags, log } = deps;
  const http: ProviderHttpOptions = { timeoutMs: config.providerTimeoutMs, retries: config.providerRetries };
  const events = new EventLookup(db, new EventRefsRepository());
  const search = config.newsApiUrl
    ? new HttpNewsSearchClient({ url: config.newsApiUrl, apiKey: config.newsApiKey }, http)
    : null;
  const summarizer = config.ai
    ? new ChatCompletionsSummarizer(config.ai, { ...http, timeoutMs: config.ai.timeoutMs })
    : null;
  const cricket = config.cricketApiUrl
    ? new HttpCricketClient({ url: config.cricketApiUrl, apiKey: config.cricketApiKey }, http)
    : null;
  return {
    news: new NewsService(
      db,
      new NewsRepository(),
      events,
      { search, feeds: new HttpFeedClient(http, new UrlGuard(config.webhookAllowPrivate)), summarizer },
      flags,
      { cacheSeconds: config.newsCacheSeconds },
      log,
    ),
    sponsors: new SponsorService(db, new SponsorRepository(), events),
    cricket: new CricketService(
      db,
      new CricketRepository(),
      events,
      cricket,
      { cacheSeconds: config.cricketCacheSeconds },
      log,
    ),
    payments: new PaymentsService(flags),
  };
}

export const integrationsRoutes: FastifyPluginAsyncTypebox<{ integrations: Integrations }> = async (
  app,
  { integrations },
) => {
  await app.register(newsRoutes, { news: integrations.news });
  await app.register(sponsorRoutes, { sponsors: integrations.sponsors });
  await app.register(cricketRoutes, { cricket: integrations.cricket });
  await app.register(paymentsRoutes, { payments: integrations.payments });
};
