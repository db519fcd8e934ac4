import { useState } from 'react';
import { Link } from 'react-router';
import { apiClient, typed } from '../../api/client';
import type { Dispute, Outcome } from '../../api/console-types';
import type { MarketDetail } from '../../api/types';
import { ConfirmButton } from '../../components/Confirm';
import { PagedList } from '../../components/Paged';
import { Loaded } from '../../components/Status';
import { formatDate } from '../../lib/format';
import { useApi, useDocumentTitle, usePagedApi } from '../../lib/hooks';
import { QueueHeading, StatusPill } from './AdminLayout';
import { currentWinner, describeWinner, outcomesOfWinner, type Winner, WinnerPicker } from './Winner';

/** The decision on a dispute: the corrected result (used if upheld), the note to the disputer, and the sending. */
function useDisputeDecision(dispute: Dispute, onDecided: () => void) {
  const event = useApi('/api/admin/events/{id}', { params: { path: { id: dispute.eventId } } });
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const [winner, setWinner] = useState<Winner | null>(null);
  const [note, setNote] = useState('');
  /** The corrected outcomes: an exclusive event's one winner (or none), else each option's. */
  const corrected = (event: MarketDetail) => {
    if (event.exclusive) {
      const chosen = winner ?? currentWinner(event.options) ?? 'VOID';
      return outcomesOfWinner(event.options, chosen);
    }
    // An option without a resolution yet shows VOID in its select, so that is what is sent.
    return event.options.map((o) => ({ optionId: o.id, outcome: outcomes[o.id] ?? o.resolution ?? 'VOID' }));
  };
  const decide = (decision: 'upheld' | 'rejected', event: MarketDetail) => async () => {
    await typed(
      apiClient.POST('/api/admin/disputes/{id}/decide', {
        params: { path: { id: dispute.id } },
        body: {
          decision,
          ...(note.trim() ? { note: note.trim() } : {}),
          ...(decision === 'upheld' ? { outcomes: corrected(event) } : {}),
        },
      }),
    );
    onDecided();
  };
  return { event, outcomes, setOutcomes, winner, setWinner, note, setNote, decide };
}

/** An event of independent options: each option's corrected outcome, starting from its resolution. */
function CorrectedOutcomes({
  disputeId,
  event,
  outcomes,
  onOutcomes,
}: {
  disputeId: string;
  event: MarketDetail;
  outcomes: Record<string, Outcome>;
  onOutcomes: (outcomes: Record<string, Outcome>) => void;
}) {
  return (
    <fieldset>
      <legend>Corrected outcomes (used if upheld)</legend>
      {event.options.map((option) => (
        <div className="field inline" key={option.id}>
          <label htmlFor={`dispute-${disputeId}-${option.id}`}>
            {option.label} (now {option.resolution})
          </label>
          <select
            id={`dispute-${disputeId}-${option.id}`}
            value={outcomes[option.id] ?? option.resolution ?? 'VOID'}
            onChange={(ev) => onOutcomes({ ...outcomes, [option.id]: ev.target.value as Outcome })}
          >
            <option value="YES">YES</option>
            <option value="NO">NO</option>
            <option value="VOID">VOID</option>
          </select>
        </div>
      ))}
    </fieldset>
  );
}

function Decision({ dispute, onDecided }: { dispute: Dispute; onDecided: () => void }) {
  const { event, outcomes, winner, note, decide, ...set } = useDisputeDecision(dispute, onDecided);
  return (
    <Loaded data={event.data} error={event.error} reload={event.reload}>
      {(e) => (
        <div className="stack">
          {e.exclusive ? (
            <WinnerPicker
              name={`dispute-${dispute.id}-winner`}
              legend="Corrected winner (used if upheld): exactly one option wins"
              options={e.options}
              winner={winner ?? currentWinner(e.options)}
              onWinner={set.setWinner}
            />
          ) : (
            <CorrectedOutcomes
              disputeId={dispute.id}
              event={e}
              outcomes={outcomes}
              onOutcomes={set.setOutcomes}
            />
          )}
          <div className="field">
            <label htmlFor={`dispute-note-${dispute.id}`}>Note to the disputer (optional)</label>
            <input
              id={`dispute-note-${dispute.id}`}
              value={note}
              maxLength={2000}
              onChange={(ev) => set.setNote(ev.target.value)}
            />
          </div>
          <div className="actions">
            <ConfirmButton
              label="Uphold"
              title="Uphold this dispute?"
              describe={() => (
                <p>
                  {e.exclusive
                    ? `The result becomes: ${describeWinner(e.options, winner ?? currentWinner(e.options) ?? 'VOID')}`
                    : `The outcomes become ${e.options.map((o) => `${o.label}: ${outcomes[o.id] ?? o.resolution}`).join(', ')}.`}{' '}
                  The dispute window starts again. Nothing has been paid yet.
                </p>
              )}
              onConfirm={decide('upheld', e)}
            />
            <ConfirmButton
              label="Reject"
              title="Reject this dispute?"
              describe={() => <p>The outcome stands and settlement proceeds. The disputer is told.</p>}
              onConfirm={decide('rejected', e)}
            />
          </div>
        </div>
      )}
    </Loaded>
  );
}

export function AdminDisputesPage() {
  useDocumentTitle('Console · Disputes');
  const [status, setStatus] = useState<Dispute['status'] | ''>('pending');
  const disputes = usePagedApi('/api/admin/disputes', { params: { query: { status: status || undefined } } });
  return (
    <section className="card" aria-labelledby="dispute-heading">
      <QueueHeading
        id="dispute"
        title="Disputes"
        status={status}
        statuses={['pending', 'upheld', 'rejected'] as const}
        allValue={''}
        onStatus={setStatus}
      />
      <PagedList list={disputes} empty="No disputes.">
        {(items) => (
          <ul className="plain rows">
            {items.map((dispute) => (
              <li key={dispute.id} className="card" data-testid="dispute">
                <div className="section-head">
                  <div>
                    <Link to={`/admin/events/${dispute.eventId}`}>{dispute.eventSlug}</Link> · by{' '}
                    {dispute.username ?? dispute.userId} · {formatDate(dispute.createdAt)}
                  </div>
                  <StatusPill status={dispute.status} />
                </div>
                <p>{dispute.reason}</p>
                {dispute.evidenceUrl ? (
                  <p className="small">
                    Evidence: <a href={dispute.evidenceUrl}>{dispute.evidenceUrl}</a>
                  </p>
                ) : null}
                {dispute.decisionNote ? <p className="muted">Decision: {dispute.decisionNote}</p> : null}
                {dispute.status === 'pending' ? (
                  <Decision dispute={dispute} onDecided={disputes.reload} />
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}
