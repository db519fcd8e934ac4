import { apiClient, typed } from '../api/client';
import { useAction, useApi } from '../lib/hooks';
import { invalidate } from '../lib/query';
import { ErrorMessage } from './Status';

/** The watchlist read once a visit (it changes only here) and shared by every market page. */
export const WATCHLIST_INIT = { params: { query: { limit: 200 } } } as const;

/** Adds the market to the viewer's watchlist, or takes it off. */
export function WatchButton({ eventId, title }: { eventId: string; title: string }) {
  const list = useApi('/api/watchlist', WATCHLIST_INIT);
  const watching = list.data?.data.some((item) => item.eventId === eventId) ?? false;
  const toggle = useAction(async () => {
    if (watching) {
      await typed(apiClient.DELETE('/api/watchlist/{event}', { params: { path: { event: eventId } } }));
    } else {
      await typed(apiClient.POST('/api/watchlist', { body: { eventId } }));
    }
    invalidate('/api/watchlist');
  });
  if (!list.data) return null;
  return (
    <span className="watch">
      <button
        type="button"
        className="button small ghost"
        aria-pressed={watching}
        disabled={toggle.pending}
        onClick={() => void toggle.run()}
      >
        {watching ? '★ Watching' : '☆ Watch'}
        <span className="visually-hidden"> {title}</span>
      </button>
      <ErrorMessage error={toggle.error} />
    </span>
  );
}
