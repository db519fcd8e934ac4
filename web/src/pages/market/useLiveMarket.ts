import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useChannel, useMarketTrades } from '../../api/live';
import type { Range } from '../../components/PriceChart';
import { holdingsChanged } from '../../lib/account-live';
import { useApi } from '../../lib/hooks';
import { type LiveTrade, withLiveTrades } from '../../lib/market';
import { marketDataStale } from '../../lib/market-data';
import { useThrottled } from './useThrottled';

const LIVE_TRADES_KEPT = 500;
/** Trades in an exclusive event move the chances of all its options: read them again this soon after a trade... */
const CHANCES_BURST_MS = 300;
/** ...and no more often than this while trades keep coming, to stay well inside the rate limit. */
const CHANCES_READ_GAP_MS = 5_000;

/**
 * The market as read once, then followed on the stream: every trade moves prices, volumes and the chart in
 * place; a change of status (closed, resolved, settled) comes on the event channel and brings one fresh read. In
 * an exclusive event a trade in any option moves the house's chances of every option, which the stream does not
 * carry: a trade brings one fresh read of the market, at most one every five seconds.
 */
export function useLiveMarket(slug: string, range: Range, signedIn: boolean) {
  const market = useApi('/api/events/{slug}', { params: { path: { slug }, query: { range } } });
  const [live, setLive] = useState<LiveTrade[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new market or range starts from a fresh read
  useEffect(() => setLive([]), [slug, range]);
  const { reload } = market;
  const options = market.data?.options ?? [];
  const exclusive = market.data?.exclusive ?? false;
  const chancesMoved = useThrottled(reload, CHANCES_BURST_MS, CHANCES_READ_GAP_MS);
  useMarketTrades(
    options.map((option) => option.id),
    (trades) => {
      setLive((current) => [...current, ...trades].slice(-LIVE_TRADES_KEPT));
      if (exclusive) chancesMoved();
    },
  );
  useChannel(market.data ? `event:${market.data.id}` : null, (message) => {
    if (message.type !== 'market' && message.type !== 'resync') return;
    reload();
    if (signedIn) holdingsChanged();
  });
  const data = useMemo(
    () => (market.data ? withLiveTrades(market.data, live) : undefined),
    [market.data, live],
  );
  // A trade between the read and the subscription is not streamed: a book whose last price differs from the
  // read's says one happened, and one fresh read catches it.
  const latest = useRef(data);
  latest.current = data;
  const caughtUp = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new market or range may need its own catch-up
  useEffect(() => {
    caughtUp.current = false;
  }, [slug, range]);
  const onSnapshot = useCallback(
    (optionId: string, lastYesPriceCents: number | null) => {
      const option = latest.current?.options.find((candidate) => candidate.id === optionId);
      if (!option || option.lastYesPriceCents === lastYesPriceCents || caughtUp.current) return;
      caughtUp.current = true;
      reload();
      marketDataStale(slug, latest.current?.options.map((candidate) => candidate.id) ?? [], true);
    },
    [reload, slug],
  );
  return { ...market, data, onSnapshot };
}
