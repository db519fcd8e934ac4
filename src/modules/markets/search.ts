import { sql } from 'kysely';

/** The most words of a search that are matched as the starts of words. */
const PREFIX_WORDS_MAX = 8;

/**
 * The query's words as starts of words (`infl & rat` → `infl:* & rat:*`), or null when the search uses the web-search
 * syntax (a "phrase", an -excluded word, `or`), which only the whole-word search reads. Only letters and digits
 * reach `to_tsquery`, so no search can be a syntax error.
 */
export function prefixQuery(q: string): string | null {
  if (/"|(^|\s)-|\bor\b/i.test(q)) return null;
  const words = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, PREFIX_WORDS_MAX);
  return words.length === 0 ? null : words.map((word) => `${word}:*`).join(' & ');
}

/**
 * A market matches a search by whole words, stemmed ("elections" finds "Election"), or by the starts of its words
 * as typed ("infl" finds "Inflation"); both are read from GIN indexes.
 */
export function searchMatches(q: string) {
  const prefixes = prefixQuery(q);
  const words = sql<boolean>`search @@ websearch_to_tsquery('english', ${q})`;
  return prefixes === null
    ? words
    : sql<boolean>`(${words} OR search_words @@ to_tsquery('simple', ${prefixes}))`;
}
