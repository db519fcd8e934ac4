import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { api, idempotencyKey } from '../api/client';
import type { Action, MarketDetail, OrderBook, OrderResult, Side } from '../api/types';
import { useAuth } from '../auth';
import { formatCredits, formatNumber, formatPrice } from '../lib/format';
import { useAction } from '../lib/hooks';
import { ErrorMessage } from './Status';

type Kind = 'market' | 'limit';

const EXPIRIES = [
  { value: '', label: 'Until cancelled' },
  { value: '1', label: '1 hour' },
  { value: '24', label: '1 day' },
  { value: '168', label: '1 week' },
  { value: '720', label: '30 days' },
];

function sideName(side: Side): string {
  return side === 'YES' ? 'Yes' : 'No';
}

/** The price a new ticket starts from: what the book offers right now for this side and direction. */
export function suggestedPrice(
  book: OrderBook | undefined,
  fallbackCents: number,
  side: Side,
  action: Action,
  kind: Kind,
): number {
  const view = book ? (side === 'YES' ? book.yes : book.no) : undefined;
  const takes = kind === 'market' ? action === 'BUY' : action === 'SELL';
  const level = takes ? view?.asks[0] : view?.bids[0];
  return Math.min(99, Math.max(1, level?.priceCents ?? fallbackCents));
}

function describeResult(order: OrderResult): string {
  const side = sideName(order.side);
  const verb = order.action === 'BUY' ? 'Bought' : 'Sold';
  const filled =
    order.filledQuantity > 0
      ? `${verb} ${formatNumber(order.filledQuantity)} ${side} at ${formatPrice(order.averagePriceCents)} on average.`
      : '';
  if (order.kind === 'market') {
    const rest =
      order.remainingQuantity > 0
        ? ` ${formatNumber(order.remainingQuantity)} could not be filled at your price and were cancelled.`
        : '';
    return `${filled}${rest}`;
  }
  if (order.status === 'filled') return filled;
  return `${filled} Limit order open: ${formatNumber(order.remainingQuantity)} ${side} at ${formatPrice(order.priceCents)}.`.trim();
}

