import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { orderBookFeed, useLive, useMarketTrades } from '../api/live';
import type { MarketDetail, OrderBook, Position, Side } from '../api/types';
import { useAuth } from '../auth';
import { Discussion } from '../components/Discussion';
import { DisputeButton } from '../components/DisputeButton';
import { StatusTag } from '../components/MarketCard';
import { NewsPanel, SponsorPanel } from '../components/MarketExtras';
import { OrderBookView, type PickedPrice } from '../components/OrderBookView';
import { OpenOrdersTable } from '../components/OrdersTable';
import { OutcomePanel } from '../components/OutcomePanel';
import { PositionsTable } from '../components/PositionsTable';
import { PriceChart, type Range } from '../components/PriceChart';
import { RecentTrades } from '../components/RecentTrades';
import { ErrorMessage, Loading } from '../components/Status';
import { TableScroll } from '../components/TableScroll';
import { TradesTable } from '../components/TradesTable';
import { TradeTicket } from '../components/TradeTicket';
import { formatCredits, formatDate, formatPercentBps, formatPrice, titleCase } from '../lib/format';
import { type GetAnswer, type Resource, useApi, useDocumentTitle } from '../lib/hooks';
import { buyPrice, isTradable, type LiveTrade, withLiveTrades } from '../lib/market';
import { NotFoundPage } from './NotFound';

const PRICES_POLL_MS = 15_000;
/** Trades come in bursts: one fresh read of the market and the viewer's holdings per burst. */
const RELOAD_AFTER_TRADE_MS = 400;
const LIVE_TRADES_KEPT = 500;
const RECENT_TRADES_SHOWN = 10;

