import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { apiClient, typed } from '../api/client';
import type { Tournament } from '../api/types';
import { useAuth } from '../auth';
import { PagedList } from '../components/Paged';
import { ErrorMessage, Loaded, SignInPrompt } from '../components/Status';
import { TableScroll } from '../components/TableScroll';
import {
  formatCredits,
  formatDate,
  formatPercentBps,
  formatSignedCredits,
  pnlClass,
  titleCase,
} from '../lib/format';
import { useAction, useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';

function TournamentCard({ tournament }: { tournament: Tournament }) {
  return (
    <article className="card">
      <span className={`tag status-${tournament.status}`}>{titleCase(tournament.status)}</span>
      <h2>
        <Link to={`/tournaments/${tournament.slug}`}>{tournament.title}</Link>
      </h2>
      <p>{tournament.description}</p>
      <p className="muted small">
        {formatDate(tournament.startsAt)} – {formatDate(tournament.endsAt)} · {tournament.participants}{' '}
        traders · prize pool {formatCredits(tournament.prizePoolCents)}
      </p>
    </article>
  );
}

export function TournamentsPage() {
  useDocumentTitle('Tournaments');
  const [status, setStatus] = useState<'live' | 'finished'>('live');
  const list = usePagedApi('/api/tournaments', { params: { query: { status, limit: 20 } } });
  return (
    <div className="page">
      <div className="page-head">
        <h1>Tournaments</h1>
        <fieldset className="chips">
          <legend className="visually-hidden">Show</legend>
          <button
            type="button"
            className="chip"
            aria-pressed={status === 'live'}
            onClick={() => setStatus('live')}
          >
            Running and upcoming
          </button>
          <button
            type="button"
            className="chip"
            aria-pressed={status === 'finished'}
            onClick={() => setStatus('finished')}
          >
            Finished
          </button>
        </fieldset>
      </div>
      <PagedList list={list} empty="No tournaments here right now.">
        {(items) => (
          <div className="grid">
            {items.map((item) => (
              <TournamentCard key={item.slug} tournament={item} />
            ))}
          </div>
        )}
      </PagedList>
    </div>
  );
}

type TournamentDetail = NonNullable<ReturnType<typeof useTournament>['data']>;

function useTournament(slug: string) {
  return useApi('/api/tournaments/{slug}', { params: { path: { slug } } });
}

/** When the tournament runs, when entries close, and its prizes. */
function TournamentFacts({ tournament }: { tournament: TournamentDetail }) {
  return (
    <dl className="facts">
      <div>
        <dt>Status</dt>
        <dd>{titleCase(tournament.status)}</dd>
      </div>
      <div>
        <dt>Runs</dt>
        <dd>
          {formatDate(tournament.startsAt)} – {formatDate(tournament.endsAt)}
        </dd>
      </div>
      <div>
        <dt>Entries close</dt>
        <dd>{formatDate(tournament.entryClosesAt)}</dd>
      </div>
      <div>
        <dt>Prizes</dt>
        <dd>
          {tournament.prizes.map((prize, index) => `${index + 1}. ${formatCredits(prize)}`).join(' · ') ||
            'None'}
        </dd>
      </div>
    </dl>
  );
}

/** The entries ranked: trades, profit, return and prize of each. */
function Standings({ leaderboard }: { leaderboard: TournamentDetail['leaderboard'] }) {
  return (
    <section className="card" aria-labelledby="standings-heading">
      <h2 id="standings-heading">Standings</h2>
      {leaderboard.length === 0 ? (
        <p className="empty">No entries yet.</p>
      ) : (
        <TableScroll label="Standings table">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Trader</th>
                <th scope="col">Trades</th>
                <th scope="col">Profit</th>
                <th scope="col">Return</th>
                <th scope="col">Prize</th>
              </tr>
            </thead>
            <tbody>
              {leaderboard.map((row) => (
                <tr key={row.userId}>
                  <td>{row.rank ?? '—'}</td>
                  <td>
                    <Link to={`/users/${row.username}`}>{row.username}</Link>
                  </td>
                  <td>{row.trades}</td>
                  <td className={pnlClass(row.pnlCents)}>{formatSignedCredits(row.pnlCents)}</td>
                  <td>{formatPercentBps(row.returnBps)}</td>
                  <td>{row.prizeCents > 0 ? formatCredits(row.prizeCents) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

/** Joining: for a visitor, a way to sign in; for an entrant, that they are in. */
function JoinTournament({
  signedIn,
  joined,
  pending,
  onJoin,
}: {
  signedIn: boolean;
  joined: boolean;
  pending: boolean;
  onJoin: () => void;
}) {
  if (!signedIn) return <SignInPrompt what="join this tournament" />;
  if (joined) return <p className="success">You are in this tournament.</p>;
  return (
    <button type="button" className="button" disabled={pending} onClick={onJoin}>
      Join tournament
    </button>
  );
}

export function TournamentPage() {
  const { slug = '' } = useParams();
  const { signedIn } = useAuth();
  const tournament = useTournament(slug);
  useDocumentTitle(tournament.data?.title ?? 'Tournament');
  const join = useAction(async () => {
    await typed(apiClient.POST('/api/tournaments/{slug}/join', { params: { path: { slug } } }));
    tournament.reload();
  });
  return (
    <div className="page">
      <p className="breadcrumb">
        <Link to="/tournaments">Tournaments</Link>
      </p>
      <Loaded data={tournament.data} error={tournament.error} reload={tournament.reload}>
        {(data) => (
          <>
            <h1>{data.title}</h1>
            <p>{data.description}</p>
            <TournamentFacts tournament={data} />
            <p className="muted">{data.scoring}</p>
            {data.events.length > 0 ? (
              <p>
                Markets:{' '}
                {data.events.map((event, index) => (
                  <span key={event.slug}>
                    {index > 0 ? ', ' : ''}
                    <Link to={`/markets/${event.slug}`}>{event.title}</Link>
                  </span>
                ))}
              </p>
            ) : null}
            <JoinTournament
              signedIn={signedIn}
              joined={data.joined}
              pending={join.pending}
              onJoin={() => void join.run()}
            />
            <ErrorMessage error={join.error} />
            <Standings leaderboard={data.leaderboard} />
          </>
        )}
      </Loaded>
    </div>
  );
}
