import { useState } from 'react';
import { Link } from 'react-router';
import type { EventStatus } from '../../api/types';
import { PagedList } from '../../components/Paged';
import { formatDate } from '../../lib/format';
import { useDocumentTitle, usePagedApi } from '../../lib/hooks';
import { StatusPill } from './AdminLayout';
import { CreateEventForm } from './create-event/CreateEventForm';

const STATUSES: (EventStatus | '')[] = ['', 'draft', 'open', 'closed', 'resolved', 'settled'];

export function AdminEventsPage() {
  useDocumentTitle('Console · Events');
  const [status, setStatus] = useState<EventStatus | ''>('');
  const events = usePagedApi('/api/admin/events', {
    params: { query: { status: status || undefined, limit: 50 } },
  });
  return (
    <>
      <CreateEventForm />
      <section className="card" aria-labelledby="events-heading">
        <div className="section-head">
          <h2 id="events-heading">Events</h2>
          <div className="field inline">
            <label htmlFor="event-status">Status</label>
            <select
              id="event-status"
              value={status}
              onChange={(e) => setStatus(e.target.value as EventStatus | '')}
            >
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s || 'all'}
                </option>
              ))}
            </select>
          </div>
        </div>
        <PagedList list={events} empty="No events.">
          {(items) => (
            <div className="table-wrap">
              <table className="data" aria-label="Events">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Category</th>
                    <th scope="col">Status</th>
                    <th scope="col">Closes</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((event) => (
                    <tr key={event.id}>
                      <td>
                        <Link to={`/admin/events/${event.id}`}>{event.title}</Link>
                      </td>
                      <td>{event.category}</td>
                      <td>
                        <StatusPill status={event.status} />
                      </td>
                      <td>{formatDate(event.closesAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </PagedList>
      </section>
    </>
  );
}
