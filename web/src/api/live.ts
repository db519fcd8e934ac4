import { useEffect, useRef, useState } from 'react';
import type { LiveTrade } from '../lib/market';
import { LiveBook, type StreamLevel } from './book';
import { ApiError, apiClient, typed } from './client';
import { stream } from './stream';
import type { Action, OrderBook, Side } from './types';

/**
 * A live value: the order book today is polled; a push stream can implement the same interface later without
 * touching the components that read it.
 */
export interface LiveFeed<T> {
  subscribe(onValue: (value: T) => void, onError: (error: unknown) => void): () => void;
  /** Ask for a fresh value now (after the user's own order, for instance). */
  refresh(): void;
}

export function pollingFeed<T>(load: (signal: AbortSignal) => Promise<T>, intervalMs: number): LiveFeed<T> {
  let wake: (() => void) | null = null;
  return {
    subscribe(onValue, onError) {
      let stopped = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let controller: AbortController | undefined;
      const schedule = (delayMs: number) => {
        clearTimeout(timer);
        timer = setTimeout(tick, delayMs);
      };
      const tick = async () => {
        if (stopped) return;
        if (document.hidden) return schedule(intervalMs);
        const mine = new AbortController();
        controller = mine;
        try {
          const value = await load(mine.signal);
          if (stopped || mine.signal.aborted) return;
          onValue(value);
          schedule(intervalMs);
        } catch (error) {
          if (stopped || mine.signal.aborted) return;
          onError(error);
          // Respect the rate limiter's Retry-After, and slow down while the service is failing.
          const wait =
            error instanceof ApiError && error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : 0;
          schedule(Math.max(wait, intervalMs * 3));
        }
      };
      wake = () => {
        controller?.abort();
        schedule(0);
      };
      schedule(0);
      return () => {
        stopped = true;
        wake = null;
        clearTimeout(timer);
        controller?.abort();
      };
    },
    refresh() {
      wake?.();
    },
  };
}

export const ORDER_BOOK_POLL_MS = 3000;

function polledOrderBook(optionId: string): LiveFeed<OrderBook> {
  return pollingFeed(
    (signal) => typed(apiClient.GET('/api/orderbook/{optionId}', { params: { path: { optionId } }, signal })),
    ORDER_BOOK_POLL_MS,
  );
}

/**
 * The order book of an option from the market-data stream: a snapshot, then sequenced deltas (a gap asks for a
 * fresh snapshot). While the stream is unreachable the book is polled instead, so the view never goes stale.
 */
export function orderBookFeed(
  optionId: string,
  meta: { eventSlug: string; optionLabel: string },
): LiveFeed<OrderBook> {
  const polled = polledOrderBook(optionId);
  if (!stream.available) return polled;
  return {
    subscribe(onValue, onError) {
      const book = new LiveBook();
      const emit = () => onValue(book.toOrderBook({ optionId, ...meta }));
      let stopPolling: (() => void) | null = null;
      const poll = (on: boolean) => {
        if (on && !stopPolling) stopPolling = polled.subscribe(onValue, onError);
        if (!on && stopPolling) {
          stopPolling();
          stopPolling = null;
        }
      };
      const channel = `book:${optionId}`;
      const offBook = stream.subscribe(channel, (message) => {
        if (message.type === 'snapshot') {
          const levels = [...(message.bids as StreamLevel[]), ...(message.asks as StreamLevel[])];
          book.snapshot(message.seq ?? 0, levels, (message.lastYesPriceCents as number | null) ?? null);
          poll(false);
          emit();
        } else if (message.type === 'delta' && typeof message.seq === 'number') {
          const result = book.delta(message.seq, message.levels as StreamLevel[]);
          if (result === 'applied') emit();
          if (result === 'gap') stream.send({ op: 'resync', channel });
        } else if (message.type === 'error') {
          poll(true);
        }
      });
      const offTrades = stream.subscribe(`trades:${optionId}`, (message) => {
        const trades = (message.trades as StreamTrade[] | undefined) ?? [];
        const latest = trades[trades.length - 1];
        if (message.type === 'trades' && latest && book.ready) {
          book.traded(latest.yesPriceCents);
          emit();
        }
      });
      const offStatus = stream.onStatus((connected) => poll(!connected));
      if (!stream.isConnected) poll(true);
      return () => {
        offBook();
        offTrades();
        offStatus();
        poll(false);
      };
    },
    refresh() {
      // The stream pushes every change; only the polling fallback needs a nudge.
      polled.refresh();
    },
  };
}

export interface StreamTrade {
  id: string;
  yesPriceCents: number;
  quantity: number;
  takerSide: Side;
  takerAction: Action;
  at: string;
}

export const RECENT_TRADES = 20;

/**
 * Executions in an option as they happen (the stream carries no history): newest first, at most 20. Without the
 * stream this reports `null`, meaning "not available".
 */
export function useRecentTrades(optionId: string | undefined): StreamTrade[] | null {
  const [trades, setTrades] = useState<StreamTrade[]>([]);
  const [connected, setConnected] = useState(stream.isConnected);
  useEffect(() => stream.onStatus(setConnected), []);
  useEffect(() => {
    setTrades([]);
    if (!optionId || !stream.available) return;
    return stream.subscribe(`trades:${optionId}`, (message) => {
      if (message.type !== 'trades') return;
      const fresh = [...((message.trades as StreamTrade[] | undefined) ?? [])].reverse();
      setTrades((current) => [...fresh, ...current].slice(0, RECENT_TRADES));
    });
  }, [optionId]);
  return stream.available && connected ? trades : null;
}

export function useLive<T>(feed: LiveFeed<T> | null): { data: T | undefined; error: unknown } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setData(undefined);
    setError(null);
    if (!feed) return;
    return feed.subscribe(
      (value) => {
        setData(value);
        setError(null);
      },
      (reason) => setError(reason),
    );
  }, [feed]);
  return { data, error };
}

/**
 * Every execution in any of these options, as the stream delivers it (nothing without the stream). The market
 * page uses it to move its prices, chart and the viewer's holdings with each trade. Trades made between the
 * page's first read and the subscription are not streamed: `onSubscribed` says when to read again to catch them.
 */
export function useMarketTrades(
  optionIds: string[],
  onTrades: (trades: LiveTrade[]) => void,
  onSubscribed: () => void,
): void {
  const latest = useRef(onTrades);
  latest.current = onTrades;
  const subscribed = useRef(onSubscribed);
  subscribed.current = onSubscribed;
  const key = optionIds.join(',');
  useEffect(() => {
    if (!key || !stream.available) return;
    const offs = key.split(',').map((optionId) =>
      stream.subscribe(`trades:${optionId}`, (message) => {
        if (message.type === 'subscribed') subscribed.current();
        if (message.type !== 'trades') return;
        const trades = (message.trades as StreamTrade[] | undefined) ?? [];
        if (trades.length === 0) return;
        latest.current(
          trades.map((trade) => ({
            optionId,
            yesPriceCents: trade.yesPriceCents,
            quantity: trade.quantity,
            takerSide: trade.takerSide,
            at: trade.at,
          })),
        );
      }),
    );
    return () => {
      for (const off of offs) off();
    };
  }, [key]);
}
