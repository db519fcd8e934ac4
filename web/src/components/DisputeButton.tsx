import { type FormEvent, useId, useState } from 'react';
import { apiClient, typed } from '../api/client';
import type { MarketDetail } from '../api/types';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/hooks';
import { ErrorMessage } from './Status';

/**
 * For a trader who holds or held a position in a resolved market, inside the dispute window: contest the result
 * with a reason (the API's rule).
 */
export function DisputeButton({ market, heldPosition }: { market: MarketDetail; heldPosition: boolean }) {
  const ids = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [evidence, setEvidence] = useState('');
  const [filed, setFiled] = useState(false);
  const file = useAction(async () => {
    await typed(
      apiClient.POST('/api/events/{id}/dispute', {
        params: { path: { id: market.id } },
        body: { reason: reason.trim(), ...(evidence.trim() ? { evidenceUrl: evidence.trim() } : {}) },
      }),
    );
    setFiled(true);
    setOpen(false);
  });
  const windowEnds = market.disputeWindowEndsAt ? Date.parse(market.disputeWindowEndsAt) : 0;
  if (market.status !== 'resolved' || !heldPosition || windowEnds <= Date.now()) return null;
  if (filed) {
    return (
      <p className="success" role="status">
        Dispute filed. Settlement waits until an operator has decided it.
      </p>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim()) void file.run();
  };
  return (
    <div className="dispute">
      {open ? (
        <form onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor={`${ids}-reason`}>Why is the result wrong?</label>
            <textarea
              id={`${ids}-reason`}
              required
              maxLength={2000}
              rows={3}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${ids}-evidence`}>Link to evidence (optional)</label>
            <input
              id={`${ids}-evidence`}
              type="url"
              placeholder="https://"
              value={evidence}
              onChange={(event) => setEvidence(event.target.value)}
            />
          </div>
          <div className="actions">
            <button type="submit" className="button" disabled={!reason.trim() || file.pending}>
              {file.pending ? 'Filing…' : 'File dispute'}
            </button>
            <button type="button" className="link-button" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
          <ErrorMessage error={file.error} />
        </form>
      ) : (
        <>
          <button type="button" className="button ghost" onClick={() => setOpen(true)}>
            Dispute the result
          </button>
          <p className="muted small">Open until {formatDate(market.disputeWindowEndsAt)}.</p>
        </>
      )}
    </div>
  );
}
