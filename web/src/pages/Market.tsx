import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { orderBookFeed, useLive } from '../api/live';
import type { MarketDetail, Order, Page, Portfolio, Side, Trade } from '../api/types';
import { useAuth } from '../auth';
import { Discussion } from '../components/Discussion';
import { StatusTag } from '../components/MarketCard';
import { NewsPanel, SponsorPanel } from '../components/MarketExtras';
import { OrderBookView } from '../components/OrderBookView';
import { OpenOrdersTable } from '../components/OrdersTable';
import { PositionsTable } from '../components/PositionsTable';
import { PriceChart, type Range } from '../components/PriceChart';
import { RecentTrades } from '../components/RecentTrades';
import { ErrorMessage, Loading } from '../components/Status';
import { TradesTable } from '../components/TradesTable';
import { TradeTicket } from '../components/TradeTicket';
import { formatCredits, formatDate, formatPercentBps, formatPrice, titleCase } from '../lib/format';
import { useDocumentTitle, useResource } from '../lib/hooks';

const PRICES_POLL_MS = 15_000;

function YourActivity({ slug, version }: { slug: string; version: number }) {
  const { refresh } = useAuth();
  const positions = useResource<Portfolio>('/api/positions');
  const orders = useResource<Page<Order>>('/api/limit-orders?status=open&limit=200');
  const trades = useResource<Page<Trade>>('/api/trades?limit=50');
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new order elsewhere on the page changes these
  useEffect(() => {
    if (version === 0) return;
    positions.reload();
    orders.reload();
    trades.reload();
  }, [version]);

  const mine = (positions.data?.data ?? []).filter((p) => p.eventSlug === slug && p.quantity > 0);
  const open = (orders.data?.data ?? []).filter((o) => o.eventSlug === slug);
  const recent = (trades.data?.data ?? []).filter((t) => t.eventSlug === slug).slice(0, 10);
  const error = positions.error ?? orders.error ?? trades.error;
  return (
    <section className="card" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Your activity</h2>
      {error ? <ErrorMessage error={error} /> : null}
      {!error && (!positions.data || !orders.data || !trades.data) ? <Loading /> : null}
      {positions.data && orders.data && trades.data ? (
        <>
          <h3>Positions</h3>
          {mine.length > 0 ? (
            <PositionsTable positions={mine} showMarket={false} onChanged={positions.reload} />
          ) : (
            <p className="empty">No position in this market yet.</p>
          )}
          <h3>Open orders</h3>
          {open.length > 0 ? (
            <OpenOrdersTable
              orders={open}
              showMarket={false}
              onCancelled={() => {
                orders.reload();
                positions.reload();
                refresh();
              }}
            />
          ) : (
            <p className="empty">No open orders in this market.</p>
          )}
          <h3>Your recent trades</h3>
          {recent.length > 0 ? (
            <TradesTable trades={recent} showMarket={false} />
          ) : (
            <p className="empty">No trades here yet.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

export function MarketPage() {
  const { slug = '' } = useParams();
  const { signedIn } = useAuth();
  const [range, setRange] = useState<Range>('1w');
  const market = useResource<MarketDetail>(`/api/events/${encodeURIComponent(slug)}?range=${range}`);
  const [optionId, setOptionId] = useState<string | null>(null);
  const [side, setSide] = useState<Side>('YES');
  const [version, setVersion] = useState(0);
  useDocumentTitle(market.data?.title);

  const options = market.data?.options ?? [];
  const selected = options.find((option) => option.id === optionId) ?? options[0];
  const selectedId = selected?.id;
  const selectedLabel = selected?.label ?? '';
  const eventSlug = market.data?.slug ?? slug;
  const feed = useMemo(
    () => (selectedId ? orderBookFeed(selectedId, { eventSlug, optionLabel: selectedLabel }) : null),
    [selectedId, selectedLabel, eventSlug],
  );
  const book = useLive(feed);

  const { reload } = market;
  useEffect(() => {
    const timer = setInterval(() => {
      if (!document.hidden) reload();
    }, PRICES_POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);

  const onPlaced = useCallback(() => {
    feed?.refresh();
    reload();
    setVersion((v) => v + 1);
  }, [feed, reload]);

  if (!market.data) {
    return (
      <div className="page">
        {market.error ? (
          <ErrorMessage error={market.error} onRetry={market.reload} />
        ) : (
          <Loading label="Loading market…" />
        )}
        <p>
          <Link to="/">Back to markets</Link>
        </p>
      </div>
    );
  }
  const data = market.data;

  return (
    <div className="page market-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Markets</Link> <span aria-hidden="true">›</span>{' '}
        <Link to={`/?category=${encodeURIComponent(data.category)}`}>{titleCase(data.category)}</Link>
      </nav>
      <header className="market-head">
        <h1>{data.title}</h1>
        <p className="market-meta">
          <StatusTag status={data.status} />
          <span>Closes {formatDate(data.closesAt)}</span>
          {data.resolutionSource ? <span>Resolves by: {data.resolutionSource}</span> : null}
        </p>
        {data.description ? <p className="description">{data.description}</p> : null}
      </header>

      <div className="market-layout">
        <div className="market-main">
          <section className="card area-options" aria-labelledby="options-heading">
            <h2 id="options-heading">Options</h2>
            <div className="table-wrap">
              <table className="data options-table">
                <thead>
                  <tr>
                    <th scope="col">Option</th>
                    <th scope="col">Chance</th>
                    <th scope="col">Buy</th>
                    <th scope="col">Volume</th>
                  </tr>
                </thead>
                <tbody>
                  {options.map((option) => (
                    <tr key={option.id} aria-current={option.id === selected?.id ? 'true' : undefined}>
                      <th scope="row">
                        {option.label}
                        {option.resolution ? <span className="tag">Resolved {option.resolution}</span> : null}
                      </th>
                      <td>{formatPercentBps(option.probabilityBps)}</td>
                      <td className="buy-buttons">
                        {(['YES', 'NO'] as const).map((value) => (
                          <button
                            key={value}
                            type="button"
                            className={`price-button ${value === 'YES' ? 'yes' : 'no'}`}
                            aria-pressed={option.id === selected?.id && side === value}
                            onClick={() => {
                              setOptionId(option.id);
                              setSide(value);
                            }}
                          >
                            {value === 'YES' ? 'Yes' : 'No'}{' '}
                            {formatPrice(value === 'YES' ? option.yesPriceCents : option.noPriceCents)}
                            <span className="visually-hidden"> for {option.label}</span>
                          </button>
                        ))}
                      </td>
                      <td>{formatCredits(option.volumeCents)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section className="card area-chart">
            <PriceChart options={options} range={range} onRange={setRange} />
          </section>
          <div className="area-book">
            <OrderBookView
              book={book.data?.optionId === selected?.id ? book.data : undefined}
              error={book.error}
              side={side}
              onSide={setSide}
            />
          </div>
          {selected ? (
            <div className="area-trades">
              <RecentTrades optionId={selected.id} label={selected.label} />
            </div>
          ) : null}
          {signedIn ? (
            <div className="area-activity">
              <YourActivity slug={data.slug} version={version} />
            </div>
          ) : null}
          <div className="area-discussion">
            <Discussion eventSlug={data.slug} />
          </div>
        </div>
        <div className="market-side">
          {selected ? (
            <div className="area-ticket">
              <TradeTicket
                market={data}
                optionId={selected.id}
                onOption={setOptionId}
                side={side}
                onSide={setSide}
                book={book.data}
                onPlaced={onPlaced}
              />
            </div>
          ) : null}
          <div className="area-news">
            <SponsorPanel slug={data.slug} />
            <NewsPanel slug={data.slug} />
          </div>
        </div>
      </div>
    </div>
  );
}
