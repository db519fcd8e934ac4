import type { InfiniteData } from '@tanstack/react-query';
import { queryClient } from './query';

interface TitledRow {
  eventSlug: string;
  eventTitle?: string;
}
type Rows = { data?: TitledRow[] } | InfiniteData<{ data: TitledRow[] }> | undefined;

/** The rows of a cached read, plain (`{data}`) or paged (`{pages}`). */
function rowsOf(cached: Rows): TitledRow[] {
  if (!cached) return [];
  if ('pages' in cached) return cached.pages.flatMap((page) => page.data);
  return cached.data ?? [];
}

/**
 * The titles of the markets this visit has read already, by slug: the portfolio (positions held or sold, and
 * resolved), the settlements and the trade lists name each market. A fill names its market by slug only, and
 * these cost no read.
 */
export function knownMarketTitles(): Map<string, string> {
  const titles = new Map<string, string>();
  for (const path of ['/api/positions', '/api/me/settlements', '/api/trades']) {
    for (const [, cached] of queryClient.getQueriesData<Rows>({ queryKey: [path] })) {
      for (const row of rowsOf(cached)) if (row.eventTitle) titles.set(row.eventSlug, row.eventTitle);
    }
  }
  return titles;
}
