/**
 * The open markets, as the home page reads them: one read that also gives the categories and the featured row,
 * and that other screens (the watchlist, a new challenge) reuse instead of asking again.
 */
export const OPEN_MARKETS = { params: { query: { status: 'open', limit: 200 } } } as const;