function YourActivity({
  slug,
  version,
  positions,
  trades,
  tradable,
}: {
  slug: string;
  version: number;
  positions: Resource<GetAnswer<'/api/positions'>>;
  /** The viewer's latest trades in this market. */
  trades: Resource<GetAnswer<'/api/trades'>>;
  tradable: boolean;
}) {
  const { refresh } = useAuth();
  const orders = useApi('/api/limit-orders', {
    params: { query: { status: 'open', eventSlug: slug, limit: 200 } },
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: a trade or an order elsewhere on the page changes these
  useEffect(() => {
    if (version === 0) return;
    orders.reload();
    trades.reload();
  }, [version]);

  const mine = (positions.data?.data ?? []).filter((p) => p.eventSlug === slug && p.quantity > 0);
  const open = orders.data?.data ?? [];
  const recent = trades.data?.data ?? [];
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
            <PositionsTable
              positions={mine}
              showMarket={false}
              protections={tradable}
              onChanged={positions.reload}
            />
          ) : (
            <p className="empty">No position in this market yet.</p>
          )}
          {tradable || open.length > 0 ? (
            <>
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
            </>
          ) : null}
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

function OptionsTable({
  market,
  selectedId,
  side,
  book,
  onPick,
}: {
  market: MarketDetail;
  selectedId: string | undefined;
  side: Side;
  book: OrderBook | undefined;
  onPick: (optionId: string, side: Side) => void;
}) {
  const tradable = isTradable(market.status);
  return (
    <section className="card area-options" aria-labelledby="options-heading">
      <h2 id="options-heading">Options</h2>
      <TableScroll label="Options table">
        <table className="data options-table">
          <thead>
            <tr>
              <th scope="col">Option</th>
              <th scope="col">{tradable ? 'Chance' : 'Outcome'}</th>
              {tradable ? <th scope="col">Buy</th> : null}
              <th scope="col">Volume</th>
            </tr>
          </thead>
          <tbody>
            {market.options.map((option) => {
              // The live book of the selected option is fresher than the market read.
              const live = book?.optionId === option.id ? book : undefined;
              const quote = live
                ? {
                    bestAskCents: live.yes.asks[0]?.priceCents ?? null,
                    bestBidCents: live.yes.bids[0]?.priceCents ?? null,
                  }
                : option;
              return (
                <tr
                  key={option.id}
                  data-testid="option-row"
                  aria-current={option.id === selectedId ? 'true' : undefined}
                >
                  <th scope="row">{option.label}</th>
                  <td data-testid="option-chance">
                    {option.resolution ? (
                      <span className={`tag outcome-${option.resolution.toLowerCase()}`}>
                        {option.resolution === 'VOID'
                          ? 'Void'
                          : `Resolved ${titleCase(option.resolution.toLowerCase())}`}
                      </span>
                    ) : tradable ? (
                      formatPercentBps(option.probabilityBps)
                    ) : (
                      <span className="muted">
                        Awaiting result · last {formatPrice(option.lastYesPriceCents)}
                      </span>
                    )}
                  </td>
                  {tradable ? (
                    <td className="buy-buttons">
                      {(['YES', 'NO'] as const).map((value) => (
                        <button
                          key={value}
                          type="button"
                          data-testid={`buy-${value.toLowerCase()}`}
                          className={`price-button ${value === 'YES' ? 'yes' : 'no'}`}
                          aria-pressed={option.id === selectedId && side === value}
                          onClick={() => onPick(option.id, value)}
                        >
                          {value === 'YES' ? 'Yes' : 'No'}{' '}
                          {formatPrice(buyPrice({ ...option, ...quote }, value))}
                          <span className="visually-hidden"> for {option.label}</span>
                        </button>
                      ))}
                    </td>
                  ) : null}
                  <td>{formatCredits(option.volumeCents)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      {tradable ? <p className="muted small">Buy prices are the best offers in the book right now.</p> : null}
    </section>
  );
}

/** Reads the market, then follows every trade in it from the stream: prices, chart, book and holdings. */
function useLiveMarket(slug: string, range: Range, onTrade: () => void) {
  const market = useApi('/api/events/{slug}', { params: { path: { slug }, query: { range } } });
  const [live, setLive] = useState<LiveTrade[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new market or range starts from a fresh read
  useEffect(() => setLive([]), [slug, range]);
  const { reload } = market;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latestOnTrade = useRef(onTrade);
  latestOnTrade.current = onTrade;
  useEffect(() => () => clearTimeout(timer.current), []);
  const optionIds = (market.data?.options ?? []).map((option) => option.id);
  const readAgain = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      reload();
      latestOnTrade.current();
    }, RELOAD_AFTER_TRADE_MS);
  };
  useMarketTrades(
    optionIds,
    (trades) => {
      setLive((current) => [...current, ...trades].slice(-LIVE_TRADES_KEPT));
      readAgain();
    },
    readAgain,
  );
  useEffect(() => {
    const poll = setInterval(() => {
      if (!document.hidden) reload();
    }, PRICES_POLL_MS);
    return () => clearInterval(poll);
  }, [reload]);
  const data = useMemo(
    () => (market.data ? withLiveTrades(market.data, live) : undefined),
    [market.data, live],
  );
  return { ...market, data };
}

function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

export function MarketPage() {
  const { slug = '' } = useParams();
  const { signedIn } = useAuth();
  const [range, setRange] = useState<Range>('1d');
  const [version, setVersion] = useState(0);
  const positions = useApi(signedIn ? '/api/positions' : null);
  const { reload: reloadPositions } = positions;
  const onTrade = useCallback(() => {
    reloadPositions();
    setVersion((v) => v + 1);
  }, [reloadPositions]);
  const market = useLiveMarket(slug, range, onTrade);
  const loadedSlug = market.data?.slug;
  const myTrades = useApi(signedIn && loadedSlug ? '/api/trades' : null, {
    params: { query: { eventSlug: loadedSlug, limit: RECENT_TRADES_SHOWN } },
  });
  const [optionId, setOptionId] = useState<string | null>(null);
  const [side, setSide] = useState<Side>('YES');
  const [picked, setPicked] = useState<PickedPrice | null>(null);
  useDocumentTitle(market.data?.title);

  const options = market.data?.options ?? [];
  const selected = options.find((option) => option.id === optionId) ?? options[0];
  const selectedId = selected?.id;
  const selectedLabel = selected?.label ?? '';
  const eventSlug = market.data?.slug ?? slug;
  const tradable = market.data ? isTradable(market.data.status) : false;
  const feed = useMemo(
    () =>
      selectedId && tradable ? orderBookFeed(selectedId, { eventSlug, optionLabel: selectedLabel }) : null,
    [selectedId, selectedLabel, eventSlug, tradable],
  );
  const book = useLive(feed);
  const { reload } = market;

  const onPlaced = useCallback(() => {
    feed?.refresh();
    reload();
    onTrade();
  }, [feed, reload, onTrade]);

  if (!market.data) {
    if (isNotFound(market.error)) return <NotFoundPage what="market" />;
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
  const held: Position[] = (positions.data?.data ?? []).filter(
    (p) => p.eventSlug === data.slug && p.quantity > 0,
  );
  const liveBook = book.data?.optionId === selectedId ? book.data : undefined;
  // A trade here means a position held here, now or before: former holders may dispute too.
  const hasTraded = (myTrades.data?.data.length ?? 0) > 0;

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
          <span>
            {data.status === 'open' ? 'Closes' : 'Closed'} {formatDate(data.closedAt ?? data.closesAt)}
          </span>
          {data.resolutionSource ? <span>Resolves by: {data.resolutionSource}</span> : null}
        </p>
        {data.description ? <p className="description">{data.description}</p> : null}
      </header>

      <div className={`market-layout${tradable ? '' : ' market-done'}`}>
        <div className="market-main">
          <OptionsTable
            market={data}
            selectedId={selectedId}
            side={side}
            book={liveBook}
            onPick={(id, value) => {
              setOptionId(id);
              setSide(value);
            }}
          />
          <section className="card area-chart">
            <PriceChart options={options} range={range} onRange={setRange} />
          </section>
          {tradable ? (
            <div className="area-book">
              <OrderBookView
                book={liveBook}
                error={book.error}
                side={side}
                onSide={setSide}
                onPick={setPicked}
              />
            </div>
          ) : null}
          {selected && tradable ? (
            <div className="area-trades">
              <RecentTrades optionId={selected.id} label={selected.label} />
            </div>
          ) : null}
          {signedIn ? (
            <div className="area-activity">
              <YourActivity
                slug={data.slug}
                version={version}
                positions={positions}
                trades={myTrades}
                tradable={tradable}
              />
            </div>
          ) : null}
          <div className="area-discussion">
            <Discussion eventSlug={data.slug} />
          </div>
        </div>
        <div className="market-side">
          {selected && tradable ? (
            <div className="area-ticket">
              <TradeTicket
                market={data}
                optionId={selected.id}
                onOption={setOptionId}
                side={side}
                onSide={setSide}
                book={liveBook}
                positions={held}
                picked={picked}
                onPlaced={onPlaced}
              />
            </div>
          ) : (
            <div className="area-ticket">
              <OutcomePanel market={data} held={held}>
                <DisputeButton market={data} heldPosition={held.length > 0 || hasTraded} />
              </OutcomePanel>
            </div>
          )}
          <div className="area-news">
            <SponsorPanel slug={data.slug} />
            <NewsPanel slug={data.slug} />
          </div>
        </div>
      </div>
    </div>
  );
}
