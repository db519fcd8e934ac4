import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { apiClient, typed } from '../api/client';
import type { Challenge } from '../api/types';
import { useAuth } from '../auth';
import { CopyField } from '../components/CopyField';
import { PagedList } from '../components/Paged';
import { ErrorMessage, Loaded, SignInPrompt } from '../components/Status';
import { formatCredits, formatDate, formatSignedCredits, titleCase } from '../lib/format';
import { type Paged, useAction, useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';

function ChallengeSummary({ challenge }: { challenge: Challenge }) {
  return (
    <>
      <p>
        <strong>{challenge.creator.username}</strong> vs{' '}
        <strong>{challenge.opponent?.username ?? 'anyone with the code'}</strong>
        {' · '}
        {challenge.event ? (
          <Link to={`/markets/${challenge.event.slug}`}>{challenge.event.title}</Link>
        ) : (
          'every market'
        )}
      </p>
      <p className="muted small">
        <span className={`tag status-${challenge.status}`}>{titleCase(challenge.status)}</span> Stake{' '}
        {formatCredits(challenge.stakeCents)} each
        {challenge.endsAt ? ` · ends ${formatDate(challenge.endsAt)}` : ''}
        {challenge.status === 'open' ? ` · accept by ${formatDate(challenge.expiresAt)}` : ''}
      </p>
      {challenge.result ? (
        <p>
          {challenge.result.winner ? `${challenge.result.winner.username} won.` : 'A draw.'}{' '}
          {challenge.creator.username} {formatSignedCredits(challenge.result.creatorPnlCents)},{' '}
          {challenge.opponent?.username} {formatSignedCredits(challenge.result.opponentPnlCents)}
        </p>
      ) : null}
    </>
  );
}

/** A new challenge as typed (one market, or every market for some days), and its creation. */
function useCreateChallenge(onCreated: (challenge: Challenge) => void) {
  const markets = useApi('/api/events', { params: { query: { status: 'open', limit: 200 } } });
  const [scope, setScope] = useState<'market' | 'window'>('market');
  const [eventSlug, setEventSlug] = useState('');
  const [days, setDays] = useState('7');
  const [stake, setStake] = useState('0');
  const [opponent, setOpponent] = useState('');
  const create = useAction(async () => {
    const challenge = await typed(
      apiClient.POST('/api/challenges', {
        body: {
          ...(scope === 'market'
            ? { eventSlug: eventSlug || markets.data?.data[0]?.slug }
            : { endsAt: new Date(Date.now() + Number(days) * 86_400_000).toISOString() }),
          stakeCents: Math.round(Number(stake) * 100),
          ...(opponent.trim() ? { opponentUsername: opponent.trim() } : {}),
        },
      }),
    );
    onCreated(challenge);
  });
  return {
    markets: markets.data?.data ?? [],
    fields: { scope, eventSlug, days, stake, opponent },
    set: { setScope, setEventSlug, setDays, setStake, setOpponent },
    pending: create.pending,
    error: create.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      void create.run();
    },
  };
}

