import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { useBookReadOnce, useChannel, useLiveBooks, useMarketTrades, useStreamStatus } from '../api/live';
import type { MarketDetail, OptionDetail, Side } from '../api/types';
import { useAuth } from '../auth';
import { Conversions } from '../components/Conversions';
import { Discussion } from '../components/Discussion';
import { DisputeButton } from '../components/DisputeButton';
import { StatusTag } from '../components/MarketCard';
import { NewsPanel, SponsorPanel } from '../components/MarketExtras';
import { MarketTape } from '../components/MarketTape';
import { OptionsTable } from '../components/OptionsTable';
import { OrderBookView, type PickedPrice } from '../components/OrderBookView';
import { OutcomePanel } from '../components/OutcomePanel';
import type { Range } from '../components/PriceChart';
import { ErrorMessage, Loading } from '../components/Status';
import { TradeTicket } from '../components/TradeTicket';
import { WatchButton } from '../components/WatchButton';
import { useTradesHere, YourActivity } from '../components/YourActivity';
import { holdingsChanged, usePortfolio } from '../lib/account-live';
import {
  type CandleInterval,
  type ChartView,
  candlesFrom,
  defaultChartView,
  defaultInterval,
} from '../lib/candles';
import { formatDate, titleCase } from '../lib/format';
import { useApi, useDocumentTitle } from '../lib/hooks';
import { useInView } from '../lib/in-view';
import { type LiveTrade, markPositions, type ShownStatus, shownStatus, withLiveTrades } from '../lib/market';
import { marketDataStale, useLiveMarketData } from '../lib/market-data';
import { NotFoundPage } from './NotFound';

// The chart library is the biggest part of the market page: its own chunk, fetched with the first market shown.
const MarketChart = lazy(() =>
  import('../components/MarketChart').then((module) => ({ default: module.MarketChart })),
);

const LIVE_TRADES_KEPT = 500;
/** Trades in an exclusive event move the chances of all its options: read them again this soon after a trade... */
const CHANCES_BURST_MS = 300;
/** ...and no more often than this while trades keep coming, to stay well inside the rate limit. */
const CHANCES_READ_GAP_MS = 5_000;
/** setTimeout's longest delay; a market closing later than that is simply not timed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Re-renders when `iso` passes, so a market's close shows at its closing time, not when a read comes. */
function useDeadline(iso: string | undefined): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!iso) return;
    const wait = Date.parse(iso) - Date.now();
    if (wait <= 0 || wait > MAX_TIMER_MS) return;
    const timer = setTimeout(() => setNow(Date.now()), wait + 50);
    return () => clearTimeout(timer);
  }, [iso]);
  return now;
}

/**
 * Runs `action` a moment after it is first asked for (one run for a burst), then at most once every `gapMs`
 * however often it is asked.
 */
function useThrottled(action: () => void, burstMs: number, gapMs: number): () => void {
  const latest = useRef(action);
  latest.current = action;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastRun = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    const wait = Math.max(burstMs, lastRun.current + gapMs - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      lastRun.current = Date.now();
      latest.current();
    }, wait);
  }, [burstMs, gapMs]);
}

/**
 * The market as read once, then followed on the stream: every trade moves prices, volumes and the chart in
 * place; a change of status (closed, resolved, settled) comes on the event channel and brings one fresh read. In
 * an exclusive event a trade in any option moves the house's chances of every option, which the stream does not
 * carry: a trade brings one fresh read of the market, at most one every five seconds.
 */
