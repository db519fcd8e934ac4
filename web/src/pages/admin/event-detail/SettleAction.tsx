import { apiClient, typed } from '../../../api/client';
import type { MarketDetail } from '../../../api/types';
import { ConfirmButton } from '../../../components/Confirm';
import { Loaded } from '../../../components/Status';
import { formatCredits } from '../../../lib/format';
import { useApi } from '../../../lib/hooks';

/** A resolved event's settlement: what it pays to whom, confirmed once no dispute is pending. */
export function SettleAction({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const preview = useApi('/api/admin/events/{id}/settlement-preview', { params: { path: { id: event.id } } });
  return (
    <Loaded data={preview.data} error={preview.error} reload={preview.reload}>
      {(p) => (
        <div>
          <p data-testid="settlement-preview">
            Settling pays <strong>{formatCredits(p.payoutCents)}</strong> to <strong>{p.holders}</strong>{' '}
            {p.holders === 1 ? 'holder' : 'holders'} (and {formatCredits(p.housePayoutCents)} to the house
            maker).
          </p>
          {p.disputePending ? (
            <p className="notice">A dispute is pending: decide it before settling.</p>
          ) : null}
          <ConfirmButton
            label="Settle now"
            title="Settle this event now?"
            disabled={p.disputePending}
            describe={() => (
              <>
                <p>
                  This pays {formatCredits(p.payoutCents)} to {p.holders}{' '}
                  {p.holders === 1 ? 'holder' : 'holders'} and ends the dispute window. It cannot be undone.
                </p>
                <ul>
                  {p.options.map((o) => (
                    <li key={o.optionId}>
                      {o.label} ({o.outcome}): {formatCredits(o.payoutCents)} to {o.holders}
                    </li>
                  ))}
                </ul>
              </>
            )}
            onConfirm={async () =>
              onDone(
                await typed(
                  apiClient.POST('/api/admin/events/{id}/settle', { params: { path: { id: event.id } } }),
                ),
              )
            }
          />
        </div>
      )}
    </Loaded>
  );
}
