import { apiClient, sessionToken, typed } from '../../api/client';
import type { SignedInSession } from '../../api/console-types';
import { ErrorMessage, Loaded } from '../../components/Status';
import { formatDate } from '../../lib/format';
import { useAction, useApi } from '../../lib/hooks';

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