/** What the challenge is played on: one market, or every market for a number of days. */
function ChallengeScope({ form }: { form: ReturnType<typeof useCreateChallenge> }) {
  const { fields, set } = form;
  return (
    <>
      <fieldset className="segmented">
        <legend>Play on</legend>
        <label>
          <input
            type="radio"
            name="scope"
            checked={fields.scope === 'market'}
            onChange={() => set.setScope('market')}
          />
          <span>One market</span>
        </label>
        <label>
          <input
            type="radio"
            name="scope"
            checked={fields.scope === 'window'}
            onChange={() => set.setScope('window')}
          />
          <span>Every market</span>
        </label>
      </fieldset>
      {fields.scope === 'market' ? (
        <div className="field">
          <label htmlFor="challenge-market">Market</label>
          <select
            id="challenge-market"
            value={fields.eventSlug}
            onChange={(e) => set.setEventSlug(e.target.value)}
          >
            {form.markets.map((market) => (
              <option key={market.slug} value={market.slug}>
                {market.title}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <div className="field">
          <label htmlFor="challenge-days">Length in days (1 to 30)</label>
          <input
            id="challenge-days"
            type="number"
            min={1}
            max={30}
            value={fields.days}
            onChange={(e) => set.setDays(e.target.value)}
          />
        </div>
      )}
    </>
  );
}

function CreateChallenge({ onCreated }: { onCreated: (challenge: Challenge) => void }) {
  const form = useCreateChallenge(onCreated);
  const { fields, set } = form;
  return (
    <form className="stack" onSubmit={form.submit}>
      <ChallengeScope form={form} />
      <div className="field-row">
        <div className="field">
          <label htmlFor="challenge-stake">Stake (credits, each side)</label>
          <input
            id="challenge-stake"
            type="number"
            min={0}
            max={1000}
            step={0.01}
            value={fields.stake}
            onChange={(e) => set.setStake(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="challenge-opponent">Opponent username (optional)</label>
          <input
            id="challenge-opponent"
            value={fields.opponent}
            onChange={(e) => set.setOpponent(e.target.value)}
          />
        </div>
      </div>
      <button type="submit" className="button" disabled={form.pending}>
        Create challenge
      </button>
      <ErrorMessage error={form.error} />
    </form>
  );
}

/** A challenge just made: its code and the links to send the opponent. */
function ChallengeCreated({ challenge, onAnother }: { challenge: Challenge; onAnother: () => void }) {
  return (
    <div className="once">
      <p>
        <strong>Challenge created.</strong> Send your opponent the code or one of these links.
      </p>
      <CopyField label="Invite code" value={challenge.code} />
      <CopyField
        label="Link for someone with an account"
        value={`${location.origin}/challenges/${challenge.code}`}
      />
      <CopyField
        label="Link for someone new"
        value={`${location.origin}/register?invite=${challenge.code}`}
      />
      <button type="button" className="button ghost small" onClick={onAnother}>
        Create another
      </button>
    </div>
  );
}

/** An invite code typed in, to open its challenge. */
function CodeLookup({ code, onCode }: { code: string; onCode: (code: string) => void }) {
  const navigate = useNavigate();
  return (
    <section className="card" aria-labelledby="accept-challenge">
      <h2 id="accept-challenge">Have a code?</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (code.trim()) navigate(`/challenges/${encodeURIComponent(code.trim())}`);
        }}
      >
        <div className="field">
          <label htmlFor="challenge-code">Invite code</label>
          <input id="challenge-code" value={code} maxLength={32} onChange={(e) => onCode(e.target.value)} />
        </div>
        <button type="submit" className="button">
          View challenge
        </button>
      </form>
    </section>
  );
}

function YourChallenges({ list }: { list: Paged<Challenge> }) {
  return (
    <section aria-labelledby="my-challenges">
      <h2 id="my-challenges">Your challenges</h2>
      <PagedList list={list} empty="No challenges yet.">
        {(items) => (
          <ul className="plain">
            {items.map((challenge) => (
              <li key={challenge.id} className="card">
                <ChallengeSummary challenge={challenge} />
                <Link to={`/challenges/${challenge.code}`} className="small">
                  Code {challenge.code}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}

export function ChallengesPage() {
  useDocumentTitle('Challenges');
  const { signedIn } = useAuth();
  const list = usePagedApi(signedIn ? '/api/challenges' : null, { params: { query: { limit: 30 } } });
  const [created, setCreated] = useState<Challenge | null>(null);
  const [code, setCode] = useState('');
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Challenges</h1>
        <p>Challenge a friend head to head: whoever makes more profit takes both stakes.</p>
        <SignInPrompt what="create or accept a challenge" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Challenges</h1>
      <p className="muted">Challenge a friend head to head: whoever makes more profit takes both stakes.</p>
      <section className="card" aria-labelledby="new-challenge">
        <h2 id="new-challenge">New challenge</h2>
        {created ? (
          <ChallengeCreated challenge={created} onAnother={() => setCreated(null)} />
        ) : (
          <CreateChallenge
            onCreated={(challenge) => {
              setCreated(challenge);
              list.setItems((items) => [challenge, ...items]);
            }}
          />
        )}
      </section>
      <CodeLookup code={code} onCode={setCode} />
      <YourChallenges list={list} />
    </div>
  );
}

export function ChallengePage() {
  const { code = '' } = useParams();
  const { signedIn, me, refresh } = useAuth();
  useDocumentTitle('Challenge');
  const challenge = useApi('/api/challenges/{code}', { params: { path: { code } } });
  const accept = useAction(async () => {
    const accepted = await typed(
      apiClient.POST('/api/challenges/{code}/accept', { params: { path: { code } } }),
    );
    challenge.setData(() => accepted);
    refresh();
  });
  return (
    <div className="page narrow">
      <p className="breadcrumb">
        <Link to="/challenges">Challenges</Link>
      </p>
      <h1>Challenge {code}</h1>
      <Loaded data={challenge.data} error={challenge.error} reload={challenge.reload}>
        {(data) => (
          <div className="card">
            <ChallengeSummary challenge={data} />
            {data.status === 'open' && me?.id !== data.creator.id ? (
              signedIn ? (
                <button
                  type="button"
                  className="button"
                  disabled={accept.pending}
                  onClick={() => void accept.run()}
                >
                  Accept and stake {formatCredits(data.stakeCents)}
                </button>
              ) : (
                <SignInPrompt what="accept this challenge" />
              )
            ) : null}
            <ErrorMessage error={accept.error} />
          </div>
        )}
      </Loaded>
    </div>
  );
}
