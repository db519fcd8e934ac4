import { useEffect, useRef } from 'react';
import { useChannel, useStreamStatus } from '../api/live';
import type { StreamMessage } from '../api/stream';
import { setBalance } from '../auth';
import { type GetAnswer, pagedKeyOf, type Resource, setPagedItems, useApi } from './hooks';
import { invalidate, isShown, queryClient } from './query';

/** Changes come in bursts (an order, its fills, the stream's echo of both): one fresh read per burst. */
const BURST_MS = 250;
let burst: ReturnType<typeof setTimeout> | undefined;

/**
 * The viewer's holdings changed (an order answered, a fill or cancel heard on the stream): read again what shows
 * them, once per burst. The balance comes with the portfolio when it is on screen, else on its own.
 */
export function holdingsChanged(): void {
  clearTimeout(burst);
  burst = setTimeout(() => {
    if (!isShown('/api/positions')) invalidate('/api/auth/me');
    invalidate('/api/positions', '/api/limit-orders', '/api/trades', '/api/me/settlements', '/api/me/fills');
  }, BURST_MS);
}

/** The portfolio read; its summary also refreshes the balance the header and the ticket show. */
export function usePortfolio(enabled: boolean): Resource<GetAnswer<'/api/positions'>> {
  const portfolio = useApi(enabled ? '/api/positions' : null);
  const summary = portfolio.data?.summary;
  useEffect(() => {
    if (summary) setBalance({ cashCents: summary.cashCents, reservedCents: summary.reservedCents });
  }, [summary]);
  return portfolio;
}

/** The notification feed as the bell and the notifications page share it: one read, kept live by the stream. */
export const FEED_PAGE = 30;
export const feedInit = { params: { query: { limit: FEED_PAGE } } } as const;
export const FEED_KEY = pagedKeyOf('/api/me/notifications', feedInit);

type Feed = GetAnswer<'/api/me/notifications'>;
type FeedItem = Feed['data'][number];

/** Sets the unread count every cached page of the feed reports. */
export function setUnreadCount(update: (count: number) => number): void {
  queryClient.setQueryData<{ pages: Feed[]; pageParams: unknown[] }>(FEED_KEY, (current) =>
    current
      ? {
          ...current,
          pages: current.pages.map((page) => ({ ...page, unreadCount: update(page.unreadCount) })),
        }
      : current,
  );
}

function onNotification(item: FeedItem): void {
  setPagedItems<FeedItem>(FEED_KEY, (items) => [item, ...items.filter((old) => old.id !== item.id)]);
  setUnreadCount((count) => count + 1);
  if (item.type === 'market.settled' || item.type === 'position.protection_triggered') holdingsChanged();
  if (item.type.startsWith('challenge.')) invalidate('/api/challenges');
}

/**
 * Follows the signed-in user's own channel for the whole visit: orders and fills refresh the holdings, new
 * notifications go into the feed and the bell at once, and after an interruption everything is read again.
 */
export function useAccountStream(signedIn: boolean): void {
  const status = useStreamStatus();
  const wasDown = useRef(false);
  useChannel(signedIn ? 'user' : null, (message: StreamMessage) => {
    if (message.type === 'order' || message.type === 'fill') holdingsChanged();
    else if (message.type === 'notification') onNotification(message.notification as FeedItem);
    else if (message.type === 'resync') {
      holdingsChanged();
      invalidate('/api/me/notifications');
    }
  });
  useEffect(() => {
    if (!signedIn) return;
    if (status === 'down') wasDown.current = true;
    if (status === 'live' && wasDown.current) {
      wasDown.current = false;
      holdingsChanged();
      invalidate('/api/me/notifications');
    }
  }, [status, signedIn]);
}
