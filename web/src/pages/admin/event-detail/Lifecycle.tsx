import { apiClient, typed } from '../../../api/client';
import type { MarketDetail } from '../../../api/types';
import { ConfirmButton } from '../../../components/Confirm';
import { formatDate } from '../../../lib/format';
import { ResolveForm } from './ResolveForm';
import { ResolveWinnerForm } from './ResolveWinnerForm';
import { SettleAction } from './SettleAction';

function moveEvent(id: string, step: 'open' | 'close'): Promise<MarketDetail> {
  const params = { path: { id } };
  return step === 'open'
    ? typed(apiClient.POST('/api/admin/events/{id}/open', { params }))
    : typed(apiClient.POST('/api/admin/events/{id}/close', { params }));
}

/** The event's next step: open a draft, close trading, resolve, settle. */
export function Lifecycle({ event, onDone }: { event: MarketDetail; onDone: (e: MarketDetail) => void }) {
  const transition = (step: 'open' | 'close') => async () => onDone(await moveEvent(event.id, step));
  return (
    <section className="card" aria-labelledby="lifecycle-heading">
      <h2 id="lifecycle-heading">Lifecycle</h2>
      <div className="actions">
        {event.status === 'draft' ? (
          <ConfirmButton
            label="Open for trading"
            title="Open this event?"
            danger={false}
            describe={() => <p>Everyone can trade it from now on; a draft cannot be made again.</p>}
            onConfirm={transition('open')}
          />
        ) : null}
        {event.status === 'open' ? (
          <ConfirmButton
            label="Close trading"
            title="Close trading?"
            describe={() => (
              <p>
                No new orders; every open order is cancelled and its reservation released. It cannot reopen.
              </p>
            )}
            onConfirm={transition('close')}
          />
        ) : null}
      </div>
      {(event.status === 'open' || event.status === 'closed') && event.exclusive ? (
        <ResolveWinnerForm event={event} onDone={onDone} />
      ) : event.status === 'open' || event.status === 'closed' ? (
        <ResolveForm event={event} onDone={onDone} />
      ) : null}
      {event.status === 'resolved' ? <SettleAction event={event} onDone={onDone} /> : null}
      {event.status === 'settled' ? (
        <p>Settled {formatDate(event.settledAt)}: every holder has been paid.</p>
      ) : null}
    </section>
  );
}
