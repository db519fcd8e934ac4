import { isRecord, type NewsArticle, toArticle } from './articles.js';
import { fetchProviderJson, malformed, type ProviderHttpOptions } from './http.js';

/** A search-style news API: free text in, recent articles out. */
export interface NewsSearchProvider {
  search(query: string): Promise<NewsArticle[]>;
}

/**
 * `GET <NEWS_API_URL>?q=<query>` with the key in `X-Api-Key`, answering
 * `{"articles": [{"title", "url", "source": {"name"} | "name", "publishedAt"}]}` (the NewsAPI.org shape,
 * which several other services share). Articles without a title or an http(s) link are skipped.
 */
export class HttpNewsSearchClient implements NewsSearchProvider {
  constructor(
    private readonly endpoint: { url: string; apiKey: string | null },
    private readonly http: ProviderHttpOptions,
  ) {}

  async search(query: string): Promise<NewsArticle[]> {
    const url = new URL(this.endpoint.url);
    url.searchParams.set('q', query);
    const body = await fetchProviderJson(
      {
        url: url.toString(),
        accept: 'application/json',
        headers: this.endpoint.apiKey ? { 'x-api-key': this.endpoint.apiKey } : {},
      },
      this.http,
    );
    return parseNewsSearch(body);
  }
}

export function parseNewsSearch(body: unknown): NewsArticle[] {
  if (!isRecord(body) || !Array.isArray(body.articles)) throw malformed('expected {"articles": [...]}');
  const articles: NewsArticle[] = [];
  for (const raw of body.articles) {
    if (!isRecord(raw)) continue;
    const article = toArticle({
      title: raw.title,
      url: raw.url,
      source: isRecord(raw.source) ? raw.source.name : raw.source,
      publishedAt: raw.publishedAt,
    });
    if (article) articles.push(article);
  }
  return articles;
}
