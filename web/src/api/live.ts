import { useEffect, useRef, useState } from 'react';
import type { LiveTrade } from '../lib/market';
import { LiveBook, type StreamLevel } from './book';
import { apiClient, typed } from './client';
import { type StreamMessage, type StreamStatus, stream } from './stream';
import type { Action, OrderBook, Side } from './types';

/** The stream's state, as the page should tell it. */
export function useStreamStatus(): StreamStatus {
  const [status, setStatus] = useState(stream.status);
  useEffect(() => {
    setStatus(stream.status);
    return stream.onStatus(setStatus);
  }, []);
  return status;
}

/** Follows one channel while mounted (nothing while `channel` is null); the latest handler always answers. */
export function useChannel(channel: string | null, onMessage: (message: StreamMessage) => void): void {
  const latest = useRef(onMessage);
  latest.current = onMessage;
  useEffect(() => {
    if (!channel || !stream.available) return;
    return stream.subscribe(channel, (message) => latest.current(message));
  }, [channel]);
}

/** A market holds at most this many books live at once (the stream allows 100 subscriptions a connection). */
export const LIVE_BOOKS = 20;

export interface BookMeta {
  optionId: string;
  optionLabel: string;
}

/**
 * The order books of a market's options from the stream: a snapshot, then sequenced deltas (a gap asks for a fresh
 * snapshot), the last price following each trade. `onSnapshot` hears each snapshot's last price, so the caller can
 * tell whether a trade happened between its own read and the subscription.
 */
export function useLiveBooks(
  eventSlug: string,
  options: BookMeta[],
  onSnapshot?: (optionId: string, lastYesPriceCents: number | null) => void,
): Map<string, OrderBook> {
  const [books, setBooks] = useState<Map<string, OrderBook>>(new Map());
  const snapshotHeard = useRef(onSnapshot);
  snapshotHeard.current = onSnapshot;
  const watched = options.slice(0, LIVE_BOOKS);
  const key = watched.map((option) => `${option.optionId}:${option.optionLabel}`).join('|');
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for the options watched
  useEffect(() => {
    setBooks(new Map());
    if (!stream.available || watched.length === 0) return;
    const offs = watched.flatMap(({ optionId, optionLabel }) => {
      const book = new LiveBook();
      const emit = () =>
        setBooks((current) =>
          new Map(current).set(optionId, book.toOrderBook({ optionId, eventSlug, optionLabel })),
        );
      const channel = `book:${optionId}`;
      return [
        stream.subscribe(channel, (message) => {
          if (message.type === 'snapshot') {
            const levels = [...(message.bids as StreamLevel[]), ...(message.asks as StreamLevel[])];
            const last = (message.lastYesPriceCents as number | null) ?? null;
            book.snapshot(message.seq ?? 0, levels, last, message.exclusive === true);
            emit();
            snapshotHeard.current?.(optionId, last);
          } else if (message.type === 'delta' && typeof message.seq === 'number') {
            const result = book.delta(message.seq, message.levels as StreamLevel[]);
            if (result === 'applied') emit();
            if (result === 'gap') stream.send({ op: 'resync', channel });
          }
        }),
        stream.subscribe(`trades:${optionId}`, (message) => {
          const trades = (message.trades as StreamTrade[] | undefined) ?? [];
          const latest = trades[trades.length - 1];
          if (message.type === 'trades' && latest && book.ready) {
            book.traded(latest.yesPriceCents);
            emit();
          }
        }),
      ];
    });
    return () => {
      for (const off of offs) off();
    };
  }, [eventSlug, key]);
  return books;
}

/**
 * The book of one option over REST, read once when the stream cannot deliver it (and again on `refresh`): a
 * stream that is down is said so on the page, never papered over by polling.
 */
export function useBookReadOnce(optionId: string | undefined, needed: boolean) {
  const [book, setBook] = useState<OrderBook | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read
  useEffect(() => {
    setBook(undefined);
    if (!optionId || !needed) return;
    const controller = new AbortController();
    typed(
      apiClient.GET('/api/orderbook/{optionId}', {
        params: { path: { optionId } },
        signal: controller.signal,
      }),
    )
      .then((value) => {
        setBook(value);
        setError(null);
      })
      .catch((reason: unknown) => {
        if (!controller.signal.aborted) setError(reason);
      });
    return () => controller.abort();
  }, [optionId, needed, version]);
  return { book, error, refresh: () => setVersion((v) => v + 1) };
}

export interface StreamTrade {
  id: string;
  yesPriceCents: number;
  quantity: number;
  takerSide: Side;
  takerAction: Action;
  at: string;
}

/**
 * Every execution in any of these options, as the stream delivers it (nothing without the stream). The market
 * page uses it to move its prices, chart and the viewer's holdings with each trade.
 */
export function useMarketTrades(optionIds: string[], onTrades: (trades: LiveTrade[]) => void): void {
  const latest = useRef(onTrades);
  latest.current = onTrades;
  const key = optionIds.join(',');
  useEffect(() => {
    if (!key || !stream.available) return;
    const offs = key.split(',').map((optionId) =>
      stream.subscribe(`trades:${optionId}`, (message) => {
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
