import { useParams } from 'react-router';
import type { MarketDetail } from '../../api/types';
import { Loaded } from '../../components/Status';
import { useApi, useDocumentTitle } from '../../lib/hooks';
import { EventCard } from './event-detail/EventCard';
import { Lifecycle } from './event-detail/Lifecycle';

/** One event in the console: its card (facts, options, edits) and its lifecycle, from web/src/pages/admin/event-detail/. */
export function AdminEventPage() {
  const { id = '' } = useParams();
  const event = useApi('/api/admin/events/{id}', { params: { path: { id } } });
  useDocumentTitle(event.data ? `Console · ${event.data.title}` : 'Console');
  const replace = (next: MarketDetail) => event.setData(() => next);
  return (
    <Loaded data={event.data} error={event.error} reload={event.reload}>
      {(e) => (
        <>
          <EventCard event={e} onSaved={replace} />
          <Lifecycle event={e} onDone={replace} />
        </>
      )}
    </Loaded>
  );
}
