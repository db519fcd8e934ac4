import { Link } from 'react-router';
import type { MarketDetail } from '../../../api/types';
import { formatCredits, formatDate } from '../../../lib/format';
import { StatusPill } from '../AdminLayout';
import { DraftOptions } from './DraftOptions';
import { EditEventForm } from './EditEventForm';
import { OptionsSummary } from './OptionsSummary';

/** The event as the console sees it: its status, dates, kind and options, editable while it allows. */
export function EventCard({ event, onSaved }: { event: MarketDetail; onSaved: (e: MarketDetail) => void }) {
  return (
    <section className="card" aria-labelledby="event-heading">
      <div className="section-head">
        <h2 id="event-heading">{event.title}</h2>
        <StatusPill status={event.status} />
      </div>
      <p className="muted">
        {event.status === 'draft' ? `/${event.slug}` : <Link to={`/markets/${event.slug}`}>Market page</Link>}{' '}
        · closes {formatDate(event.closesAt)}
        {event.disputeWindowEndsAt ? ` · dispute window ends ${formatDate(event.disputeWindowEndsAt)}` : ''}
      </p>
      {event.exclusive ? (
        <p data-testid="event-kind">
          <span className="tag">One winner</span> Exactly one option resolves YES. One house maker quotes
          every option, with a liquidity of {formatCredits(event.houseLiquidityCents ?? 0)}; its chances add
          up to 100 %.
        </p>
      ) : null}
      <OptionsSummary event={event} />
      {event.status === 'draft' ? <DraftOptions event={event} onSaved={onSaved} /> : null}
      {event.status === 'draft' || event.status === 'open' ? (
        <EditEventForm event={event} onSaved={onSaved} />
      ) : null}
    </section>
  );
}
