import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { Session } from '../api/types';
import { type LoginChallenge, useAuth } from '../auth';
import { PasswordFeedback } from '../components/PasswordFeedback';
import { ErrorMessage } from '../components/Status';
import { formatCredits } from '../lib/format';
import { useAction, useDocumentTitle } from '../lib/hooks';
import { passkeysSupported } from '../lib/passkeys';
import { SecondStep } from './SecondStep';

/** Where to go after signing in: a path inside the app only, never another site. */
function nextPath(params: URLSearchParams): string {
  const next = params.get('next') ?? '/';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function LoginPage() {
  useDocumentTitle('Log in');
  const { login, signInWithPasskey } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<LoginChallenge | null>(null);
  const signedIn = (session: Session) => {
    const streak = session.streak;
    const message =
      streak && streak.awardedCents > 0
        ? `Day ${streak.current} of your streak: ${formatCredits(streak.awardedCents)} added.`
        : undefined;
    navigate(nextPath(params), { state: message ? { flash: message } : undefined });
  };
  const submit = useAction(async () => {
    const answer = await login(email.trim(), password);
    if ('challengeToken' in answer) setChallenge(answer);
    else signedIn(answer);
  });
  const withPasskey = useAction(async () => signedIn(await signInWithPasskey()));
  if (challenge !== null) return <SecondStep challenge={challenge} onSignedIn={signedIn} />;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit.run();
  };
  return (
    <div className="page auth-page">
      <div className="card">
        <h1>Log in</h1>
        <form onSubmit={onSubmit} className="stack">
          <div className="field">
            <label htmlFor="login-email">Email</label>
            <input
              id="login-email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="login-password">Password</label>
            <input
              id="login-password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </div>
          <ErrorMessage error={submit.error} />
          <button type="submit" className="button block" disabled={submit.pending}>
            {submit.pending ? 'Logging in…' : 'Log in'}
          </button>
        </form>
        {passkeysSupported() ? (
          <div className="stack">
            <button
              type="button"
              className="button ghost block"
              disabled={withPasskey.pending}
              onClick={() => void withPasskey.run()}
            >
              Sign in with a passkey
            </button>
            <ErrorMessage error={withPasskey.error} />
          </div>
        ) : null}
        <p>
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
        <p>
          New here? <Link to={`/register${params.toString() ? `?${params}` : ''}`}>Create an account</Link>
        </p>
      </div>
    </div>
  );
}

/** The new account as typed (a referral code from the link), and its creation, then on to where the visitor was going. */
function useRegistration() {
  const { register } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [referralCode, setReferralCode] = useState(params.get('ref') ?? '');
  const inviteCode = params.get('invite') ?? '';
  const submit = useAction(async () => {
    await register({
      email: email.trim(),
      password,
      ...(username.trim() ? { username: username.trim() } : {}),
      ...(referralCode.trim() ? { referralCode: referralCode.trim() } : {}),
      ...(inviteCode ? { inviteCode } : {}),
    });
    navigate(nextPath(params), { state: { flash: 'Welcome! Your starting credits are ready to trade.' } });
  });
  return {
    params,
    inviteCode,
    fields: { email, username, password, referralCode },
    set: { setEmail, setUsername, setPassword, setReferralCode },
    pending: submit.pending,
    error: submit.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      void submit.run();
    },
  };
}

/** The account's name: the email to sign in with, and the public username. */
function IdentityFields({ form }: { form: ReturnType<typeof useRegistration> }) {
  const { fields, set } = form;
  return (
    <>
      <div className="field">
        <label htmlFor="register-email">Email</label>
        <input
          id="register-email"
          type="email"
          autoComplete="email"
          required
          value={fields.email}
          onChange={(e) => set.setEmail(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="register-username">Username (optional)</label>
        <input
          id="register-username"
          autoComplete="username"
          pattern="[A-Za-z0-9_]{3,30}"
          aria-describedby="register-username-hint"
          value={fields.username}
          onChange={(e) => set.setUsername(e.target.value)}
        />
        <span id="register-username-hint" className="muted small">
          3 to 30 letters, digits or _. Shown on leaderboards.
        </span>
      </div>
    </>
  );
}

export function RegisterPage() {
  useDocumentTitle('Create an account');
  const form = useRegistration();
  const { params, inviteCode, fields, set } = form;
  return (
    <div className="page auth-page">
      <div className="card">
        <h1>Create an account</h1>
        {inviteCode ? (
          <p className="notice">You will accept challenge {inviteCode} when your account is created.</p>
        ) : null}
        <form onSubmit={form.submit} className="stack">
          <IdentityFields form={form} />
          <div className="field">
            <label htmlFor="register-password">Password</label>
            <input
              id="register-password"
              type="password"
              autoComplete="new-password"
              required
              minLength={8}
              maxLength={128}
              aria-describedby="register-password-hint"
              value={fields.password}
              onChange={(e) => set.setPassword(e.target.value)}
            />
            <PasswordFeedback
              id="register-password-hint"
              password={fields.password}
              details={{ email: fields.email.trim(), username: fields.username.trim() }}
            />
          </div>
          <div className="field">
            <label htmlFor="register-ref">Referral code (optional)</label>
            <input
              id="register-ref"
              value={fields.referralCode}
              maxLength={32}
              onChange={(e) => set.setReferralCode(e.target.value)}
            />
          </div>
          <ErrorMessage error={form.error} />
          <button type="submit" className="button block" disabled={form.pending}>
            {form.pending ? 'Creating…' : 'Create account'}
          </button>
        </form>
        <p>
          Already have an account? <Link to={`/login${params.toString() ? `?${params}` : ''}`}>Log in</Link>
        </p>
      </div>
    </div>
  );
}
