import { lazy, Suspense, useRef } from 'react';
import { Link } from 'react-router';
import type { Portfolio } from '../api/types';
import { useAuth } from '../auth';
import { AccountHistory } from '../components/AccountHistory';
import { afterAmend, CancelAllOrders, OpenOrdersTable } from '../components/open-orders';
import { PagedList } from '../components/Paged';
import { PositionsTable } from '../components/PositionsTable';
import { Empty, Loaded, Loading, SignInPrompt } from '../components/Status';
import { holdingsChanged, usePortfolio } from '../lib/account-live';
import { formatCredits, formatSignedCredits, pnlClass } from '../lib/format';
import { useDocumentTitle, usePagedApi } from '../lib/hooks';

// The chart library is its own chunk, shared with the market page's chart.
const PortfolioValue = lazy(() =>
  import('../components/PortfolioValue').then((module) => ({ default: module.PortfolioValue })),
);

function Summary({ summary }: { summary: Portfolio['summary'] }) {
  const items = [
    { label: 'Total value', value: formatCredits(summary.totalValueCents) },
    { label: 'Cash', value: formatCredits(summary.cashCents) },
    { label: 'Held for open orders', value: formatCredits(summary.reservedCents) },
    { label: 'Positions value', value: formatCredits(summary.positionsValueCents) },
    {
      label: 'Unrealized P&L',
      value: formatSignedCredits(summary.unrealizedPnlCents),
      className: pnlClass(summary.unrealizedPnlCents),
    },
    {
      label: 'Realized P&L',
      value: formatSignedCredits(summary.realizedPnlCents),
      className: pnlClass(summary.realizedPnlCents),
    },
  ];
  return (
    <dl className="stats">
      {items.map((item) => (
        <div key={item.label} className="stat">
          <dt>{item.label}</dt>
          <dd className={item.className}>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function PortfolioPage() {
  useDocumentTitle('Portfolio');
  const { signedIn } = useAuth();
  const portfolio = usePortfolio(signedIn);
  const orders = usePagedApi(signedIn ? '/api/limit-orders' : null, {
    params: { query: { status: 'open', limit: 100 } },
  });
  const ordersHeading = useRef<HTMLHeadingElement>(null);

  if (!signedIn) {
    return (
      <div className="page">
        <h1>Portfolio</h1>
        <SignInPrompt what="see your positions and orders" />
      </div>
    );
  }
  const held = (portfolio.data?.data ?? []).filter((position) => position.quantity > 0);
  const openCount = orders.items?.length ?? 0;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Portfolio</h1>
        <nav aria-label="Your lists" className="actions">
          <Link to="/watchlist" className="button small ghost">
            Watchlist
          </Link>
          <Link to="/notes" className="button small ghost">
            Trade notes
          </Link>
        </nav>
      </div>
      <Loaded data={portfolio.data} error={portfolio.error} reload={portfolio.reload}>
        {(data) => <Summary summary={data.summary} />}
      </Loaded>
      <Suspense fallback={<Loading label="Loading the chart…" />}>
        <PortfolioValue current={portfolio.data?.summary} />
      </Suspense>
      <section className="card" aria-labelledby="positions-heading">
        <h2 id="positions-heading">Positions</h2>
        {portfolio.data && held.length === 0 ? (
          <Empty>No open positions. Find a market and make your first trade.</Empty>
        ) : null}
        {held.length > 0 ? <PositionsTable positions={held} /> : null}
      </section>
      <section className="card" aria-labelledby="orders-heading">
        <div className="section-head">
          <h2 id="orders-heading" ref={ordersHeading} tabIndex={-1}>
            Open orders
          </h2>
          {openCount > 1 ? (
            <CancelAllOrders
              count={openCount}
              onCancelled={() => {
                orders.setItems(() => []);
                orders.reload();
                holdingsChanged();
                ordersHeading.current?.focus();
              }}
            />
          ) : null}
        </div>
        <PagedList list={orders} empty="No open orders.">
          {(items) => (
            <OpenOrdersTable
              orders={items}
              onCancelled={(order) => {
                orders.setItems((all) => all.filter((item) => item.id !== order.id));
                holdingsChanged();
                if (items.length === 1) ordersHeading.current?.focus();
              }}
              onAmended={(before, after) => {
                orders.setItems((all) => afterAmend(all, before, after));
                holdingsChanged();
              }}
            />
          )}
        </PagedList>
      </section>
      <AccountHistory />
    </div>
  );
}
