import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { downloadTrades } from '../api/client';
import type { Portfolio } from '../api/types';
import { useAuth } from '../auth';
import { OpenOrdersTable } from '../components/OrdersTable';
import { PagedList } from '../components/Paged';
import { PositionsTable } from '../components/PositionsTable';
import { Empty, ErrorMessage, Loaded, SignInPrompt } from '../components/Status';
import { TradesTable } from '../components/TradesTable';
import { holdingsChanged, usePortfolio } from '../lib/account-live';
import { formatCredits, formatSignedCredits, pnlClass } from '../lib/format';
import { useAction, useDocumentTitle, usePagedApi } from '../lib/hooks';

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

function TradeHistory() {
  const [status, setStatus] = useState<'' | 'open' | 'closed'>('');
  const trades = usePagedApi('/api/trades', {
    params: { query: { limit: 50, status: status || undefined } },
  });
  const exportCsv = useAction(downloadTrades);
  return (
    <section className="card" aria-labelledby="history-heading">
      <div className="section-head">
        <h2 id="history-heading">Trade history</h2>
        <div className="actions">
          <div className="field inline">
            <label htmlFor="trade-status">Show</label>
            <select
              id="trade-status"
              value={status}
              onChange={(event) => setStatus(event.target.value as typeof status)}
            >
              <option value="">All trades</option>
              <option value="open">Markets still running</option>
              <option value="closed">Settled markets</option>
            </select>
          </div>
          <button
            type="button"
            className="button ghost small"
            disabled={exportCsv.pending}
            onClick={() => void exportCsv.run()}
          >
            {exportCsv.pending ? 'Preparing…' : 'Export CSV'}
          </button>
        </div>
      </div>
      <ErrorMessage error={exportCsv.error} />
      <PagedList list={trades} empty="No trades yet." more="Older trades">
        {(items) => <TradesTable trades={items} />}
      </PagedList>
    </section>
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
      <section className="card" aria-labelledby="positions-heading">
        <h2 id="positions-heading">Positions</h2>
        {portfolio.data && held.length === 0 ? (
          <Empty>No open positions. Find a market and make your first trade.</Empty>
        ) : null}
        {held.length > 0 ? <PositionsTable positions={held} /> : null}
      </section>
      <section className="card" aria-labelledby="orders-heading">
        <h2 id="orders-heading" ref={ordersHeading} tabIndex={-1}>
          Open orders
        </h2>
        <PagedList list={orders} empty="No open orders.">
          {(items) => (
            <OpenOrdersTable
              orders={items}
              onCancelled={(order) => {
                orders.setItems((all) => all.filter((item) => item.id !== order.id));
                holdingsChanged();
                ordersHeading.current?.focus();
              }}
            />
          )}
        </PagedList>
      </section>
      <TradeHistory />
    </div>
  );
}
