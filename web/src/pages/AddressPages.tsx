import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useAuth } from '../auth';
import { PasswordFeedback } from '../components/PasswordFeedback';
import { ErrorMessage } from '../components/Status';
import { useAction, useDocumentTitle } from '../lib/hooks';

/** The token of a mailed link: it travels in the fragment (`#token=…`), which browsers send to no server. */
function useLinkToken(): string {
  const { hash } = useLocation();
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}

/** The page a verification link opens: it proves the address at once, and says so. */
export function VerifyEmailPage() {
  useDocumentTitle('Confirm your email');
  const token = useLinkToken();
  const { refresh } = useAuth();
  const verify = useAction(async () => {
    await typed(apiClient.POST('/api/auth/verify-email', { body: { token } }));
    refresh();
    return true;
  });
  const [done, setDone] = useState(false);
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !token) return;
    started.current = true;
    void verify.run().then((ok) => setDone(ok === true));
  }, [token, verify]);
  return (
    <div className="page auth-page">
      <div className="card stack">
        <h1>Confirm your email</h1>
        {!token ? (
          <p className="alert" role="alert">
            This page needs the link from the mail we sent you. Open the link itself, or copy all of it.
          </p>
        ) : done ? (
          <p className="flash" role="status">
            Your email address is confirmed. You can now create API keys and webhooks and stake credits in
            challenges.
          </p>
        ) : verify.pending || !verify.error ? (
          <p role="status">Confirming your address…</p>
        ) : (
          <ErrorMessage error={verify.error} />
        )}
        <p>
          <Link to="/">Go to the markets</Link> · <Link to="/account">Your account</Link>
        </p>
      </div>
    </div>
  );
}

export function ForgotPasswordPage() {
  useDocumentTitle('Forgot your password');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const submit = useAction(async () => {
    const answer = await typed(
      apiClient.POST('/api/auth/forgot-password', { body: { email: email.trim() } }),
    );
    setSent(answer.message);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit.run();
  };
  return (
    <div className="page auth-page">
      <div className="card">
        <h1>Forgot your password?</h1>
        {sent ? (
          <p className="flash" role="status">
            {sent} The link works once, within an hour. Nothing arrived? Look in your spam folder, or ask
            again in a minute.
          </p>
        ) : (
          <form onSubmit={onSubmit} className="stack">
            <p className="muted">We will mail you a link to choose a new one.</p>
            <div className="field">
              <label htmlFor="forgot-email">Email</label>
              <input
                id="forgot-email"
                type="email"
                autoComplete="email"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </div>
            <ErrorMessage error={submit.error} />
            <button type="submit" className="button block" disabled={submit.pending}>
              {submit.pending ? 'Sending…' : 'Mail me a link'}
            </button>
          </form>
        )}
        <p>
          Remembered it? <Link to="/login">Log in</Link>
        </p>
      </div>
    </div>
  );
}

export function ResetPasswordPage() {
  useDocumentTitle('Choose a new password');
  const token = useLinkToken();
  const [password, setPassword] = useState('');
  const [ended, setEnded] = useState<number | null>(null);
  const submit = useAction(async () => {
    const answer = await typed(apiClient.POST('/api/auth/reset-password', { body: { token, password } }));
    setEnded(answer.endedSessions);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit.run();
  };
  return (
    <div className="page auth-page">
      <div className="card">
        <h1>Choose a new password</h1>
        {ended !== null ? (
          <p className="flash" role="status">
            Your password is changed{ended > 0 ? ` and every signed-in session (${ended}) has ended` : ''}.{' '}
            <Link to="/login">Log in with it</Link>.
          </p>
        ) : !token ? (
          <p className="alert" role="alert">
            This page needs the link from the mail we sent you.{' '}
            <Link to="/forgot-password">Ask for a new link</Link>.
          </p>
        ) : (
          <form onSubmit={onSubmit} className="stack">
            <div className="field">
              <label htmlFor="reset-password">New password</label>
              <input
                id="reset-password"
                type="password"
                autoComplete="new-password"
                required
                minLength={8}
                maxLength={128}
                aria-describedby="reset-password-hint"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <PasswordFeedback id="reset-password-hint" password={password} details={{}} />
            </div>
            <ErrorMessage error={submit.error} />
            <button type="submit" className="button block" disabled={submit.pending}>
              {submit.pending ? 'Saving…' : 'Save the new password'}
            </button>
          </form>
        )}
      </div>
    </div>
  );
}
