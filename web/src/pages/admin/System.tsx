import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { apiClient, typed } from '../../api/client';
import type { Flag } from '../../api/console-types';
import type { Tournament } from '../../api/types';
import { ConfirmButton } from '../../components/Confirm';
import { PagedList } from '../../components/Paged';
import { ErrorMessage, Loaded } from '../../components/Status';
import { formatCredits, formatDate, localDateTime } from '../../lib/format';
import { useAction, useApi, useDocumentTitle, usePagedApi } from '../../lib/hooks';
import { StatusPill } from './AdminLayout';
import { toCents } from './credits';

/** Credits typed as "100, 50, 25" into cents for 1st, 2nd, 3rd. */
function prizesInCents(text: string): number[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(toCents);
}

function CreateTournament({ onCreated }: { onCreated: () => void }) {
  const [slug, setSlug] = useState('');
  const [title, setTitle] = useState('');
  const [days, setDays] = useState('7');
  const [events, setEvents] = useState('');
  const [prizes, setPrizes] = useState('100, 50, 25');
  const create = useAction(async () => {
    const now = Date.now();
    await typed(
      apiClient.POST('/api/admin/tournaments', {
        body: {
          slug: slug.trim(),
          title: title.trim(),
          startsAt: new Date(now + 60_000).toISOString(),
          endsAt: new Date(now + Number(days) * 86_400_000).toISOString(),
          eventSlugs: events
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          prizes: prizesInCents(prizes),
        },
      }),
    );
    setSlug('');
    setTitle('');
    onCreated();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Create a tournament">
      <div className="field-row">
        <div className="field">
          <label htmlFor="t-title">Title</label>
          <input id="t-title" value={title} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="t-slug">Slug</label>
          <input
            id="t-slug"
            value={slug}
            placeholder="ipl-week-1"
            onChange={(e) => setSlug(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="t-days">Runs for (days)</label>
          <input id="t-days" inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="t-events">Market slugs, separated by commas</label>
        <input id="t-events" value={events} onChange={(e) => setEvents(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="t-prizes">Prizes in credits for 1st, 2nd, … (from house bonus)</label>
        <input id="t-prizes" value={prizes} onChange={(e) => setPrizes(e.target.value)} />
      </div>
      <div>
        <button type="submit" className="button" disabled={create.pending || !slug.trim() || !title.trim()}>
          Create tournament
        </button>
      </div>
      <ErrorMessage error={create.error} />
    </form>
  );
}

/**
 * An operator's edit of a tournament, sending only what changed. Before the start the markets can change too;
 * once started the service keeps the start and the markets and takes only higher prizes, and says so.
 */
function EditTournament({ tournament, onSaved }: { tournament: Tournament; onSaved: () => void }) {
  const [title, setTitle] = useState(tournament.title);
  const [endsAt, setEndsAt] = useState(() => localDateTime(tournament.endsAt));
  const [events, setEvents] = useState(tournament.events.map((e) => e.slug).join(', '));
  const [prizes, setPrizes] = useState(tournament.prizes.map((p) => p / 100).join(', '));
  const id = `edit-${tournament.slug}`;
  const save = useAction(async () => {
    const eventSlugs = events
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const cents = prizesInCents(prizes);
    const end = new Date(endsAt).toISOString();
    await typed(
      apiClient.PATCH('/api/admin/tournaments/{slug}', {
        params: { path: { slug: tournament.slug } },
        body: {
          ...(title.trim() !== tournament.title ? { title: title.trim() } : {}),
          ...(end !== tournament.endsAt ? { endsAt: end } : {}),
          ...(eventSlugs.join() !== tournament.events.map((e) => e.slug).join() ? { eventSlugs } : {}),
          ...(cents.join() !== tournament.prizes.join() ? { prizes: cents } : {}),
        },
      }),
    );
    onSaved();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={`Edit ${tournament.title}`}>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-title`}>Title</label>
          <input id={`${id}-title`} value={title} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-ends`}>Ends</label>
          <input
            id={`${id}-ends`}
            type="datetime-local"
            value={endsAt}
            onChange={(e) => setEndsAt(e.target.value)}
          />
        </div>
      </div>
      {tournament.status === 'upcoming' ? (
        <div className="field">
          <label htmlFor={`${id}-events`}>Market slugs, separated by commas</label>
          <input id={`${id}-events`} value={events} onChange={(e) => setEvents(e.target.value)} />
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={`${id}-prizes`}>Prizes in credits for 1st, 2nd, …</label>
        <input id={`${id}-prizes`} value={prizes} onChange={(e) => setPrizes(e.target.value)} />
        {tournament.status === 'active' ? (
          <p className="muted small">It has started: prizes can only rise or be added.</p>
        ) : null}
      </div>
      <div>
        <button type="submit" className="button" disabled={save.pending || !title.trim()}>
          Save changes
        </button>
      </div>
      <ErrorMessage error={save.error} />
    </form>
  );
}

function TournamentRow({ tournament, onSaved }: { tournament: Tournament; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  const editable = tournament.status === 'upcoming' || tournament.status === 'active';
  return (
    <li className="row-block" data-testid="tournament">
      <div className="row">
        <div>
          <Link to={`/tournaments/${tournament.slug}`}>{tournament.title}</Link>
          <div className="muted small">
            {formatDate(tournament.startsAt)} – {formatDate(tournament.endsAt)} · prizes{' '}
            {tournament.prizes.map((p) => formatCredits(p)).join(', ')}
          </div>
        </div>
        <div className="actions">
          <StatusPill status={tournament.status} />
          {editable ? (
            <button
              type="button"
              className="button small ghost"
              aria-expanded={editing}
              onClick={() => setEditing((value) => !value)}
            >
              {editing ? 'Cancel' : 'Edit'}
              <span className="visually-hidden"> {tournament.title}</span>
            </button>
          ) : null}
        </div>
      </div>
      {editing ? (
        <EditTournament
          tournament={tournament}
          onSaved={() => {
            setEditing(false);
            onSaved();
          }}
        />
      ) : null}
    </li>
  );
}

export function AdminTournamentsPage() {
  useDocumentTitle('Console · Tournaments');
  const tournaments = usePagedApi('/api/tournaments');
  return (
    <>
      <section className="card" aria-labelledby="new-tournament-heading">
        <h2 id="new-tournament-heading">New tournament</h2>
        <CreateTournament onCreated={tournaments.reload} />
      </section>
      <section className="card" aria-labelledby="tournaments-heading">
        <h2 id="tournaments-heading">Tournaments</h2>
        <PagedList list={tournaments} empty="No tournaments.">
          {(items) => (
            <ul className="plain rows">
              {items.map((t) => (
                <TournamentRow key={t.slug} tournament={t} onSaved={tournaments.reload} />
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </>
  );
}

export function AdminFlagsPage() {
  useDocumentTitle('Console · Feature flags');
  const flags = useApi('/api/admin/flags');
  const set = async (flag: Flag, enabled: boolean) => {
    const next = await typed(
      apiClient.PUT('/api/admin/flags/{key}', { params: { path: { key: flag.key } }, body: { enabled } }),
    );
    flags.setData((current) => current && { data: current.data.map((f) => (f.key === next.key ? next : f)) });
  };
  return (
    <section className="card" aria-labelledby="flags-heading">
      <h2 id="flags-heading">Feature flags</h2>
      <Loaded data={flags.data} error={flags.error} reload={flags.reload}>
        {({ data }) => (
          <div className="table-wrap">
            <table className="data" aria-label="Feature flags">
              <thead>
                <tr>
                  <th scope="col">Flag</th>
                  <th scope="col">What it does</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((flag) => (
                  <tr key={flag.key} data-testid={`flag-${flag.key}`}>
                    <td>
                      <code>{flag.key}</code>
                    </td>
                    <td>
                      {flag.description}
                      {flag.blockedBy ? (
                        <div className="muted small">
                          {flag.enabled ? 'Not in effect until then' : 'Stays off even when switched on'}:{' '}
                          {flag.blockedBy}
                        </div>
                      ) : null}
                    </td>
                    <td data-testid="flag-state">
                      {flag.enabled === flag.effective ? (
                        <StatusPill status={flag.effective ? 'on' : 'off'} />
                      ) : (
                        <>
                          <StatusPill status="on" />
                          <div className="muted small">switched on, not in effect</div>
                        </>
                      )}
                    </td>
                    <td>
                      <ConfirmButton
                        label={flag.enabled ? `Switch off ${flag.key}` : `Switch on ${flag.key}`}
                        title={`${flag.enabled ? 'Switch off' : 'Switch on'} ${flag.key}?`}
                        danger={flag.enabled}
                        describe={() => (
                          <p>
                            Every instance follows within seconds:{' '}
                            {flag.enabled
                              ? 'the feature stops for everyone.'
                              : 'the feature starts for everyone.'}
                          </p>
                        )}
                        onConfirm={() => set(flag, !flag.enabled)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}

export function AdminAuditPage() {
  useDocumentTitle('Console · Audit');
  const audit = useApi('/api/admin/audit');
  return (
    <section className="card" aria-labelledby="audit-heading">
      <div className="section-head">
        <h2 id="audit-heading">Ledger audit</h2>
        <button type="button" className="button small ghost" onClick={audit.reload} disabled={audit.loading}>
          Run again
        </button>
      </div>
      <Loaded data={audit.data} error={audit.error} reload={audit.reload} label="Checking the books…">
        {(result) => (
          <>
            <p data-testid="audit-summary" className={result.ok ? 'success' : 'alert'}>
              {result.ok ? 'Every invariant holds.' : 'An invariant is broken: see below.'} Checked{' '}
              {formatDate(result.checkedAt)}.
            </p>
            <ul className="plain rows">
              {result.invariants.map((inv) => (
                <li key={inv.invariant} className="row">
                  <div>
                    {inv.invariant}
                    {inv.violations.length > 0 ? (
                      <ul>
                        {inv.violations.map((v) => (
                          <li key={v}>{v}</li>
                        ))}
                      </ul>
                    ) : null}
                  </div>
                  <StatusPill status={inv.ok ? 'ok' : 'failed'} />
                </li>
              ))}
            </ul>
          </>
        )}
      </Loaded>
    </section>
  );
}
