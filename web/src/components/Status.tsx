import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiError } from '../api/client';
import { describeError } from '../lib/errors';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/**
 * An API failure in plain words (`describe`'s, or the app's usual ones), announced to screen readers, with a retry
 * where one makes sense.
 */
export function ErrorMessage({
  error,
  onRetry,
  describe = describeError,
}: {
  error: unknown;
  onRetry?: () => void;
  describe?: (error: unknown) => string;
}) {
  if (!error) return null;
  return (
    <div className="alert" role="alert">
      <span>{describe(error)}</span>
      {onRetry && !(error instanceof ApiError && error.unavailable) ? (
        <button type="button" className="link-button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function SignInPrompt({ what }: { what: string }) {
  const location = useLocation();
  const next = encodeURIComponent(location.pathname + location.search);
  return (
    <div className="card prompt">
      <p>
        <Link to={`/login?next=${next}`}>Log in</Link> or{' '}
        <Link to={`/register?next=${next}`}>create an account</Link> to {what}.
      </p>
    </div>
  );
}

/** Shows `children` once `data` is loaded, or the error, or a loading line. */
export function Loaded<T>({
  data,
  error,
  reload,
  children,
  label,
}: {
  data: T | undefined;
  error: unknown;
  reload?: () => void;
  children: (data: T) => ReactNode;
  label?: string;
}) {
  if (data !== undefined) return <>{children(data)}</>;
  if (error) return <ErrorMessage error={error} onRetry={reload} />;
  return <Loading label={label} />;
}
