import { useEffect, useState } from 'react';
import { apiClient, typed } from '../api/client';

interface Strength {
  score: number;
  acceptable: boolean;
  warning: string | null;
  suggestions: string[];
}

const LABELS = ['Very weak', 'Weak', 'Fair', 'Strong', 'Very strong'];
/** How long typing pauses before the password is judged, so that not every key press asks the server. */
const PAUSE_MS = 300;

/**
 * How hard the password being typed is to guess, judged by the server as registration will judge it (with the
 * account's own email and name counting as guessed): a meter, and what to do about a weak one.
 */
export function PasswordFeedback({
  id,
  password,
  details,
}: {
  id: string;
  password: string;
  details: { email?: string; username?: string };
}) {
  const [strength, setStrength] = useState<Strength | null>(null);
  const { email, username } = details;
  useEffect(() => {
    if (password.length < 8) {
      setStrength(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      const body = { password, ...(email ? { email } : {}), ...(username ? { username } : {}) };
      typed(apiClient.POST('/api/auth/password-strength', { body })).then(
        (answer) => current && setStrength(answer),
        () => current && setStrength(null),
      );
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [password, email, username]);

  if (password.length < 8) {
    return (
      <span id={id} className="muted small">
        At least 8 characters; a few unrelated words together are easy to remember and hard to guess.
      </span>
    );
  }
  if (!strength) return <span id={id} className="muted small" />;
  const advice = [strength.warning, ...strength.suggestions].filter(Boolean).join(' ');
  return (
    <span id={id} className="password-feedback small" aria-live="polite">
      <meter
        min={0}
        max={4}
        low={2}
        high={3}
        optimum={4}
        value={strength.score}
        aria-label="Password strength"
      />
      <span className={strength.acceptable ? 'strength-ok' : 'strength-weak'}>
        {LABELS[strength.score] ?? ''}
        {strength.acceptable ? '' : ': choose a harder one.'}
      </span>
      {advice ? <span className="muted"> {advice}</span> : null}
    </span>
  );
}
