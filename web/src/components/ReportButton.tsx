import { type FormEvent, useId, useState } from 'react';
import { apiClient, typed } from '../api/client';
import type { ReportTarget } from '../api/console-types';
import { useAuth } from '../auth';
import { useAction } from '../lib/hooks';
import { ErrorMessage } from './Status';

const WHAT: Record<ReportTarget, string> = { POST: 'post', COMMENT: 'comment', USER: 'user' };

/** Report a post, comment or user to the moderators, with a reason. */
export function ReportButton({ targetType, targetId }: { targetType: ReportTarget; targetId: string }) {
  const { signedIn } = useAuth();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState(false);
  const send = useAction(async () => {
    await typed(apiClient.POST('/api/reports', { body: { targetType, targetId, reason: reason.trim() } }));
    setSent(true);
    setOpen(false);
  });
  if (!signedIn) return null;
  if (sent) {
    return (
      <span className="muted small" role="status">
        Reported. Thank you.
      </span>
    );
  }
  if (!open) {
    return (
      <button type="button" className="link-button small" onClick={() => setOpen(true)}>
        Report<span className="visually-hidden"> this {WHAT[targetType]}</span>
      </button>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim()) void send.run();
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Report this ${WHAT[targetType]}`}>
      <div className="field">
        <label htmlFor={id}>Why are you reporting this {WHAT[targetType]}?</label>
        <input id={id} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
      </div>
      <button type="submit" className="button small" disabled={!reason.trim() || send.pending}>
        Send report
      </button>
      <button type="button" className="button small ghost" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorMessage error={send.error} />
    </form>
  );
}
