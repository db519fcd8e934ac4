import { PagedList } from '../../components/Paged';
import { formatDate } from '../../lib/format';
import { usePagedApi } from '../../lib/hooks';

const WHAT: Record<string, string> = {
  account_created: 'Account created',
  login: 'Signed in',
  login_challenged: 'Password accepted, second factor asked',
  login_failed: 'Failed sign-in',
  login_throttled: 'Sign-in slowed down after failures',
  rate_limited: 'Requests over the rate limit',
  session_ended: 'Session ended',
  password_changed: 'Password changed',
  password_reset: 'Password reset by mail',
  email_verified: 'Email address confirmed',
  api_key_created: 'API key created',
  api_key_changed: 'API key changed',
  api_key_revoked: 'API key revoked',
  totp_added: 'Authenticator app added',
  totp_removed: 'Authenticator app removed',
  passkey_added: 'Passkey added',
  passkey_removed: 'Passkey removed',
  factor_verified: 'Second factor confirmed',
};

const METHOD: Record<string, string> = {
  password: 'with the password',
  'password+totp': 'with the password and an app code',
  'password+recovery_code': 'with the password and a recovery code',
  'password+passkey': 'with the password and a passkey',
  passkey: 'with a passkey',
  totp: 'with an app code',
  recovery_code: 'with a recovery code',
};

/** The one-line detail of an entry: how a sign-in was made, what failed, which key. */
function detailOf(details: Record<string, unknown> | null): string | null {
  if (!details) return null;
  if (typeof details.method === 'string') return METHOD[details.method] ?? null;
  if (typeof details.step === 'string')
    return `at the ${String(METHOD[details.step] ?? details.step).replace(/^with (the |an? )?/, '')}`;
  if (typeof details.name === 'string') return `“${details.name}”`;
  return null;
}

/** The account's security log: sign-ins, failures, sessions, keys, factors and throttling, newest first. */
export function SecurityLog() {
  const log = usePagedApi('/api/me/security-log', { params: { query: { limit: 20 } } });
  return (
    <section className="card" aria-labelledby="security-log-heading">
      <h2 id="security-log-heading">Security log</h2>
      <p className="muted">
        Every sign-in and failed attempt, and every change to your password, keys and factors, with where it
        came from. Anything you do not recognise: change your password and end the other sessions.
      </p>
      <PagedList list={log} empty="Nothing yet." more="Show older entries">
        {(entries) => (
          <ul className="plain rows" aria-label="Security log entries">
            {entries.map((entry) => {
              const detail = detailOf(entry.details);
              return (
                <li key={entry.id} className="row security-entry" data-testid="security-entry">
                  <div>
                    <strong>{WHAT[entry.kind] ?? entry.kind}</strong>
                    {detail ? <span> {detail}</span> : null}
                    <div className="muted small break">
                      {formatDate(entry.at)}
                      {entry.address ? ` from ${entry.address}` : ''}
                      {entry.userAgent ? ` · ${entry.userAgent}` : ''}
                    </div>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </PagedList>
    </section>
  );
}
