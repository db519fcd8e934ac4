import { type ReactNode, useId, useState } from 'react';
import { ErrorMessage } from './Status';

/**
 * A button for an action that cannot be undone: the first click opens a confirmation that says what will happen
 * (`describe`, read fresh when it opens), and only "Confirm" runs it.
 */
export function ConfirmButton({
  label,
  title,
  describe,
  onConfirm,
  danger = true,
  disabled = false,
}: {
  label: string;
  title: string;
  describe: () => ReactNode;
  onConfirm: () => Promise<unknown>;
  danger?: boolean;
  disabled?: boolean;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setPending(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (reason) {
      setError(reason);
    } finally {
      setPending(false);
    }
  };
  if (!open) {
    return (
      <button
        type="button"
        className={danger ? 'button small ghost danger' : 'button small'}
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
    >
      <p id={`${id}-title`}>
        <strong>{title}</strong>
      </p>
      <div id={`${id}-text`}>{describe()}</div>
      <ErrorMessage error={error} />
      <div className="confirm-actions">
        <button
          type="button"
          className={danger ? 'button small solid-danger' : 'button small'}
          disabled={pending}
          onClick={() => void confirm()}
        >
          {pending ? 'Working…' : 'Confirm'}
        </button>
        <button
          type="button"
          className="button small ghost"
          disabled={pending}
          onClick={() => setOpen(false)}
        >
          Cancel
        </button>
      </div>
    </div>
  );
}
