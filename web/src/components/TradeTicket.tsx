import {
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { Link } from 'react-router';
import { apiClient, idempotencyKey, typed } from '../api/client';
import type {
  Action,
  BookLevel,
  LimitOrderRequest,
  MarketDetail,
  OrderBook,
  OrderResult,
  Position,
  Side,
  TradeRequest,
} from '../api/types';
import { useAuth } from '../auth';
import { holdingsChanged } from '../lib/account-live';
import { formatChances, formatCredits, formatNumber, formatPrice } from '../lib/format';
import { useAction } from '../lib/hooks';
import { estimateFill, type FillEstimate, levelsTaken, priceToFill } from '../lib/market';
import type { PickedPrice } from './OrderBookView';
import { ErrorMessage } from './Status';

type Kind = 'market' | 'limit';

/** Orders that could cost or bring more than this (in cents) are shown for review before they are sent. */
export const REVIEW_ABOVE_CENTS = 10_000;

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

function clampPrice(cents: number): number {
  return Math.min(99, Math.max(1, cents));
}

/**
 * The price a new ticket starts from, always one the book has: a market order at the price that fills the whole
 * quantity from the visible book; a limit order at the best price on its own side (it waits there). Null while the
 * book is unknown, or when it has nothing to start from: the trader types a price.
 */
export function suggestedPrice(
  levels: { taken: BookLevel[]; own: BookLevel[] } | undefined,
  kind: Kind,
  quantity: number,
): number | null {
  if (!levels) return null;
  // A limit order with nobody on its own side waits at the best price of the other side, the nearest real one.
  const cents =
    kind === 'market'
      ? priceToFill(levels.taken, Math.max(1, quantity))
      : (levels.own[0]?.priceCents ?? levels.taken[0]?.priceCents ?? null);
  return cents === null ? null : clampPrice(cents);
}

type OrderRequest = { kind: 'market'; body: TradeRequest } | { kind: 'limit'; body: LimitOrderRequest };

/** Places a market order (a trade) or a limit order, under a fresh Idempotency-Key so a retry never doubles it. */
function placeOrder({ kind, body }: OrderRequest): Promise<OrderResult> {
  const params = { header: { 'idempotency-key': idempotencyKey() } };
  return kind === 'market'
    ? typed(apiClient.POST('/api/trades', { params, body }))
    : typed(apiClient.POST('/api/limit-orders', { params, body }));
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
    return `${filled}${rest}`.trim();
  }
  if (order.status === 'filled') return filled;
  return `${filled} Limit order open: ${formatNumber(order.remainingQuantity)} ${side} at ${formatPrice(order.priceCents)}.`.trim();
}

/** The estimate from the visible book, in words: how much fills, at what average, and what happens to the rest. */
function EstimateLine({
  estimate,
  quantity,
  kind,
  action,
}: {
  estimate: FillEstimate;
  quantity: number;
  kind: Kind;
  action: Action;
}) {
  const rest = quantity - estimate.filled;
  if (estimate.filled === 0) {
    return (
      <p className={kind === 'market' ? 'field-error' : 'muted small'} data-testid="estimate">
        {kind === 'market'
          ? 'Nothing in the book at this price: this order would not fill. Change the price or place a limit order.'
          : `Nothing fills now: the order waits in the book for a ${action === 'BUY' ? 'seller' : 'buyer'}.`}
      </p>
    );
  }
  const fills = `${formatNumber(estimate.filled)} of ${formatNumber(quantity)} fill now at about ${formatPrice(estimate.averageCents)} on average`;
  const tail =
    rest === 0
      ? '.'
      : kind === 'market'
        ? `; the other ${formatNumber(rest)} would be cancelled.`
        : `; ${formatNumber(rest)} wait in the book.`;
  return (
    <p className={rest > 0 && kind === 'market' ? 'warning' : 'muted small'} data-testid="estimate">
      Estimate: {fills}
      {tail}
    </p>
  );
}

function useTicketState(onChange: () => void) {
  const [action, setAction] = useState<Action>('BUY');
  const [kind, setKind] = useState<Kind>('market');
  const [quantity, setQuantity] = useState('10');
  // The price the user typed, remembered for the contract it was typed for; any other contract starts from the book.
  const [typed, setTyped] = useState<{ contract: string; value: string } | null>(null);
  const [expiry, setExpiry] = useState('');
  // Every edit clears the last outcome and any review in progress: a message always speaks of the inputs shown.
  const edit =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      onChange();
    };
  return {
    action,
    kind,
    quantity,
    typed,
    expiry,
    setAction: edit(setAction),
    setKind: edit(setKind),
    setQuantity: edit(setQuantity),
    setTyped: edit(setTyped),
    setExpiry: edit(setExpiry),
  };
}

