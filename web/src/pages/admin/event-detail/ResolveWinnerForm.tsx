import { useState } from 'react';
import { apiClient, typed } from '../../../api/client';
import type { MarketDetail } from '../../../api/types';
import { ConfirmButton } from '../../../components/Confirm';
import { describeWinner, outcomesOfWinner, type Winner, WinnerPicker } from '../Winner';

/** An exclusive event resolves with exactly one winner, or with every option VOID: the only results it takes. */
export function ResolveWinnerForm({
  event,
  onDone,
}: {
  event: MarketDetail;
  onDone: (e: MarketDetail) => void;
}) {
  const [winner, setWinner] = useState<Winner | null>(null);
  return (
    <div className="stack">
      <WinnerPicker
        name={`winner-${event.id}`}
        legend="Resolve: the one winner (exactly one option wins)"
        options={event.options}
        winner={winner}
        onWinner={setWinner}
      />
      <ConfirmButton
        label="Resolve"
        title="Resolve this event?"
        disabled={winner === null}
        describe={() => (
          <p>
            {winner === null ? '' : describeWinner(event.options, winner)} Trading stops; holders may dispute
            during the dispute window, then the event settles.
          </p>
        )}
        onConfirm={async () => {
          if (winner === null) return;
          onDone(
            await typed(
              apiClient.POST('/api/admin/events/{id}/resolve', {
                params: { path: { id: event.id } },
                body: { outcomes: outcomesOfWinner(event.options, winner) },
              }),
            ),
          );
        }}
      />
    </div>
  );
}
