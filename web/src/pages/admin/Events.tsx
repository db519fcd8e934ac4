import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { apiClient, typed } from '../../api/client';
import type { EventStatus } from '../../api/types';
import { PagedList } from '../../components/Paged';
import { ErrorMessage } from '../../components/Status';
import { formatDate, localDateTime } from '../../lib/format';
import { useAction, useDocumentTitle, usePagedApi } from '../../lib/hooks';
import { StatusPill } from './AdminLayout';

const STATUSES: (EventStatus | '')[] = ['', 'draft', 'open', 'closed', 'resolved', 'settled'];

interface OptionDraft {
  label: string;
  liquidity: string;
}

/** Credits typed by an operator into whole cents; NaN when it is not a number. */
export function toCents(credits: string): number {
  return Math.round(Number(credits) * 100);
}

function CreateEventForm() {
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [category, setCategory] = useState('');
  const [description, setDescription] = useState('');
  const [closesAt, setClosesAt] = useState(() => localDateTime(null));
  const [options, setOptions] = useState<OptionDraft[]>([{ label: 'Yes', liquidity: '100' }]);
  const [openNow, setOpenNow] = useState(false);
  const create = useAction(async () => {
    const event = await typed(
      apiClient.POST('/api/admin/events', {
        body: {
          title: title.trim(),
          category: category.trim(),
          ...(description.trim() ? { description: description.trim() } : {}),
          closesAt: new Date(closesAt).toISOString(),
          options: options.map((option) => ({
            label: option.label.trim(),
            liquidityCents: option.liquidity.trim() ? toCents(option.liquidity) : 0,
          })),
          open: openNow,
        },
      }),
    );
    navigate(`/admin/events/${event.id}`);
  });
  const setOption = (index: number, change: Partial<OptionDraft>) =>
    setOptions(options.map((option, i) => (i === index ? { ...option, ...change } : option)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.run();
  };
  return (
    <section className="card" aria-labelledby="create-event-heading">
      <h2 id="create-event-heading">Create an event</h2>
      <form className="stack" onSubmit={submit}>
        <div className="field-row">
          <div className="field">
            <label htmlFor="event-title">Title</label>
            <input
              id="event-title"
              value={title}
              maxLength={200}
              onChange={(e) => setTitle(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="event-category">Category</label>
            <input
              id="event-category"
              value={category}
              maxLength={60}
              placeholder="cricket"
              onChange={(e) => setCategory(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="event-closes">Closes at</label>
            <input
              id="event-closes"
              type="datetime-local"
              value={closesAt}
              onChange={(e) => setClosesAt(e.target.value)}
            />
          </div>
        </div>
        <div className="field">
          <label htmlFor="event-description">Description and resolution rules</label>
          <textarea
            id="event-description"
            rows={2}
            maxLength={5000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </div>
        <fieldset className="option-rows">
          <legend>
            Options, each with the house market maker’s liquidity (LMSR b, in credits; 0 = none)
          </legend>
          {options.map((option, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and never reordered
            <div className="field-row" key={index}>
              <div className="field">
                <label htmlFor={`option-label-${index}`}>Option {index + 1} label</label>
                <input
                  id={`option-label-${index}`}
                  value={option.label}
                  maxLength={120}
                  onChange={(e) => setOption(index, { label: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`option-liquidity-${index}`}>Option {index + 1} liquidity (credits)</label>
                <input
                  id={`option-liquidity-${index}`}
                  inputMode="decimal"
                  value={option.liquidity}
                  onChange={(e) => setOption(index, { liquidity: e.target.value })}
                />
              </div>
              {options.length > 1 ? (
                <button
                  type="button"
                  className="button small ghost"
                  onClick={() => setOptions(options.filter((_, i) => i !== index))}
                >
                  Remove<span className="visually-hidden"> option {index + 1}</span>
                </button>
              ) : null}
            </div>
          ))}
          <button
            type="button"
            className="button small ghost"
            onClick={() => setOptions([...options, { label: '', liquidity: '100' }])}
          >
            Add an option
          </button>
        </fieldset>
        <label className="check">
          <input type="checkbox" checked={openNow} onChange={(e) => setOpenNow(e.target.checked)} />
          Open for trading at once (otherwise it stays a draft)
        </label>
        <div>
          <button
            type="submit"
            className="button"
            disabled={create.pending || !title.trim() || !category.trim()}
          >
            Create event
          </button>
        </div>
        <ErrorMessage error={create.error} />
      </form>
    </section>
  );
}

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
