import { useRef, useState } from 'react';
import type { Position, Trade } from '../api/types';
import { holdingsChanged } from '../lib/account-live';
import { type GetAnswer, type Resource, useApi } from '../lib/hooks';
import { useInView } from '../lib/in-view';
import { MarketNotes } from './MarketNotes';
import { afterAmend, CancelAllOrders, OpenOrdersTable } from './open-orders';
import { PositionsTable } from './PositionsTable';
import { ErrorMessage, Loading } from './Status';
import { TradesTable } from './TradesTable';

export const RECENT_TRADES_SHOWN = 10;

/** The viewer's trades in one market: read when the section comes into view, or at once when `now` says so. */
export function useTradesHere(slug: string, enabled: boolean): Resource<GetAnswer<'/api/trades'>> {
  return useApi(enabled ? '/api/trades' : null, {
    params: { query: { eventSlug: slug, limit: RECENT_TRADES_SHOWN } },
  });
}

function TradesHere({ trades }: { trades: Resource<GetAnswer<'/api/trades'>> }) {
  const recent: Trade[] = trades.data?.data ?? [];
  return (
    <>
      <h3>Your recent trades here</h3>
      {trades.error ? <ErrorMessage error={trades.error} onRetry={trades.reload} /> : null}
      {!trades.data && !trades.error ? <Loading /> : null}
      {trades.data ? (
        recent.length > 0 ? (
          <TradesTable trades={recent} showMarket={false} />
        ) : (
          <p className="empty">No trades here yet.</p>
        )
      ) : null}
    </>
  );
}

/** Private notes stay folded until asked for: most visits do not need them read. */
function NotesDisclosure({ slug }: { slug: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="link-button notes-toggle"
        aria-expanded={open}
        onClick={() => setOpen((value) => !value)}
      >
        {open ? 'Hide your notes' : 'Your notes on this market'}
      </button>
      {open ? <MarketNotes eventSlug={slug} /> : null}
    </>
  );
}

/**
 * The viewer's side of one market: positions (valued live), open orders with amend, cancel and cancel-all, recent
 * trades and private
 * notes. The lower parts are read when scrolled to, unless the page needs them at once (`tradesNow`).
 */
export function YourActivity({
  slug,
  positions,
  loaded,
  positionsError,
  tradable,
  tradesNow,
}: {
  slug: string;
  /** This market's positions with shares, valued at the live prices. */
  positions: Position[];
  loaded: boolean;
  positionsError: unknown;
  tradable: boolean;
  /** The page needs the trades at once (a resolved market: a former holder may dispute). */
  tradesNow: boolean;
}) {
  const orders = useApi('/api/limit-orders', {
    params: { query: { status: 'open', eventSlug: slug, limit: 200 } },
  });
  const { ref, seen } = useInView<HTMLDivElement>();
  const trades = useTradesHere(slug, seen || tradesNow);
  const ordersHeading = useRef<HTMLHeadingElement>(null);
  const open = orders.data?.data ?? [];
  const error = positionsError ?? orders.error;
  return (
    <section className="card" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Your activity</h2>
      {error ? <ErrorMessage error={error} onRetry={orders.reload} /> : null}
      {!error && (!loaded || !orders.data) ? <Loading /> : null}
      {loaded && orders.data ? (
        <>
          <h3>Positions</h3>
          {positions.length > 0 ? (
            <PositionsTable positions={positions} showMarket={false} protections={tradable} />
          ) : (
            <p className="empty">No position in this market now.</p>
          )}
          {tradable || open.length > 0 ? (
            <>
              <div className="section-head">
                <h3 ref={ordersHeading} tabIndex={-1}>
                  Open orders
                </h3>
                {open.length > 1 ? (
                  <CancelAllOrders
                    eventSlug={slug}
                    count={open.length}
                    onCancelled={() => {
                      orders.setData((current) => (current ? { ...current, data: [] } : current));
                      orders.reload();
                      holdingsChanged();
                      ordersHeading.current?.focus();
                    }}
                  />
                ) : null}
              </div>
              {open.length > 0 ? (
                <OpenOrdersTable
                  orders={open}
                  showMarket={false}
                  onCancelled={(order) => {
                    orders.setData((current) =>
                      current
                        ? { ...current, data: current.data.filter((item) => item.id !== order.id) }
                        : current,
                    );
                    holdingsChanged();
                    // With the last row gone, the keyboard stays where the list was.
                    if (open.length === 1) ordersHeading.current?.focus();
                  }}
                  onAmended={(before, after) => {
                    orders.setData((current) =>
                      current ? { ...current, data: afterAmend(current.data, before, after) } : current,
                    );
                    holdingsChanged();
                  }}
                />
              ) : (
                <p className="empty">No open orders in this market.</p>
              )}
            </>
          ) : null}
        </>
      ) : null}
      <div ref={ref}>
        {seen || tradesNow ? <TradesHere trades={trades} /> : null}
        {seen ? <NotesDisclosure slug={slug} /> : null}
      </div>
    </section>
  );
}
