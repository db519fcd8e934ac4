import { useState } from 'react';
import { apiClient, typed } from '../../../api/client';
import type { Outcome } from '../../../api/console-types';
import type { MarketDetail } from '../../../api/types';
import { ConfirmButton } from '../../../components/Confirm';

/** An event of independent options resolves with an outcome for each: YES, NO or VOID. */
export function ResolveForm({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const chosen = event.options.flatMap((option) => {
    const outcome = outcomes[option.id];
    return outcome ? [{ optionId: option.id, outcome }] : [];
  });
  const complete = chosen.length === event.options.length;
  return (
    <fieldset>
      <legend>Resolve: an outcome for every option</legend>
      {event.options.map((option) => (
        <div className="field inline" key={option.id}>
          <label htmlFor={`outcome-${option.id}`}>Outcome of {option.label}</label>
          <select
            id={`outcome-${option.id}`}
            value={outcomes[option.id] ?? ''}
            onChange={(e) => setOutcomes({ ...outcomes, [option.id]: e.target.value as Outcome })}
          >
            <option value="">choose…</option>
            <option value="YES">YES</option>
            <option value="NO">NO</option>
            <option value="VOID">VOID (refund 50 a share)</option>
          </select>
        </div>
      ))}
      <ConfirmButton
        label="Resolve"
        title="Resolve this event?"
        disabled={!complete}
        describe={() => (
          <p>
            {event.options.map((option) => `${option.label}: ${outcomes[option.id]}`).join(', ')}. Trading
            stops; holders may dispute during the dispute window, then the event settles.
          </p>
        )}
        onConfirm={async () =>
          onDone(
            await typed(
              apiClient.POST('/api/admin/events/{id}/resolve', {
                params: { path: { id: event.id } },
                body: { outcomes: chosen },
              }),
            ),
          )
        }
      />
    </fieldset>
  );
}
