import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { ConflictError, NotFoundError } from '../../../platform/errors.js';
import type { FlagsService } from '../../flags/service.js';
import { type CachedAnswer, ProviderCache } from '../cache.js';
import type { EventLookup } from '../events.js';
import type { NewsSummarizer } from '../providers/ai.js';
import type { NewsArticle } from '../providers/articles.js';
import type { FeedReader } from '../providers/feeds.js';
import type { NewsSearchProvider } from '../providers/news-api.js';
import type { NewsItemRow, NewsRepository, NewsSourcesRow } from './repository.js';

export const MAX_NEWS_ITEMS = 30;
export const MAX_ADMIN_ITEMS = 20;
export const MAX_FEEDS = 10;
const STALE_NEWS_MS = 24 * 3_600_000;

export type ItemOrigin = 'feed' | 'api' | 'admin';

export interface NewsItem {
  id?: string;
  title: string;
  source: string;
  url: string;
  publishedAt: string | null;
  origin: ItemOrigin;
}

export interface ProviderReport {
  name: string;
  status: 'ok' | 'cached' | 'timeout' | 'error' | 'not_configured';
  message?: string;
  fetchedAt: string | null;
}

export interface NewsProviders {
  search: NewsSearchProvider | null;
  feeds: FeedReader;
  summarizer: NewsSummarizer | null;
}

interface Candidate {
  article: NewsArticle;
  origin: ItemOrigin;
  id?: string;
}

/**
 * Market news: admin-attached items plus whatever the configured providers return, with an AI summary.
 * Providers are asked in parallel with a deadline each; a slow or broken one is reported, never fatal.
 */
export class NewsService {
  private readonly searches: ProviderCache<NewsArticle[]>;
  private readonly feeds: ProviderCache<NewsArticle[]>;
  private readonly summaries: ProviderCache<string>;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly news: NewsRepository,
    private readonly events: EventLookup,
    private readonly providers: NewsProviders,
    private readonly flags: FlagsService,
    options: { cacheSeconds: number },
    private readonly log: FastifyBaseLogger,
  ) {
    const cache = {
      ttlMs: options.cacheSeconds * 1000,
      maxStaleMs: STALE_NEWS_MS,
      onUnexpected: (err: unknown) => this.log.error({ err }, 'news provider failed unexpectedly'),
    };
    this.searches = new ProviderCache(cache);
    this.feeds = new ProviderCache(cache);
    this.summaries = new ProviderCache({ ...cache, maxStaleMs: 0 });
  }

  async forEvent(slug: string) {
    const event = await this.events.publicBySlug(slug);
    const sources = await this.news.sources(this.db, event.id);
    const adminRows = await this.news.items(this.db, event.id);
    const query = sources?.search_query ?? event.title;
    const feedUrls = sources?.feed_urls ?? [];
    const search = this.providers.search;
    const [searchAnswer, ...feedAnswers] = await Promise.all([
      search ? this.searches.get(query, () => search.search(query)) : Promise.resolve(null),
      ...feedUrls.map((url) => this.feeds.get(url, () => this.providers.feeds.read(url))),
    ]);

    const reports: ProviderReport[] = [
      searchAnswer
        ? report('newsApi', searchAnswer)
        : { name: 'newsApi', status: 'not_configured', fetchedAt: null },
      ...feedAnswers.map((answer, index) => report(`feed:${index + 1}`, answer)),
    ];
    const items = mergeItems([
      ...adminRows.map(fromAdminRow),
      ...feedAnswers
        .flatMap((answer) => answer.value ?? [])
        .map((article): Candidate => ({ article, origin: 'feed' })),
      ...(searchAnswer?.value ?? []).map((article): Candidate => ({ article, origin: 'api' })),
    ]);
    const summary = await this.summarize(event.title, items);
    reports.push(summary.report);
    return { items, summary: summary.text, providers: reports, fetchedAt: new Date().toISOString() };
  }

  async sources(eventId: number) {
    await this.events.byId(eventId);
    return toSources(eventId, await this.news.sources(this.db, eventId));
  }

  async setSources(eventId: number, input: { feeds: string[]; query?: string | null | undefined }) {
    await this.events.byId(eventId);
    const feeds = [...new Set(input.feeds.map((url) => new URL(url).toString()))];
    const query = input.query?.trim() || null;
    return toSources(eventId, await this.news.saveSources(this.db, eventId, feeds, query));
  }

  async attach(
    eventId: number,
    userId: number,
    input: { title: string; url: string; source: string; publishedAt?: string | undefined },
  ): Promise<NewsItem> {
    await this.events.byId(eventId);
    if ((await this.news.countItems(this.db, eventId)) >= MAX_ADMIN_ITEMS) {
      throw new ConflictError(
        'TOO_MANY_NEWS_ITEMS',
        `An event holds at most ${MAX_ADMIN_ITEMS} attached items`,
      );
    }
    const row = await this.news.insertItem(this.db, {
      eventId,
      title: input.title.trim(),
      url: new URL(input.url).toString(),
      source: input.source.trim(),
      publishedAt: input.publishedAt ? new Date(input.publishedAt) : null,
      createdBy: userId,
    });
    if (!row) throw new ConflictError('NEWS_ITEM_EXISTS', 'This event already has an item with that URL');
    return toItem(fromAdminRow(row));
  }

  async detach(eventId: number, itemId: number): Promise<void> {
    await this.events.byId(eventId);
    if (!(await this.news.deleteItem(this.db, eventId, itemId))) throw new NotFoundError('News item');
  }

  private async summarize(eventTitle: string, items: NewsItem[]) {
    const name = 'aiSummary';
    const summarizer = this.providers.summarizer;
    const none = (status: ProviderReport['status'], message?: string) => ({
      text: null,
      report: { name, status, fetchedAt: null, ...(message ? { message } : {}) },
    });
    if (!summarizer) return none('not_configured');
    if (!(await this.flags.isEnabled('newsSummary'))) {
      return none('not_configured', 'switched off by the newsSummary flag');
    }
    if (items.length === 0) return none('ok', 'no news to summarise');

    const hash = itemsHash(summarizer.model, items);
    const stored = await this.news.summary(this.db, hash);
    if (stored) {
      return {
        text: stored.summary,
        report: { name, status: 'cached' as const, fetchedAt: stored.created_at.toISOString() },
      };
    }
    const answer = await this.summaries.get(hash, async () => {
      const articles = items.map((item) => ({
        ...item,
        publishedAt: item.publishedAt ? new Date(item.publishedAt) : null,
      }));
      const text = await summarizer.summarize({ eventTitle, items: articles });
      await this.news.saveSummary(this.db, hash, text, summarizer.model);
      return text;
    });
    return {
      text: answer.status === 'ok' || answer.status === 'cached' ? answer.value : null,
      report: report(name, answer),
    };
  }
}

