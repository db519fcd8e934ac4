import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { apiClient, typed } from '../api/client';
import type { CopyFollow } from '../api/console-types';
import { useAuth } from '../auth';
import { PagedList } from '../components/Paged';
import { Empty, ErrorMessage, Loaded, SignInPrompt } from '../components/Status';
import { formatCredits, formatDate, formatPrice } from '../lib/format';
import { useAction, useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';
import { invalidate } from '../lib/query';

/** A trader to copy as typed: how big each copy is, and the limits per copy and per day; then the saving. */
function useFollowForm(initial: string, onSaved: () => void) {
  const [leader, setLeader] = useState(initial);
  const [mode, setMode] = useState<'fixed' | 'fraction'>('fixed');
  const [quantity, setQuantity] = useState('5');
  const [percent, setPercent] = useState('50');
  const [maxQuantity, setMaxQuantity] = useState('100');
  const [daily, setDaily] = useState('100');
  const save = useAction(async () => {
    await typed(
      apiClient.POST('/api/copy-trader', {
        body: {
          leaderUsername: leader.trim(),
          sizing:
            mode === 'fixed'
              ? { mode, quantity: Number(quantity) }
              : { mode, fractionBps: Math.round(Number(percent) * 100) },
          maxQuantityPerTrade: Number(maxQuantity),
          dailyLimitCents: Math.round(Number(daily) * 100),
          enabled: true,
        },
      }),
    );
    onSaved();
  });
  return {
    fields: { leader, mode, quantity, percent, maxQuantity, daily },
    set: { setLeader, setMode, setQuantity, setPercent, setMaxQuantity, setDaily },
    pending: save.pending,
    error: save.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      void save.run();
    },
  };
}
type FollowFormState = ReturnType<typeof useFollowForm>;

/** Each copy's size: a fixed number of shares, or a share of the trader's quantity. */
function CopySizing({ form }: { form: FollowFormState }) {
  const { fields, set } = form;
  return (
    <fieldset>
      <legend>Size of each copy</legend>
      <label className="check">
        <input
          type="radio"
          name="sizing"
          checked={fields.mode === 'fixed'}
          onChange={() => set.setMode('fixed')}
        />
        A fixed number of shares
      </label>
      <label className="check">
        <input
          type="radio"
          name="sizing"
          checked={fields.mode === 'fraction'}
          onChange={() => set.setMode('fraction')}
        />
        A share of the trader’s quantity
      </label>
      {fields.mode === 'fixed' ? (
        <div className="field">
          <label htmlFor="copy-quantity">Shares per copy</label>
          <input
            id="copy-quantity"
            inputMode="numeric"
            value={fields.quantity}
            onChange={(e) => set.setQuantity(e.target.value)}
          />
        </div>
      ) : (
        <div className="field">
          <label htmlFor="copy-percent">Percent of the trader’s quantity</label>
          <input
            id="copy-percent"
            inputMode="decimal"
            value={fields.percent}
            onChange={(e) => set.setPercent(e.target.value)}
          />
        </div>
      )}
    </fieldset>
  );
}

