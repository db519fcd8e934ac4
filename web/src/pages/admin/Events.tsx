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
  /** An exclusive event's starting chance of the option, in percent; blank for even odds. */
  chance: string;
}

const NEW_OPTION: OptionDraft = { label: '', liquidity: '100', chance: '' };
/** A catch-all keeps an exclusive event exhaustive: whatever happens, exactly one option wins. */
const CATCH_ALL = 'Any other outcome';

function isCatchAll(label: string): boolean {
  return /^any other\b/i.test(label.trim());
}

/**
 * What stands in the way of creating an exclusive event: too few options, or starting chances given for some
 * options and not for others (the API takes all or none).
 */
export function exclusiveProblem(options: OptionDraft[]): string | null {
  if (options.length < 2) return 'An event where exactly one option wins needs at least two options.';
  const given = options.filter((option) => option.chance.trim() !== '').length;
  if (given > 0 && given < options.length)
    return 'Give every option a starting chance, or none for even odds.';
  const bad = options.some((option) => {
    const value = Number(option.chance);
    return option.chance.trim() !== '' && !(Number.isInteger(value) && value >= 1 && value <= 99);
  });
  return bad ? 'Each starting chance is a whole number of percent from 1 to 99.' : null;
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
  const [options, setOptions] = useState<OptionDraft[]>([{ ...NEW_OPTION, label: 'Yes' }]);
  const [openNow, setOpenNow] = useState(false);
  const [exclusive, setExclusive] = useState(false);
  const [marketLiquidity, setMarketLiquidity] = useState('1000');
  const chancesGiven = options.every((option) => option.chance.trim() !== '');
  const create = useAction(async () => {
    const kind = exclusive
      ? {
          exclusive: true,
          liquidityCents: marketLiquidity.trim() ? toCents(marketLiquidity) : 0,
          options: options.map((option) => ({
            label: option.label.trim(),
            ...(chancesGiven ? { initialPriceCents: Number(option.chance) } : {}),
          })),
        }
      : {
          options: options.map((option) => ({
            label: option.label.trim(),
            liquidityCents: option.liquidity.trim() ? toCents(option.liquidity) : 0,
          })),
        };
    const event = await typed(
      apiClient.POST('/api/admin/events', {
        body: {
          title: title.trim(),
          category: category.trim(),
          ...(description.trim() ? { description: description.trim() } : {}),
          closesAt: new Date(closesAt).toISOString(),
          ...kind,
          open: openNow,
        },
      }),
    );
    navigate(`/admin/events/${event.id}`);
  });
  const problem = exclusive ? exclusiveProblem(options) : null;
  const addCatchAll = () => {
    setOptions([...options, { ...NEW_OPTION, label: CATCH_ALL }]);
    // The operator names what the catch-all covers ("Any other team"): the new label is selected to be typed over.
    requestAnimationFrame(() => {
      const field = document.getElementById(`option-label-${options.length}`);
      if (field instanceof HTMLInputElement) {
        field.focus();
        field.setSelectionRange('Any other '.length, CATCH_ALL.length);
      }
    });
  };
  const chanceTotal = options.reduce((sum, option) => sum + (Number(option.chance) || 0), 0);
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
        <label className="check">
          <input type="checkbox" checked={exclusive} onChange={(e) => setExclusive(e.target.checked)} />
          Exactly one option wins (“who wins?”: one market, one house maker quoting every option, chances that
          add up to 100 %, shares that convert)
        </label>
        {exclusive ? (
          <div className="field">
            <label htmlFor="event-liquidity">
              House liquidity of the market (LMSR b, in credits; 0 = none): one maker quotes every option
            </label>
            <input
              id="event-liquidity"
              inputMode="decimal"
              value={marketLiquidity}
              onChange={(e) => setMarketLiquidity(e.target.value)}
            />
          </div>
        ) : null}
        <fieldset className="option-rows">
          <legend>
            {exclusive
              ? 'Options, each with its starting chance in percent (taken as shares of 100 %; none for even odds)'
              : 'Options, each with the house market maker’s liquidity (LMSR b, in credits; 0 = none)'}
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
              {exclusive ? (
                <div className="field">
                  <label htmlFor={`option-chance-${index}`}>Option {index + 1} starting chance (%)</label>
                  <input
                    id={`option-chance-${index}`}
                    inputMode="numeric"
                    value={option.chance}
                    placeholder="even"
                    onChange={(e) => setOption(index, { chance: e.target.value })}
                  />
                </div>
              ) : (
                <div className="field">
                  <label htmlFor={`option-liquidity-${index}`}>Option {index + 1} liquidity (credits)</label>
                  <input
                    id={`option-liquidity-${index}`}
                    inputMode="decimal"
                    value={option.liquidity}
                    onChange={(e) => setOption(index, { liquidity: e.target.value })}
                  />
                </div>
              )}
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
            onClick={() => setOptions([...options, { ...NEW_OPTION }])}
          >
            Add an option
          </button>
          {exclusive && chancesGiven && chanceTotal !== 100 ? (
            <p className="muted small">
              The starting chances add up to {chanceTotal} %: each is taken as its share of 100 %.
            </p>
          ) : null}
        </fieldset>
        {exclusive && !options.some((option) => isCatchAll(option.label)) ? (
          <div className="notice" data-testid="catch-all">
            <p>
              Exactly one option must win whatever happens. Unless the options cover every outcome, add a
              catch-all such as “Any other team”.
            </p>
            <button type="button" className="button small" onClick={addCatchAll}>
              Add a catch-all option “Any other …”
            </button>
          </div>
        ) : null}
        {problem ? (
          <p className="field-error" data-testid="exclusive-problem">
            {problem}
          </p>
        ) : null}
        <label className="check">
          <input type="checkbox" checked={openNow} onChange={(e) => setOpenNow(e.target.checked)} />
          Open for trading at once (otherwise it stays a draft)
        </label>
        <div>
          <button
            type="submit"
            className="button"
            disabled={create.pending || !title.trim() || !category.trim() || problem !== null}
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