/** The same set of items (in any order) under the same model gets the same summary. */
export function itemsHash(model: string, items: NewsItem[]): string {
  const keys = items.map((item) => `${item.url}\n${item.title}`).sort();
  return createHash('sha256')
    .update(JSON.stringify([model, keys]))
    .digest('hex');
}

/**
 * Admin items always appear; provider items fill the rest of the list, newest first. One item per URL,
 * the first candidate winning (admin, then feeds, then the search API).
 */
function mergeItems(candidates: Candidate[]): NewsItem[] {
  const seen = new Set<string>();
  const unique = candidates.filter((candidate) => {
    if (seen.has(candidate.article.url)) return false;
    seen.add(candidate.article.url);
    return true;
  });
  const admin = unique.filter((candidate) => candidate.origin === 'admin');
  const others = unique.filter((candidate) => candidate.origin !== 'admin').sort(newestFirst);
  return [...admin, ...others.slice(0, Math.max(0, MAX_NEWS_ITEMS - admin.length))]
    .sort(newestFirst)
    .map(toItem);
}

function newestFirst(a: Candidate, b: Candidate): number {
  const at = a.article.publishedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const bt = b.article.publishedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  return at === bt ? 0 : bt > at ? 1 : -1;
}

function toItem(candidate: Candidate): NewsItem {
  const { article } = candidate;
  return {
    ...(candidate.id ? { id: candidate.id } : {}),
    title: article.title,
    source: article.source,
    url: article.url,
    publishedAt: article.publishedAt ? article.publishedAt.toISOString() : null,
    origin: candidate.origin,
  };
}

function fromAdminRow(row: NewsItemRow): Candidate {
  return {
    id: String(row.id),
    origin: 'admin',
    article: { title: row.title, url: row.url, source: row.source, publishedAt: row.published_at },
  };
}

function report(name: string, answer: CachedAnswer<unknown>): ProviderReport {
  return {
    name,
    status: answer.status,
    fetchedAt: answer.fetchedAt ? answer.fetchedAt.toISOString() : null,
    ...(answer.message ? { message: answer.message } : {}),
  };
}

function toSources(eventId: number, row: NewsSourcesRow | undefined) {
  return {
    eventId: String(eventId),
    feeds: row?.feed_urls ?? [],
    query: row?.search_query ?? null,
    updatedAt: row ? row.updated_at.toISOString() : null,
  };
}
