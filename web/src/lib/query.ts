import { QueryClient, type QueryKey } from '@tanstack/react-query';

/**
 * The app's one cache of API reads (TanStack Query). A read is shared by every component that asks for it, sent
 * once however many ask at the same moment, and answered from memory while it is fresh, so a page view costs only
 * the reads it has not made lately. What changes while a page is open arrives on the stream, which updates or
 * invalidates these entries; nothing is polled.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      gcTime: 5 * 60_000,
      // A 429 is waited out in the fetch itself; other failures are shown with a retry button.
      retry: false,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
    },
  },
});

/**
 * How long a read stays fresh, by path: market data that the stream does not carry whole (the list's prices, the
 * chart's history) is read again sooner; what the stream keeps up to date, or what rarely changes, later.
 */
const FRESH_MS: Record<string, number> = {
  '/api/events': 15_000,
  '/api/events/{slug}': 10_000,
  '/api/leaderboard': 60_000,
  '/api/trending-users': 60_000,
  '/api/users/{username}': 60_000,
  '/api/me/badges': 60_000,
  '/api/me/xp': 60_000,
  '/api/me/streak': 60_000,
  '/api/me/preferences': 5 * 60_000,
  '/api/me/referral': 5 * 60_000,
  '/api/flags': 5 * 60_000,
  '/api/events/by-slug/{slug}/news': 5 * 60_000,
  '/api/events/by-slug/{slug}/sponsor': 5 * 60_000,
  '/api/watchlist': 5 * 60_000,
  '/api/me/notifications': 5 * 60_000,
  '/api/positions': 60_000,
  '/api/limit-orders': 60_000,
  '/api/trades': 60_000,
  '/api/me/settlements': 60_000,
  '/api/me/fills': 60_000,
  '/api/me/portfolio-history': 60_000,
  // Kept up to date by the stream while their market's page is open, and marked stale when it closes.
  '/api/options/{optionId}/candles': 5 * 60_000,
  '/api/events/by-slug/{slug}/trades': 5 * 60_000,
};

export function freshMs(path: string): number {
  return FRESH_MS[path] ?? 30_000;
}

/** The cache key of a read: its path template and its parameters. */
export function apiKey(path: string, params?: unknown): QueryKey {
  return [path, params ?? null];
}

/** Marks every read of these paths stale; those on screen are read again at once, the others when next shown. */
export function invalidate(...paths: string[]): void {
  for (const path of paths) void queryClient.invalidateQueries({ queryKey: [path] });
}

/** Whether some component on screen reads this path now. */
export function isShown(path: string): boolean {
  return queryClient
    .getQueryCache()
    .findAll({ queryKey: [path] })
    .some((query) => query.getObserversCount() > 0);
}
