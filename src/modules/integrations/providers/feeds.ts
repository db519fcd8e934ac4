import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Agent } from 'undici';
import type { UrlGuard } from '../../webhooks/url-guard.js';
import { isRecord, type NewsArticle, plainText, toArticle } from './articles.js';
import { fetchProviderText, malformed, ProviderFailure, type ProviderHttpOptions } from './http.js';

/** Reads one RSS or Atom feed. */
export interface FeedReader {
  read(url: string): Promise<NewsArticle[]>;
}

/**
 * Feed URLs are typed in by operators, so they are held to the webhooks' address rules: checked before the call
 * (loopback, private, link-local and metadata addresses refused, IPv6 forms of them included), connected only to the
 * addresses checked, and never followed through a redirect.
 */
export class HttpFeedClient implements FeedReader {
  private readonly http: ProviderHttpOptions;

  constructor(
    http: ProviderHttpOptions,
    private readonly guard: UrlGuard,
  ) {
    const lookup = guard.connectLookup();
    this.http = lookup ? { ...http, guarded: new Agent({ connect: { lookup } }) } : http;
  }

  async read(url: string): Promise<NewsArticle[]> {
    const problem = await this.guard.problemWith(url);
    // The reason names the address; the report is public, so it stays in the operator's hands (the URL is theirs).
    if (problem) throw new ProviderFailure('error', 'refused: the feed is not on a public address');
    const xml = await fetchProviderText(
      {
        url,
        accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
      },
      this.http,
    );
    return parseFeed(xml);
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // dc:date, atom:link and friends are read by their local names.
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'item' || name === 'entry' || name === 'link',
});

/** RSS 2.0, RSS 1.0 (RDF) and Atom 1.0; anything else is a malformed answer. */
export function parseFeed(xml: string): NewsArticle[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw malformed(`not XML (${valid.err.msg}, line ${valid.err.line})`);
  const document: unknown = parser.parse(xml);
  if (!isRecord(document)) throw malformed('not a feed');
  if (isRecord(document.rss)) return parseRss(document.rss.channel, document.rss.channel);
  if (isRecord(document.RDF)) return parseRss(document.RDF.channel, document.RDF);
  if (isRecord(document.feed)) return parseAtom(document.feed);
  throw malformed('neither RSS nor Atom');
}

function parseRss(channel: unknown, itemsParent: unknown): NewsArticle[] {
  const feedTitle = isRecord(channel) ? text(channel.title) : null;
  const items = isRecord(itemsParent) && Array.isArray(itemsParent.item) ? itemsParent.item : [];
  const articles: NewsArticle[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    const article = toArticle({
      title: text(item.title),
      url: Array.isArray(item.link) ? text(item.link[0]) : text(item.link),
      source: text(item.source) ?? feedTitle,
      publishedAt: text(item.pubDate) ?? text(item.date),
    });
    if (article) articles.push(article);
  }
  return articles;
}

function parseAtom(feed: Record<string, unknown>): NewsArticle[] {
  const feedTitle = text(feed.title);
  const entries = Array.isArray(feed.entry) ? feed.entry : [];
  const articles: NewsArticle[] = [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const source = isRecord(entry.source) ? text(entry.source.title) : null;
    const article = toArticle({
      title: text(entry.title),
      url: atomLink(entry.link),
      source: source ?? feedTitle,
      publishedAt: text(entry.published) ?? text(entry.updated),
    });
    if (article) articles.push(article);
  }
  return articles;
}

/** The entry's alternate link (a link without rel is alternate). */
function atomLink(links: unknown): string | null {
  if (!Array.isArray(links)) return null;
  let fallback: string | null = null;
  for (const link of links) {
    if (!isRecord(link) || typeof link['@_href'] !== 'string') continue;
    const rel = link['@_rel'];
    if (rel === undefined || rel === 'alternate') return link['@_href'];
    fallback ??= link['@_href'];
  }
  return fallback;
}

/** Element text whether the element carried attributes or not. */
function text(node: unknown): string | null {
  if (typeof node === 'string') return plainText(node, 10_000);
  if (isRecord(node)) return text(node['#text']);
  return null;
}
