import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../api/client';
import { ErrorMessage } from '../../components/Status';
import { useAction } from '../../lib/hooks';

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
