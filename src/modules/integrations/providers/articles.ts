/** A news item as every news provider reports it, after clean-up. */
export interface NewsArticle {
  title: string;
  source: string;
  url: string;
  publishedAt: Date | null;
}

const MAX_TITLE = 300;
const MAX_SOURCE = 100;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Only http(s) links are passed on to clients, so a feed cannot smuggle in javascript: or data: URLs. */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

export function dateOrNull(value: unknown): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** Feeds often carry HTML-escaped titles (inside CDATA, where XML leaves them alone). */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#')) {
      const code = lower.startsWith('#x') ? Number.parseInt(lower.slice(2), 16) : Number(lower.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[lower] ?? entity;
  });
}

/** Titles come from third parties: markup is dropped, entities decoded and whitespace collapsed. */
export function plainText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const text = decodeEntities(value.replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return null;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Builds an article from loosely typed provider fields; null when it lacks a title or a usable link. */
export function toArticle(fields: {
  title: unknown;
  url: unknown;
  source: unknown;
  publishedAt: unknown;
}): NewsArticle | null {
  const title = plainText(fields.title, MAX_TITLE);
  const url = httpUrl(fields.url);
  if (title === null || url === null) return null;
  return {
    title,
    url,
    source: plainText(fields.source, MAX_SOURCE) ?? new URL(url).hostname,
    publishedAt: dateOrNull(fields.publishedAt),
  };
}
