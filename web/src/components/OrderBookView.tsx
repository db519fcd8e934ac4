import type { CSSProperties } from 'react';
import type { StreamStatus } from '../api/stream';
import type { Action, BookLevel, OrderBook, Side } from '../api/types';
import { formatNumber, formatPrice } from '../lib/format';
import { DepthChart } from './DepthChart';
import { ErrorMessage, Loading } from './Status';

const LEVELS = 8;

/** A book level chosen as the ticket's price: an ask to buy at, a bid to sell at. */
export interface PickedPrice {
  side: Side;
  action: Action;
  priceCents: number;
  /** Tells two picks of the same level apart, so each click fills the ticket again. */
  at: number;
}

/** One price level: the price (a button that fills the ticket, where it can), the shares, who offers them. */
function LevelRow({
  level,
  max,
  verb,
  onPick,
}: {
  level: BookLevel;
  max: number;
  verb: 'Buy' | 'Sell';
  onPick?: (priceCents: number) => void;
}) {
  return (
    <tr style={{ '--depth': `${(level.quantity / max) * 100}%` } as CSSProperties}>
      <td>
        {onPick ? (
          <button
            type="button"
            className="level-button"
            title={`${verb} at ${formatPrice(level.priceCents)}`}
            onClick={() => onPick(level.priceCents)}
          >
            {formatPrice(level.priceCents)}
            <span className="visually-hidden"> ({verb.toLowerCase()} at this price)</span>
          </button>
        ) : (
          formatPrice(level.priceCents)
        )}
      </td>
      <td>{formatNumber(level.quantity)}</td>
      <td>
        {level.orders > 0 ? level.orders : null}
        {level.houseQuantity > 0 ? (
          <span className="muted small">{level.orders > 0 ? ' + house' : 'house'}</span>
        ) : null}
      </td>
    </tr>
  );
}

function Levels({
  title,
  levels,
  kind,
  max,
  onPick,
}: {
  title: string;
  levels: BookLevel[];
  kind: 'bids' | 'asks';
  max: number;
  onPick?: (priceCents: number) => void;
}) {
  const verb = kind === 'asks' ? 'Buy' : 'Sell';
  return (
    <table className={`book-side ${kind}`}>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Price</th>
          <th scope="col">Shares</th>
          <th scope="col">Orders</th>
        </tr>
      </thead>
      <tbody>
        {levels.length === 0 ? (
          <tr>
            <td colSpan={3} className="muted" data-testid={`no-${kind}`}>
              {kind === 'asks' ? 'Nobody is selling' : 'Nobody is buying'}
            </td>
          </tr>
        ) : (
          levels
            .slice(0, LEVELS)
            .map((level) => (
              <LevelRow key={level.priceCents} level={level} max={max} verb={verb} onPick={onPick} />
            ))
        )}
      </tbody>
    </table>
  );
}

/** Whether the book on screen follows the stream, and what to say when it does not. */
function LiveState({ status, onRefresh }: { status: StreamStatus; onRefresh: () => void }) {
  if (status === 'live') {
    return (
      <span className="live-state live" data-testid="book-live">
        <span className="dot" aria-hidden="true" /> Live
      </span>
    );
  }
  return (
    <span className="live-state down" data-testid="book-live" role="status">
      <span className="dot" aria-hidden="true" />
      {status === 'connecting'
        ? 'Connecting…'
        : 'Live updates lost: reconnecting. This book may be out of date.'}{' '}
      {status === 'down' ? (
        <button type="button" className="link-button" onClick={onRefresh}>
          Read it now
        </button>
      ) : null}
    </span>
  );
}

/** Which side's book shows: Yes or No. */
function BookSideChoice({ side, onSide }: { side: Side; onSide: (side: Side) => void }) {
  return (
    <fieldset className="chips small">
      <legend className="visually-hidden">Show the book for</legend>
      {(['YES', 'NO'] as const).map((value) => (
        <button
          key={value}
          type="button"
          className="chip"
          aria-pressed={side === value}
          onClick={() => onSide(value)}
        >
          {value === 'YES' ? 'Yes' : 'No'}
        </button>
      ))}
    </fieldset>
  );
}

/** The side's last price and live state, its bids and asks (each price picks the ticket's), and their depth. */
function BookSides({
  book,
  view,
  side,
  status,
  onRefresh,
  onPick,
}: {
  book: OrderBook;
  view: OrderBook['yes'];
  side: Side;
  status: StreamStatus;
  onRefresh: () => void;
  onPick?: (picked: PickedPrice) => void;
}) {
  const pick = (action: Action) =>
    onPick ? (priceCents: number) => onPick({ side, action, priceCents, at: Date.now() }) : undefined;
  const max = Math.max(1, ...[...view.bids, ...view.asks].slice(0, LEVELS * 2).map((l) => l.quantity));
  const last =
    book.lastYesPriceCents == null
      ? null
      : side === 'YES'
        ? book.lastYesPriceCents
        : 100 - book.lastYesPriceCents;
  const name = side === 'YES' ? 'Yes' : 'No';
  return (
    <>
      <p className="muted small">
        Last traded {name} price: {formatPrice(last)} · <LiveState status={status} onRefresh={onRefresh} />
        {onPick ? ' · pick a price to fill the ticket' : ''}
      </p>
      <div className="book">
        <Levels
          title={`Bids: buyers of ${name}`}
          levels={view.bids}
          kind="bids"
          max={max}
          onPick={pick('SELL')}
        />
        <Levels
          title={`Asks: sellers of ${name}`}
          levels={view.asks}
          kind="asks"
          max={max}
          onPick={pick('BUY')}
        />
      </div>
      <DepthChart bids={view.bids} asks={view.asks} side={side} />
    </>
  );
}

/** The aggregated book of one option from the chosen side's point of view (bids buy, asks sell). */
export function OrderBookView({
  book,
  error,
  side,
  onSide,
  onPick,
  status,
  onRefresh,
}: {
  book: OrderBook | undefined;
  error: unknown;
  side: Side;
  onSide: (side: Side) => void;
  onPick?: (picked: PickedPrice) => void;
  status: StreamStatus;
  onRefresh: () => void;
}) {
  const view = book ? (side === 'YES' ? book.yes : book.no) : undefined;
  return (
    <section className="card" aria-labelledby="book-heading">
      <div className="section-head">
        <h2 id="book-heading">Order book{book ? `: ${book.optionLabel}` : ''}</h2>
        <BookSideChoice side={side} onSide={onSide} />
      </div>
      {error && !book ? <ErrorMessage error={error} /> : null}
      {!book && !error ? (
        status === 'down' ? (
          <p className="muted small">
            <LiveState status={status} onRefresh={onRefresh} />
          </p>
        ) : (
          <Loading label="Loading the order book…" />
        )
      ) : null}
      {book && view ? (
        <BookSides
          book={book}
          view={view}
          side={side}
          status={status}
          onRefresh={onRefresh}
          onPick={onPick}
        />
      ) : null}
    </section>
  );
}