function useLiveMarket(slug: string, range: Range, signedIn: boolean) {
  const market = useApi('/api/events/{slug}', { params: { path: { slug }, query: { range } } });
  const [live, setLive] = useState<LiveTrade[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new market or range starts from a fresh read
  useEffect(() => setLive([]), [slug, range]);
  const { reload } = market;
  const options = market.data?.options ?? [];
  const exclusive = market.data?.exclusive ?? false;
  const chancesMoved = useThrottled(reload, CHANCES_BURST_MS, CHANCES_READ_GAP_MS);
  useMarketTrades(
    options.map((option) => option.id),
    (trades) => {
      setLive((current) => [...current, ...trades].slice(-LIVE_TRADES_KEPT));
      if (exclusive) chancesMoved();
    },
  );
  useChannel(market.data ? `event:${market.data.id}` : null, (message) => {
    if (message.type !== 'market' && message.type !== 'resync') return;
    reload();
    if (signedIn) holdingsChanged();
  });
  const data = useMemo(
    () => (market.data ? withLiveTrades(market.data, live) : undefined),
    [market.data, live],
  );
  // A trade between the read and the subscription is not streamed: a book whose last price differs from the
  // read's says one happened, and one fresh read catches it.
  const latest = useRef(data);
  latest.current = data;
  const caughtUp = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new market or range may need its own catch-up
  useEffect(() => {
    caughtUp.current = false;
  }, [slug, range]);
  const onSnapshot = useCallback(
    (optionId: string, lastYesPriceCents: number | null) => {
      const option = latest.current?.options.find((candidate) => candidate.id === optionId);
      if (!option || option.lastYesPriceCents === lastYesPriceCents || caughtUp.current) return;
      caughtUp.current = true;
      reload();
      marketDataStale(slug, latest.current?.options.map((candidate) => candidate.id) ?? [], true);
    },
    [reload, slug],
  );
  return { ...market, data, onSnapshot };
}

/**
 * Line or candles, and the candles' interval: the trader's choice while on this market, else the chart the picked
 * option opens on, decided once for it (a trade arriving never switches the chart under the reader). The candles
 * of each option and interval are read from a start fixed for the visit, so the cached ones are the ones shown.
 */
function useChartChoice(slug: string, market: MarketDetail | undefined, selected: OptionDetail | undefined) {
  const [chosen, setChosen] = useState<{ slug: string; view?: ChartView; interval?: CandleInterval }>({
    slug,
  });
  const defaults = useRef(new Map<string, { view: ChartView; interval: CandleInterval }>());
  const starts = useRef(new Map<string, string>());
  const mine = chosen.slug === slug ? chosen : { slug };
  let opening = selected ? defaults.current.get(selected.id) : undefined;
  if (market && selected && !opening) {
    const now = Date.now();
    opening = {
      view: defaultChartView(market, selected, '1d', now),
      interval: defaultInterval(selected, now),
    };
    defaults.current.set(selected.id, opening);
  }
  const candlesFromOf = useCallback((optionId: string, interval: CandleInterval) => {
    const key = `${optionId}:${interval}`;
    const start = starts.current.get(key) ?? candlesFrom(interval, Date.now());
    starts.current.set(key, start);
    return start;
  }, []);
  return {
    view: mine.view ?? opening?.view ?? 'line',
    interval: mine.interval ?? opening?.interval ?? '1h',
    setView: (view: ChartView) => setChosen({ ...mine, view }),
    setInterval: (interval: CandleInterval) => setChosen({ ...mine, interval }),
    candlesFrom: candlesFromOf,
  };
}

/** An exclusive event's shares convert until it is resolved: while it trades, and once closed. */
function convertible(status: ShownStatus): boolean {
  return status === 'open' || status === 'closing' || status === 'closed';
}

function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/** News and the sponsor sit below the ticket: read when scrolled to. */
function MarketSide({ slug }: { slug: string }) {
  const { ref, seen } = useInView<HTMLDivElement>();
  return (
    <div className="area-news" ref={ref}>
      {seen ? (
        <>
          <SponsorPanel slug={slug} />
          <NewsPanel slug={slug} />
        </>
      ) : null}
    </div>
  );
}

/** The market's trades sit below the book: read when scrolled to, then followed live. */
function LazyTape({ slug, options }: { slug: string; options: OptionDetail[] }) {
  const { ref, seen } = useInView<HTMLDivElement>();
  return (
    <div className="area-trades" ref={ref}>
      {seen ? (
        <MarketTape slug={slug} options={options} />
      ) : (
        <section className="card" aria-labelledby="tape-heading">
          <h2 id="tape-heading">Trades</h2>
          <p className="muted small">The market's trades load as you scroll here.</p>
        </section>
      )}
    </div>
  );
}

function LazyDiscussion({ eventId, eventSlug }: { eventId: string; eventSlug: string }) {
  const { ref, seen } = useInView<HTMLDivElement>();
  return (
    <div className="area-discussion" ref={ref}>
      {seen ? (
        <Discussion eventId={eventId} eventSlug={eventSlug} />
      ) : (
        <section className="card" aria-labelledby="discussion-heading">
          <h2 id="discussion-heading">Discussion</h2>
          <p className="muted small">The posts load as you scroll here.</p>
        </section>
      )}
    </div>
  );
}

function Header({ data, status, signedIn }: { data: MarketDetail; status: string; signedIn: boolean }) {
  return (
    <header className="market-head">
      <h1>{data.title}</h1>
      <p className="market-meta">
        <StatusTag status={status === 'closing' ? 'closed' : status} />
        <span>
          {status === 'open' ? 'Closes' : 'Closed'} {formatDate(data.closedAt ?? data.closesAt)}
        </span>
        {data.resolutionSource ? <span>Resolves by: {data.resolutionSource}</span> : null}
        {signedIn ? <WatchButton eventId={data.id} title={data.title} /> : null}
      </p>
      {data.description ? <p className="description">{data.description}</p> : null}
    </header>
  );
}

export function MarketPage() {
  const { slug = '' } = useParams();
  const { signedIn } = useAuth();
  const [range, setRange] = useState<Range>('1d');
  const market = useLiveMarket(slug, range, signedIn);
  const portfolio = usePortfolio(signedIn);
  const [optionId, setOptionId] = useState<string | null>(null);
  const [side, setSide] = useState<Side>('YES');
  const [picked, setPicked] = useState<PickedPrice | null>(null);
  const sharesField = useRef<HTMLInputElement>(null);
  useDocumentTitle(market.data?.title);

  const data = market.data;
  const now = useDeadline(data?.closesAt);
  const status = data ? shownStatus(data.status, data.closesAt, now) : 'open';
  const tradable = Boolean(data) && status === 'open';
  const options = data?.options ?? [];
  const selected = options.find((option) => option.id === optionId) ?? options[0];
  const eventSlug = data?.slug ?? slug;
  const chart = useChartChoice(slug, data, selected);
  useLiveMarketData(
    eventSlug,
    options.map((option) => option.id),
  );
  const streamStatus = useStreamStatus();
  const bookOptions = useMemo(
    () => (tradable ? options.map((option) => ({ optionId: option.id, optionLabel: option.label })) : []),
    [tradable, options],
  );
  const books = useLiveBooks(eventSlug, bookOptions, market.onSnapshot);
  const liveBook = selected ? books.get(selected.id) : undefined;
  // Without the stream, the book is read once over REST (and again on request), and that read is what shows.
  const down = streamStatus === 'down';
  const readBook = useBookReadOnce(selected?.id, tradable && down);
  const book = down ? (readBook.book ?? liveBook) : (liveBook ?? readBook.book);
  const resolvedLike = status === 'resolved';
  const tradesHere = useTradesHere(eventSlug, signedIn && resolvedLike);
  const settlements = useApi(signedIn && status === 'settled' ? '/api/me/settlements' : null, {
    params: { query: { eventSlug, limit: 200 } },
  });
  const held = useMemo(
    () =>
      markPositions(
        (portfolio.data?.data ?? []).filter((p) => p.eventSlug === eventSlug && p.quantity > 0),
        options,
      ),
    [portfolio.data, eventSlug, options],
  );

  if (!data) {
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
  // A trade here means a position held here, now or before: former holders may dispute too.
  const hasTraded = (tradesHere.data?.data.length ?? 0) > 0;

  return (
    <div className="page market-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Markets</Link> <span aria-hidden="true">›</span>{' '}
        <Link to={`/?category=${encodeURIComponent(data.category)}`}>{titleCase(data.category)}</Link>
      </nav>
      <Header data={data} status={status} signedIn={signedIn} />

      <div className={`market-layout${tradable ? '' : ' market-done'}`}>
        <div className="market-main">
          <OptionsTable
            market={data}
            status={status}
            selectedId={selected?.id}
            side={side}
            books={books}
            onPick={(id, value) => {
              setOptionId(id);
              setSide(value);
              // From a price straight to the number of shares: the order is then a few keys away.
              requestAnimationFrame(() => sharesField.current?.focus());
            }}
          />
          {signedIn && data.exclusive && convertible(status) ? (
            <div className="area-convert">
              <Conversions market={data} positions={held} />
            </div>
          ) : null}
          <section className="card area-chart">
            <Suspense fallback={<Loading label="Loading the chart…" />}>
              <MarketChart
                options={options}
                exclusive={data.exclusive}
                selected={selected}
                view={chart.view}
                onView={chart.setView}
                range={range}
                onRange={setRange}
                interval={chart.interval}
                onInterval={chart.setInterval}
                candlesFrom={chart.candlesFrom}
              />
            </Suspense>
          </section>
          {tradable ? (
            <div className="area-book">
              <OrderBookView
                book={book}
                error={readBook.error}
                side={side}
                onSide={setSide}
                onPick={setPicked}
                status={streamStatus}
                onRefresh={readBook.refresh}
              />
            </div>
          ) : null}
          <LazyTape key={data.slug} slug={data.slug} options={options} />
          {signedIn ? (
            <div className="area-activity">
              <YourActivity
                slug={data.slug}
                positions={held}
                loaded={portfolio.data !== undefined}
                positionsError={portfolio.error}
                tradable={tradable}
                tradesNow={resolvedLike}
              />
            </div>
          ) : null}
          <LazyDiscussion eventId={data.id} eventSlug={data.slug} />
        </div>
        <div className="market-side">
          <div className="area-ticket">
            {selected && tradable ? (
              <TradeTicket
                market={data}
                optionId={selected.id}
                onOption={setOptionId}
                side={side}
                onSide={setSide}
                book={book}
                positions={held}
                picked={picked}
                sharesField={sharesField}
              />
            ) : (
              <OutcomePanel
                market={data}
                status={status}
                held={held}
                settlements={signedIn ? { data: settlements.data?.data, error: settlements.error } : null}
              >
                <DisputeButton market={data} heldPosition={held.length > 0 || hasTraded} />
              </OutcomePanel>
            )}
          </div>
          <MarketSide slug={data.slug} />
        </div>
      </div>
    </div>
  );
}