function FollowForm({ initial, onSaved }: { initial: string; onSaved: () => void }) {
  const form = useFollowForm(initial, onSaved);
  const { fields, set } = form;
  return (
    <form className="stack" onSubmit={form.submit} aria-label="Copy a trader">
      <div className="field">
        <label htmlFor="copy-leader">Trader’s username</label>
        <input id="copy-leader" value={fields.leader} onChange={(e) => set.setLeader(e.target.value)} />
      </div>
      <CopySizing form={form} />
      <div className="field-row">
        <div className="field">
          <label htmlFor="copy-max">Most shares per copy</label>
          <input
            id="copy-max"
            inputMode="numeric"
            value={fields.maxQuantity}
            onChange={(e) => set.setMaxQuantity(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="copy-daily">Most credits spent per day</label>
          <input
            id="copy-daily"
            inputMode="decimal"
            value={fields.daily}
            onChange={(e) => set.setDaily(e.target.value)}
          />
        </div>
      </div>
      <div>
        <button type="submit" className="button" disabled={form.pending || !fields.leader.trim()}>
          Start copying
        </button>
      </div>
      <ErrorMessage error={form.error} />
    </form>
  );
}

function sizingText(follow: CopyFollow): string {
  return follow.sizing.mode === 'fixed'
    ? `${follow.sizing.quantity} shares a copy`
    : `${follow.sizing.fractionBps / 100}% of their quantity`;
}

function Following({ onChanged }: { onChanged: () => void }) {
  const follows = useApi('/api/copy-trader');
  const toggle = useAction(async (follow: CopyFollow) => {
    await typed(
      apiClient.POST('/api/copy-trader', { body: { leaderId: follow.leaderId, enabled: !follow.enabled } }),
    );
    onChanged();
  });
  const stop = useAction(async (follow: CopyFollow) => {
    await typed(
      apiClient.DELETE('/api/copy-trader/{leaderId}', { params: { path: { leaderId: follow.leaderId } } }),
    );
    onChanged();
  });
  return (
    <Loaded data={follows.data} error={follows.error} reload={follows.reload}>
      {({ data }) =>
        data.length === 0 ? (
          <Empty>You are not copying anyone.</Empty>
        ) : (
          <ul className="plain rows">
            {data.map((follow) => (
              <li key={follow.leaderId} className="row" data-testid="copy-follow">
                <div>
                  <Link to={`/users/${follow.leaderUsername}`}>{follow.leaderUsername}</Link>{' '}
                  <span className={`status-pill ${follow.enabled ? 'ok' : 'paused'}`}>
                    {follow.enabled ? 'copying' : 'paused'}
                  </span>
                  <div className="muted small">
                    {sizingText(follow)} · at most {follow.maxQuantityPerTrade} shares · spent{' '}
                    {formatCredits(follow.usedTodayCents)} of {formatCredits(follow.dailyLimitCents)} today
                  </div>
                </div>
                <div className="actions">
                  <button
                    type="button"
                    className="button small ghost"
                    onClick={() => void toggle.run(follow)}
                  >
                    {follow.enabled ? 'Pause' : 'Resume'}
                    <span className="visually-hidden"> copying {follow.leaderUsername}</span>
                  </button>
                  <button
                    type="button"
                    className="button small ghost danger"
                    onClick={() => void stop.run(follow)}
                  >
                    Stop copying<span className="visually-hidden"> {follow.leaderUsername}</span>
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )
      }
    </Loaded>
  );
}

function Copies() {
  const mirrors = usePagedApi('/api/copy-trader/mirrors');
  return (
    <PagedList list={mirrors} empty="Nothing copied yet.">
      {(items) => (
        <div className="table-wrap">
          <table className="data" aria-label="Copied trades">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Trader</th>
                <th scope="col">Their trade</th>
                <th scope="col">Your copy</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {items.map((m) => (
                <tr key={m.id} data-testid="mirror-row">
                  <td>{formatDate(m.createdAt)}</td>
                  <td>{m.leaderUsername}</td>
                  <td>
                    {m.action} {m.leaderQuantity} {m.side}{' '}
                    <Link to={`/markets/${m.eventSlug}`}>{m.optionLabel}</Link> at{' '}
                    {formatPrice(m.worstPriceCents)}
                  </td>
                  <td>{m.quantity !== null ? `${m.filledQuantity} of ${m.quantity} filled` : '—'}</td>
                  <td>
                    <span className={`status-pill ${m.status}`}>{m.status}</span>
                    {m.reason ? <div className="small">{m.reason}</div> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </PagedList>
  );
}

export function CopyTradingPage() {
  useDocumentTitle('Copy trading');
  const { signedIn } = useAuth();
  const [params] = useSearchParams();
  const bump = () => invalidate('/api/copy-trader', '/api/copy-trader/mirrors');
  if (!signedIn) {
    return (
      <div className="page narrow">
        <h1>Copy trading</h1>
        <SignInPrompt what="copy a trader" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Copy trading</h1>
      <section className="card" aria-labelledby="copy-new-heading">
        <h2 id="copy-new-heading">Copy a trader</h2>
        <p className="muted">
          Each of their trades is copied into your account within seconds, sized by your rule and never past
          your caps; a copy that would break a cap or find no price is skipped, with the reason below.
        </p>
        <FollowForm initial={params.get('trader') ?? ''} onSaved={bump} />
      </section>
      <section className="card" aria-labelledby="copy-following-heading">
        <h2 id="copy-following-heading">Traders you copy</h2>
        <Following onChanged={bump} />
      </section>
      <section className="card" aria-labelledby="copy-log-heading">
        <div className="section-head">
          <h2 id="copy-log-heading">Copied and skipped trades</h2>
          <button type="button" className="button small ghost" onClick={bump}>
            Refresh
          </button>
        </div>
        <Copies />
      </section>
    </div>
  );
}