export function TradeTicket({
  market,
  optionId,
  onOption,
  side,
  onSide,
  book,
  onPlaced,
}: {
  market: MarketDetail;
  optionId: string;
  onOption: (optionId: string) => void;
  side: Side;
  onSide: (side: Side) => void;
  book: OrderBook | undefined;
  onPlaced: (order: OrderResult) => void;
}) {
  const { signedIn, me, refresh } = useAuth();
  const ids = useId();
  const [action, setAction] = useState<Action>('BUY');
  const [kind, setKind] = useState<Kind>('market');
  const [quantity, setQuantity] = useState('10');
  // The price the user typed, remembered for the contract it was typed for; any other contract starts from the book.
  const [typed, setTyped] = useState<{ contract: string; value: string } | null>(null);
  const [expiry, setExpiry] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const option = market.options.find((candidate) => candidate.id === optionId) ?? market.options[0]!;
  const fallback = side === 'YES' ? option.yesPriceCents : option.noPriceCents;
  const bookForOption = book?.optionId === option.id ? book : undefined;
  const suggestion = suggestedPrice(bookForOption, fallback, side, action, kind);

  const contract = `${option.id}|${side}|${action}|${kind}`;
  const price = typed?.contract === contract ? typed.value : String(suggestion);

  const place = useAction(async () => {
    const body = {
      optionId: option.id,
      side,
      action,
      quantity: Number(quantity),
      ...(kind === 'market'
        ? { priceCents: Number(price) }
        : { limitPriceCents: Number(price), ...(expiry ? { expiresInHours: Number(expiry) } : {}) }),
    };
    const order = await api<OrderResult>(kind === 'market' ? '/api/trades' : '/api/limit-orders', {
      method: 'POST',
      body,
      headers: { 'idempotency-key': idempotencyKey() },
    });
    setResult(describeResult(order));
    refresh();
    onPlaced(order);
  });

  const qty = Number(quantity);
  const cents = Number(price);
  const valid = Number.isInteger(qty) && qty >= 1 && Number.isInteger(cents) && cents >= 1 && cents <= 99;
  const open = market.status === 'open';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    if (valid) void place.run();
  };

  return (
    <section className="card ticket" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Trade</h2>
      {!open ? <p className="notice">This market is {market.status}: trading is closed.</p> : null}
      <form onSubmit={submit} noValidate>
        {market.options.length > 1 ? (
          <div className="field">
            <label htmlFor={`${ids}-option`}>Option</label>
            <select id={`${ids}-option`} value={option.id} onChange={(event) => onOption(event.target.value)}>
              {market.options.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <fieldset className="segmented">
          <legend>Direction</legend>
          {(['BUY', 'SELL'] as const).map((value) => (
            <label key={value}>
              <input
                type="radio"
                name="action"
                value={value}
                checked={action === value}
                onChange={() => setAction(value)}
              />
              <span>{value === 'BUY' ? 'Buy' : 'Sell'}</span>
            </label>
          ))}
        </fieldset>
        <fieldset className="segmented sides">
          <legend>Outcome</legend>
          {(['YES', 'NO'] as const).map((value) => (
            <label key={value} className={value === 'YES' ? 'yes' : 'no'}>
              <input
                type="radio"
                name="side"
                value={value}
                checked={side === value}
                onChange={() => onSide(value)}
              />
              <span>
                {sideName(value)} {formatPrice(value === 'YES' ? option.yesPriceCents : option.noPriceCents)}
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset className="segmented">
          <legend>Order type</legend>
          <label>
            <input
              type="radio"
              name="kind"
              value="market"
              checked={kind === 'market'}
              onChange={() => setKind('market')}
            />
            <span>Market</span>
          </label>
          <label>
            <input
              type="radio"
              name="kind"
              value="limit"
              checked={kind === 'limit'}
              onChange={() => setKind('limit')}
            />
            <span>Limit</span>
          </label>
        </fieldset>
        <div className="field-row">
          <div className="field">
            <label htmlFor={`${ids}-qty`}>Shares</label>
            <input
              id={`${ids}-qty`}
              type="number"
              inputMode="numeric"
              min={1}
              step={1}
              required
              value={quantity}
              onChange={(event) => setQuantity(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${ids}-price`}>
              {kind === 'market'
                ? action === 'BUY'
                  ? 'Highest price (¢)'
                  : 'Lowest price (¢)'
                : 'Limit price (¢)'}
            </label>
            <input
              id={`${ids}-price`}
              type="number"
              inputMode="numeric"
              min={1}
              max={99}
              step={1}
              required
              value={price}
              aria-describedby={`${ids}-price-hint`}
              onChange={(event) => setTyped({ contract, value: event.target.value })}
            />
          </div>
        </div>
        <p id={`${ids}-price-hint`} className="muted small">
          {kind === 'market'
            ? 'Fills now at the best prices available up to this limit; anything left is cancelled.'
            : 'Fills at this price or better; the rest waits in the order book.'}
        </p>
        {kind === 'limit' ? (
          <div className="field">
            <label htmlFor={`${ids}-expiry`}>Expires</label>
            <select id={`${ids}-expiry`} value={expiry} onChange={(event) => setExpiry(event.target.value)}>
              {EXPIRIES.map((item) => (
                <option key={item.value} value={item.value}>
                  {item.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}

        {valid ? (
          <dl className="preview" aria-live="polite">
            {action === 'BUY' ? (
              <>
                <div>
                  <dt>{kind === 'market' ? 'Cost, at most' : 'Cost'}</dt>
                  <dd data-testid="preview-cost">{formatCredits(cents * qty)}</dd>
                </div>
                <div>
                  <dt>Pays if {sideName(side)} wins</dt>
                  <dd data-testid="preview-payout">{formatCredits(100 * qty)}</dd>
                </div>
                <div>
                  <dt>Profit if right</dt>
                  <dd className="gain">{formatCredits((100 - cents) * qty)}</dd>
                </div>
              </>
            ) : (
              <div>
                <dt>{kind === 'market' ? 'You receive, at least' : 'You receive'}</dt>
                <dd data-testid="preview-cost">{formatCredits(cents * qty)}</dd>
              </div>
            )}
            {me ? (
              <div>
                <dt>Available</dt>
                <dd>{formatCredits(me.balance.cashCents)}</dd>
              </div>
            ) : null}
          </dl>
        ) : (
          <p className="field-error" role="alert">
            Enter a whole number of shares (at least 1) and a price from 1¢ to 99¢.
          </p>
        )}

        {signedIn ? (
          <button type="submit" className="button block" disabled={!open || !valid || place.pending}>
            {place.pending
              ? 'Placing…'
              : `${action === 'BUY' ? 'Buy' : 'Sell'} ${sideName(side)}${kind === 'limit' ? ' (limit)' : ''}`}
          </button>
        ) : (
          <p className="notice">
            <Link to={`/login?next=/markets/${market.slug}`}>Log in</Link> or{' '}
            <Link to={`/register?next=/markets/${market.slug}`}>sign up</Link> to trade.
          </p>
        )}
        <ErrorMessage error={place.error} />
        {result ? (
          <p className="success" role="status">
            {result}
          </p>
        ) : null}
      </form>
    </section>
  );
}