export function TradeTicket({
  market,
  optionId,
  onOption,
  side,
  onSide,
  book,
  positions,
  picked,
  sharesField,
}: {
  market: MarketDetail;
  optionId: string;
  onOption: (optionId: string) => void;
  side: Side;
  onSide: (side: Side) => void;
  /** The selected option's book; undefined until it arrives. */
  book: OrderBook | undefined;
  positions: Position[];
  picked: PickedPrice | null;
  /** The Shares field, where a picked price sends the keyboard and where it returns after an order. */
  sharesField: RefObject<HTMLInputElement | null>;
}) {
  const { signedIn, me } = useAuth();
  const ids = useId();
  const [result, setResult] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const place = useAction(async (request: OrderRequest) => {
    try {
      const order = await placeOrder(request);
      setResult(describeResult(order));
    } finally {
      // Whatever the answer, the balance and holdings on screen are read again: never a stale "Available".
      holdingsChanged();
      sharesField.current?.focus();
    }
  });
  const { clearError } = place;
  const reset = () => {
    setResult(null);
    setReviewing(false);
    clearError();
  };
  const ticket = useTicketState(reset);
  const { action, kind, quantity, typed, expiry } = ticket;

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new pick fills the ticket
  useEffect(() => {
    if (!picked) return;
    onSide(picked.side);
    ticket.setAction(picked.action);
    ticket.setKind('limit');
    ticket.setTyped({
      contract: `${optionId}|${picked.side}|${picked.action}|limit`,
      value: String(picked.priceCents),
    });
  }, [picked?.at]);

  const option = market.options.find((candidate) => candidate.id === optionId) ?? market.options[0]!;
  const bookForOption = book?.optionId === option.id ? book : undefined;
  const qty = Number(quantity);
  const taken = bookForOption ? levelsTaken(bookForOption, side, action) : undefined;
  const own = bookForOption ? levelsTaken(bookForOption, side, action === 'BUY' ? 'SELL' : 'BUY') : undefined;
  const suggestion = suggestedPrice(taken && own ? { taken, own } : undefined, kind, qty);
  const contract = `${option.id}|${side}|${action}|${kind}`;
  const price = typed?.contract === contract ? typed.value : suggestion === null ? '' : String(suggestion);
  const cents = Number(price);
  const priceGiven = price.trim() !== '';
  const valid =
    Number.isInteger(qty) && qty >= 1 && priceGiven && Number.isInteger(cents) && cents >= 1 && cents <= 99;
  const estimate = valid && taken ? estimateFill(taken, action, qty, cents) : null;
  const holding = positions.find((p) => p.optionId === option.id && p.side === side);
  const sellable = holding ? holding.quantity - holding.reservedQuantity : 0;
  const worstCost = cents * qty;
  const cash = me?.balance.cashCents ?? null;
  // A market order takes from the book: with nothing on the other side there is nothing to trade against.
  const noLiquidity = kind === 'market' && taken !== undefined && taken.length === 0;
  const problem = !bookForOption
    ? null
    : noLiquidity
      ? `Nobody is ${action === 'BUY' ? 'selling' : 'buying'} ${sideName(side)} shares of ${option.label} right now, so a market order cannot fill. Place a limit order to wait in the book.`
      : !valid
        ? 'Enter a whole number of shares (at least 1) and a price from 1¢ to 99¢.'
        : action === 'BUY' && cash !== null && worstCost > cash
          ? `This order could cost ${formatCredits(worstCost)}, more than the ${formatCredits(cash)} you have available.`
          : action === 'SELL' && signedIn && qty > sellable
            ? `You can sell at most ${formatNumber(sellable)} ${sideName(side)} shares of ${option.label}.`
            : null;
  const open = market.status === 'open';
  const ready = bookForOption !== undefined && !problem && open;

  const send = () => {
    setResult(null);
    setReviewing(false);
    sharesField.current?.focus();
    const order = { optionId: option.id, side, action, quantity: qty };
    void place.run(
      kind === 'market'
        ? { kind, body: { ...order, priceCents: cents } }
        : {
            kind,
            body: { ...order, limitPriceCents: cents, ...(expiry ? { expiresInHours: Number(expiry) } : {}) },
          },
    );
  };
  const review = () => {
    setReviewing(true);
    requestAnimationFrame(() => confirmButton.current?.focus());
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    if (worstCost > REVIEW_ABOVE_CENTS) review();
    else send();
  };
  // Enter in a field never sends an order by itself: it opens the review, with the keyboard on Confirm.
  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== 'Enter' || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    if (ready) review();
  };
  /** The best price of a side in the book now: a number, `null` when nobody offers it, undefined while loading. */
  const quote = (value: Side): number | null | undefined => {
    if (!bookForOption) return undefined;
    return levelsTaken(bookForOption, value, action)[0]?.priceCents ?? null;
  };
  const quoteText = (value: Side) => {
    const best = quote(value);
    return best === undefined ? '…' : best === null ? 'none' : formatPrice(best);
  };
  const verb = action === 'BUY' ? 'Buy' : 'Sell';
  const chances = formatChances(market.options.map((candidate) => candidate.probabilityBps));

  return (
    <section className="card ticket" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Trade</h2>
      <form onSubmit={submit} onKeyDown={onKeyDown} noValidate>
        {market.options.length > 1 ? (
          <div className="field">
            <label htmlFor={`${ids}-option`}>Option</label>
            <select
              id={`${ids}-option`}
              value={option.id}
              onChange={(event) => {
                reset();
                onOption(event.target.value);
              }}
            >
              {market.options.map((candidate, index) => (
                <option key={candidate.id} value={candidate.id}>
                  {market.exclusive ? `${candidate.label} · ${chances[index]}` : candidate.label}
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
                onChange={() => ticket.setAction(value)}
              />
              <span>{value === 'BUY' ? 'Buy' : 'Sell'}</span>
            </label>
          ))}
        </fieldset>
        <fieldset className="segmented sides">
          <legend>Outcome ({action === 'BUY' ? 'best offer' : 'best bid'})</legend>
          {(['YES', 'NO'] as const).map((value) => (
            <label key={value} className={value === 'YES' ? 'yes' : 'no'}>
              <input
                type="radio"
                name="side"
                value={value}
                checked={side === value}
                onChange={() => {
                  reset();
                  onSide(value);
                }}
              />
              <span data-testid={`ticket-${value.toLowerCase()}-price`}>
                {sideName(value)} {quoteText(value)}
              </span>
            </label>
          ))}
        </fieldset>
        {market.exclusive ? (
          <p className="muted small" data-testid="side-meaning">
            {side === 'YES'
              ? `Yes pays 100¢ if ${option.label} wins.`
              : `No pays 100¢ if ${option.label} does not win: any other option.`}
          </p>
        ) : null}
        <fieldset className="segmented">
          <legend>Order type</legend>
          {(['market', 'limit'] as const).map((value) => (
            <label key={value}>
              <input
                type="radio"
                name="kind"
                value={value}
                checked={kind === value}
                onChange={() => ticket.setKind(value)}
              />
              <span>{value === 'market' ? 'Market' : 'Limit'}</span>
            </label>
          ))}
        </fieldset>
        <div className="field-row">
          <div className="field">
            <label htmlFor={`${ids}-qty`}>Shares</label>
            <input
              ref={sharesField}
              id={`${ids}-qty`}
              type="number"
              inputMode="numeric"
              min={1}
              step={1}
              required
              value={quantity}
              aria-describedby={action === 'SELL' ? `${ids}-held` : undefined}
              onChange={(event) => ticket.setQuantity(event.target.value)}
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
              placeholder={suggestion === null ? 'Your price' : undefined}
              aria-describedby={`${ids}-price-hint`}
              onChange={(event) => ticket.setTyped({ contract, value: event.target.value })}
            />
          </div>
        </div>
        {action === 'SELL' && signedIn ? (
          <p id={`${ids}-held`} className="small held">
            You hold <span data-testid="shares-held">{formatNumber(sellable)}</span> {sideName(side)} shares
            of {option.label}
            {holding && holding.reservedQuantity > 0
              ? ` (${formatNumber(holding.reservedQuantity)} more offered in open orders)`
              : ''}
            .{' '}
            {sellable > 0 ? (
              <button
                type="button"
                className="link-button"
                onClick={() => ticket.setQuantity(String(sellable))}
              >
                Max
              </button>
            ) : null}
          </p>
        ) : null}
        <p id={`${ids}-price-hint`} className="muted small">
          {kind === 'market'
            ? 'Fills now at the best prices available up to this limit; anything left is cancelled.'
            : 'Fills at this price or better; the rest waits in the order book.'}
        </p>
        {kind === 'limit' ? (
          <div className="field">
            <label htmlFor={`${ids}-expiry`}>Expires</label>
            <select
              id={`${ids}-expiry`}
              value={expiry}
              onChange={(event) => ticket.setExpiry(event.target.value)}
            >
              {EXPIRIES.map((item) => (
                <option key={item.value} value={item.value}>
                  {item.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}

        {!bookForOption ? <p className="muted small">Reading the order book…</p> : null}
        {valid && !noLiquidity ? (
          <div aria-live="polite">
            {estimate ? (
              <EstimateLine estimate={estimate} quantity={qty} kind={kind} action={action} />
            ) : null}
            <dl className="preview">
              {action === 'BUY' ? (
                <>
                  {estimate && estimate.filled > 0 && kind === 'market' ? (
                    <div>
                      <dt>Estimated cost</dt>
                      <dd data-testid="preview-estimate">{formatCredits(estimate.totalCents)}</dd>
                    </div>
                  ) : null}
                  <div>
                    <dt>{kind === 'market' ? 'Cost, at most' : 'Cost'}</dt>
                    <dd data-testid="preview-cost">{formatCredits(worstCost)}</dd>
                  </div>
                  <div>
                    <dt>
                      {market.exclusive
                        ? `Pays if ${option.label} ${side === 'YES' ? 'wins' : 'does not win'}`
                        : `Pays if ${sideName(side)} wins`}
                    </dt>
                    <dd data-testid="preview-payout">{formatCredits(100 * qty)}</dd>
                  </div>
                </>
              ) : (
                <>
                  {estimate && estimate.filled > 0 && kind === 'market' ? (
                    <div>
                      <dt>Estimated proceeds</dt>
                      <dd data-testid="preview-estimate">{formatCredits(estimate.totalCents)}</dd>
                    </div>
                  ) : null}
                  <div>
                    <dt>{kind === 'market' ? 'You receive, at least' : 'You receive'}</dt>
                    <dd data-testid="preview-cost">{formatCredits(worstCost)}</dd>
                  </div>
                </>
              )}
              {cash !== null ? (
                <div>
                  <dt>Available</dt>
                  <dd>{formatCredits(cash)}</dd>
                </div>
              ) : null}
            </dl>
          </div>
        ) : null}
        {problem && !result && !place.error ? (
          <p className="field-error" role="alert" data-testid="ticket-problem">
            {problem}
          </p>
        ) : null}

        {reviewing && !problem ? (
          <section className="review" aria-labelledby={`${ids}-review`}>
            <h3 id={`${ids}-review`}>Review your order</h3>
            <p data-testid="review-summary">
              {verb} {formatNumber(qty)} {sideName(side)} · {option.label} ·{' '}
              {kind === 'market' ? 'market order, ' : 'limit '}
              {action === 'BUY' ? 'paying at most' : 'receiving at least'} {formatPrice(cents)} a share:{' '}
              {action === 'BUY' ? 'up to' : 'at least'} {formatCredits(worstCost)}.
            </p>
            <div className="actions">
              <button
                ref={confirmButton}
                type="button"
                className="button"
                onClick={send}
                disabled={place.pending}
              >
                Confirm {verb.toLowerCase()}
              </button>
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  setReviewing(false);
                  sharesField.current?.focus();
                }}
              >
                Change it
              </button>
            </div>
          </section>
        ) : signedIn ? (
          <button type="submit" className="button block" disabled={!ready || place.pending}>
            {place.pending ? 'Placing…' : `${verb} ${sideName(side)}${kind === 'limit' ? ' (limit)' : ''}`}
          </button>
        ) : (
          <p className="notice">
            <Link to={`/login?next=/markets/${market.slug}`}>Log in</Link> or{' '}
            <Link to={`/register?next=/markets/${market.slug}`}>sign up</Link> to trade.
          </p>
        )}
        {place.error ? (
          <ErrorMessage error={place.error} />
        ) : result ? (
          <p className="success" role="status">
            {result}
          </p>
        ) : null}
      </form>
    </section>
  );
}
