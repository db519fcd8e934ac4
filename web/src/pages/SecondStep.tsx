import { type FormEvent, useState } from 'react';
import type { Session } from '../api/types';
import { type LoginChallenge, useAuth } from '../auth';
import { ErrorMessage } from '../components/Status';
import { useAction } from '../lib/hooks';
import { passkeysSupported } from '../lib/passkeys';

/**
 * The second step of a login for an account with a second factor: a passkey on this device, a code from the app,
 * or a recovery code (each works once).
 */
export function SecondStep({
  challenge,
  onSignedIn,
}: {
  challenge: LoginChallenge;
  onSignedIn: (session: Session) => void;
}) {
  const { proveLogin } = useAuth();
  const hasApp = challenge.factors.includes('totp');
  const hasPasskey = challenge.factors.includes('passkey') && passkeysSupported();
  const [recovery, setRecovery] = useState(!hasApp);
  const [value, setValue] = useState('');
  const submit = useAction(async () => {
    const proof = recovery ? { recoveryCode: value.trim() } : { code: value.replace(/\s/g, '') };
    onSignedIn(await proveLogin(challenge.challengeToken, proof));
  });
  const passkey = useAction(async () => onSignedIn(await proveLogin(challenge.challengeToken, 'passkey')));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit.run();
  };
  return (
    <div className="page auth-page">
      <div className="card">
        <h1>Second step</h1>
        {hasPasskey ? (
          <div className="stack">
            <button
              type="button"
              className="button block"
              disabled={passkey.pending}
              onClick={() => void passkey.run()}
            >
              {passkey.pending ? 'Waiting for your passkey…' : 'Use a passkey'}
            </button>
            <ErrorMessage error={passkey.error} />
            <p className="muted">Or enter a code:</p>
          </div>
        ) : null}
        <form onSubmit={onSubmit} className="stack">
          <div className="field">
            <label htmlFor="login-factor">
              {recovery ? 'A recovery code' : 'The 6-digit code from your authenticator app'}
            </label>
            <input
              id="login-factor"
              autoComplete="one-time-code"
              inputMode={recovery ? 'text' : 'numeric'}
              required
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
          </div>
          <ErrorMessage error={submit.error} />
          <button
            type="submit"
            className={hasPasskey ? 'button ghost block' : 'button block'}
            disabled={submit.pending}
          >
            {submit.pending ? 'Checking…' : 'Log in'}
          </button>
        </form>
        {hasApp ? (
          <p>
            <button type="button" className="link-button" onClick={() => setRecovery(!recovery)}>
              {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
            </button>
          </p>
        ) : null}
      </div>
    </div>
  );
}
