import type { Query } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { StreamTrade } from '../api/live';
import { stream } from '../api/stream';
import { type CandleInterval, withTrades } from './candles';
import { type GetAnswer, type GetInit, pagedKeyOf, setPagedItems } from './hooks';
import { queryClient } from './query';

/**
 * A market's candles and public tape as the cache holds them, kept in step with the stream while its page is open:
 * every trade heard on a `trades:` channel goes into the cached candles of its option and the market's tape, so
 * neither is read again for it. What the stream may have missed (a resync, a lost connection, the page closed)
 * marks them stale, and they are read again when next shown.
 */

export const CANDLES_PATH = '/api/options/{optionId}/candles';
export const TAPE_PATH = '/api/events/by-slug/{slug}/trades';
export const TAPE_PAGE = 20;

type Candles = GetAnswer<typeof CANDLES_PATH>;
export type TapeTrade = GetAnswer<typeof TAPE_PATH>['data'][number];

export function candlesInit(
  optionId: string,
  interval: CandleInterval,
  from: string,
): GetInit<typeof CANDLES_PATH> {
  return { params: { path: { optionId }, query: { interval, from } } };
}

export function tapeInit(slug: string): GetInit<typeof TAPE_PATH> {
  return { params: { path: { slug }, query: { limit: TAPE_PAGE } } };
}

/** The params of a cache key made by `keyOf`: `[path, params]`. */
function paramsOf(query: Query): { path?: Record<string, string> } | undefined {
  return query.queryKey[1] as { path?: Record<string, string> } | undefined;
}

function candleQueries(optionIds: string[]): Query[] {
  return queryClient
    .getQueryCache()
    .findAll({ queryKey: [CANDLES_PATH] })
    .filter((query) => optionIds.includes(paramsOf(query)?.path?.optionId ?? ''));
}

function tapeQueries(slug: string): Query[] {
  const key = pagedKeyOf(TAPE_PATH, tapeInit(slug));
  return queryClient.getQueryCache().findAll({ queryKey: key, exact: true });
}

/**
 * A read in flight may or may not hold a trade just heard: it is sent again, so the trade is counted exactly once.
 * Otherwise `apply` adds the trade to what is cached.
 */
function applyOrReread(query: Query, apply: () => void): void {
  if (query.state.fetchStatus === 'fetching') {
    void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true, refetchType: 'all' });
  } else apply();
}

/** Trades of one option, as the stream delivered them, into its cached candles at every interval read. */
export function candlesTraded(optionId: string, trades: StreamTrade[]): void {
  for (const query of candleQueries([optionId])) {
    applyOrReread(query, () =>
      queryClient.setQueryData<Candles>(query.queryKey, (current) =>
        current ? { ...current, data: withTrades(current.data, trades, current.interval) } : current,
      ),
    );
  }
}

/** Ids are decimal strings that may pass 2^53: compared by length, then digit by digit. */
function newerFirst(a: TapeTrade, b: TapeTrade): number {
  return b.id.length - a.id.length || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0);
}

/** Trades of one option at the top of the market's cached tape, each once. */
export function tapeTraded(slug: string, optionId: string, trades: StreamTrade[]): void {
  const fresh: TapeTrade[] = trades.map((trade) => ({ ...trade, optionId }));
  for (const query of tapeQueries(slug)) {
    applyOrReread(query, () =>
      setPagedItems<TapeTrade>(query.queryKey, (items) => {
        const known = new Set(items.map((item) => item.id));
        return [...fresh.filter((trade) => !known.has(trade.id)), ...items].sort(newerFirst);
      }),
    );
  }
}

/**
 * Marks the market's candles and tape stale: those on screen are read again at once (`now`), the others when next
 * shown.
 */
export function marketDataStale(slug: string, optionIds: string[], now: boolean): void {
  for (const query of [...candleQueries(optionIds), ...tapeQueries(slug)]) {
    void queryClient.invalidateQueries({
      queryKey: query.queryKey,
      exact: true,
      refetchType: now ? 'active' : 'none',
    });
  }
}

/**
 * While a market's page is open, its trades go into its cached candles and tape as they are heard (the page already
 * follows these channels, so this costs no subscription); a resync or a reconnection has them read again, and
 * leaving the page leaves them to be read afresh next time.
 */
export function useLiveMarketData(slug: string, optionIds: string[]): void {
  const key = optionIds.join(',');
  useEffect(() => {
    if (!key || !stream.available) return;
    const ids = key.split(',');
    const offs = ids.map((optionId) =>
      stream.subscribe(`trades:${optionId}`, (message) => {
        if (message.type === 'resync') marketDataStale(slug, ids, true);
        if (message.type !== 'trades') return;
        const trades = (message.trades as StreamTrade[] | undefined) ?? [];
        if (trades.length === 0) return;
        candlesTraded(optionId, trades);
        tapeTraded(slug, optionId, trades);
      }),
    );
    let lost = stream.status === 'down';
    const offStatus = stream.onStatus((status) => {
      if (status === 'down') lost = true;
      if (status === 'live' && lost) {
        lost = false;
        marketDataStale(slug, ids, true);
      }
    });
    return () => {
      for (const off of offs) off();
      offStatus();
      marketDataStale(slug, ids, false);
    };
  }, [slug, key]);
}
