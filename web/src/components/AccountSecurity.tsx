import { type FormEvent, type ReactNode, useState } from 'react';
import { apiClient, sessionToken, typed } from '../api/client';
import type { Delivery, SignedInSession } from '../api/console-types';
import { formatDate } from '../lib/format';
import { useAction, useApi, usePagedApi } from '../lib/hooks';
import { PagedList } from './Paged';
import { Empty, ErrorMessage, Loaded } from './Status';

/** Change the password: the current one is required, and every other session ends. */
export function ChangePassword({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [ended, setEnded] = useState<number | null>(null);
  const change = useAction(async () => {
    const result = await typed(
      apiClient.POST('/api/me/password', { body: { currentPassword: current, newPassword: next } }),
    );
    setCurrent('');
    setNext('');
    setEnded(result.endedSessions);
    onChanged();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setEnded(null);
    void change.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Change password">
      <div className="field-row">
        <div className="field">
          <label htmlFor="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="new-password">New password (8 or more characters)</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            minLength={8}
            maxLength={128}
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
        </div>
      </div>
      <div>
        <button type="submit" className="button" disabled={change.pending || !current || next.length < 8}>
          Change password
        </button>
      </div>
      {ended !== null ? (
        <p className="success" role="status">
          Password changed.{' '}
          {ended === 0 ? 'No other session was signed in.' : `${ended} other session(s) ended.`}
        </p>
      ) : null}
      <ErrorMessage error={change.error} />
    </form>
  );
}

/** Where the account is signed in, and a way to end each session. */
export function Sessions() {
  const sessions = useApi('/api/me/sessions');
  const end = useAction(async (session: SignedInSession) => {
    await typed(apiClient.DELETE('/api/me/sessions/{id}', { params: { path: { id: session.id } } }));
    if (session.current) sessionToken.set(null);
    else sessions.reload();
  });
  return (
    <Loaded data={sessions.data} error={sessions.error} reload={sessions.reload}>
      {({ data }) => (
        <div>
          <ul className="plain rows sessions" aria-label="Signed-in sessions">
            {data.map((session) => (
              <li key={session.id} className="row" data-testid="session-row">
                <div className="session-facts">
                  <strong className="break">{session.userAgent ?? 'Unknown client'}</strong>
                  {session.current ? <span className="tag">this browser</span> : null}
                  <div className="muted small">
                    Signed in {formatDate(session.createdAt)}
                    {session.createdFrom ? ` from ${session.createdFrom}` : ''}
                  </div>
                  <div className="muted small">
                    Last used {session.lastUsedAt ? formatDate(session.lastUsedAt) : 'never'}
                    {session.lastUsedFrom ? ` from ${session.lastUsedFrom}` : ''}
                  </div>
                </div>
                <button
                  type="button"
                  className="button small ghost danger"
                  disabled={end.pending}
                  onClick={() => void end.run(session)}
                >
                  {session.current ? 'Log out here' : 'End session'}
                </button>
              </li>
            ))}
          </ul>
          <ErrorMessage error={end.error} />
        </div>
      )}
    </Loaded>
  );
}

/** One delivery: its event type, time, state and every attempt with its outcome. */
export function DeliveryAttempts({
  delivery,
  children,
}: {
  delivery: Pick<Delivery, 'type' | 'createdAt' | 'status' | 'nextAttemptAt' | 'attempts'>;
  children?: ReactNode;
}) {
  return (
    <div>
      <code>{delivery.type}</code> · {formatDate(delivery.createdAt)} ·{' '}
      <span className={`status-pill ${delivery.status}`}>{delivery.status}</span>
      {delivery.nextAttemptAt ? (
        <span className="muted small"> · next attempt {formatDate(delivery.nextAttemptAt)}</span>
      ) : null}
      {children}
      {delivery.attempts.length === 0 ? (
        <Empty>Not attempted yet.</Empty>
      ) : (
        <ol className="small">
          {delivery.attempts.map((attempt) => (
            <li key={attempt.attemptedAt}>
              {formatDate(attempt.attemptedAt)}:{' '}
              {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : 'no answer'}
              {attempt.error ? ` (${attempt.error})` : ''} in {attempt.durationMs} ms
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** A webhook's deliveries, newest first, each with every attempt and its outcome. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const deliveries = usePagedApi('/api/me/webhooks/{id}/deliveries', {
    params: { path: { id: webhookId }, query: { limit: 20 } },
  });
  return (
    <PagedList list={deliveries} empty="Nothing delivered yet.">
      {(items) => (
        <ul className="plain rows" aria-label="Deliveries">
          {items.map((delivery) => (
            <li key={delivery.id} className="row" data-testid="delivery">
              <DeliveryAttempts delivery={delivery} />
            </li>
          ))}
        </ul>
      )}
    </PagedList>
  );
}
