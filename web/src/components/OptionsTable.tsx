import type { MarketDetail, OrderBook, Side } from '../api/types';
import {
  chanceTenths,
  formatCredits,
  formatPercentBps,
  formatPrice,
  formatTenths,
  titleCase,
} from '../lib/format';
import { buyPrice, type ShownStatus } from '../lib/market';
import { TableScroll } from './TableScroll';

function Outcome({ resolution }: { resolution: 'YES' | 'NO' | 'VOID' }) {
  return (
    <span className={`tag outcome-${resolution.toLowerCase()}`}>
      {resolution === 'VOID' ? 'Void' : `Resolved ${titleCase(resolution.toLowerCase())}`}
    </span>
  );
}

type Option = MarketDetail['options'][number];

/** An option's chance while it trades (its starting one until a trade), else what it awaits or resolved to. */
function ChanceCell({
  option,
  chance,
  tradable,
}: {
  option: Option;
  chance: string | undefined;
  tradable: boolean;
}) {
  if (option.resolution) return <Outcome resolution={option.resolution} />;
  if (tradable && chance !== undefined) return <>{chance}</>;
  if (!tradable) {
    return <span className="muted">Awaiting result · last {formatPrice(option.lastYesPriceCents)}</span>;
  }
  if (option.lastYesPriceCents === null && option.houseLiquidityCents === 0) {
    return <span className="muted">No trade yet</span>;
  }
  if (option.lastYesPriceCents === null) {
    return (
      <span className="muted" title="No trade yet: the house's starting price">
        {formatPercentBps(option.probabilityBps)} <span className="small">(start)</span>
      </span>
    );
  }
  return <>{formatPercentBps(option.probabilityBps)}</>;
}

/** The price a buy of Yes and of No pays now, each a button that picks the option and side for the ticket. */
function BuyButtons({
  option,
  book,
  selected,
  side,
  onPick,
}: {
  option: Option;
  book: OrderBook | undefined;
  selected: boolean;
  side: Side;
  onPick: (optionId: string, side: Side) => void;
}) {
  const quote = book
    ? {
        bestAskCents: book.yes.asks[0]?.priceCents ?? null,
        bestBidCents: book.yes.bids[0]?.priceCents ?? null,
      }
    : option;
  return (
    <td className="buy-buttons">
      {(['YES', 'NO'] as const).map((value) => {
        const price = buyPrice({ ...option, ...quote }, value);
        return (
          <button
            key={value}
            type="button"
            data-testid={`buy-${value.toLowerCase()}`}
            className={`price-button ${value === 'YES' ? 'yes' : 'no'}`}
            aria-pressed={selected && side === value}
            onClick={() => onPick(option.id, value)}
          >
            {value === 'YES' ? 'Yes' : 'No'} {price === null ? 'none' : formatPrice(price)}
            <span className="visually-hidden">
              {' '}
              for {option.label}
              {price === null ? ': nobody is selling' : ''}
            </span>
          </button>
        );
      })}
    </td>
  );
}

/** An option's row: its label, chance or outcome, buy prices while it trades, and volume. */
function OptionRow({
  option,
  chance,
  tradable,
  book,
  selected,
  side,
  onPick,
}: {
  option: Option;
  chance: string | undefined;
  tradable: boolean;
  book: OrderBook | undefined;
  selected: boolean;
  side: Side;
  onPick: (optionId: string, side: Side) => void;
}) {
  return (
    <tr data-testid="option-row" aria-current={selected ? 'true' : undefined}>
      <th scope="row">{option.label}</th>
      <td data-testid="option-chance">
        <ChanceCell option={option} chance={chance} tradable={tradable} />
      </td>
      {tradable ? (
        <BuyButtons option={option} book={book} selected={selected} side={side} onPick={onPick} />
      ) : null}
      <td className="col-volume">{formatCredits(option.volumeCents)}</td>
    </tr>
  );
}

/** An exclusive event's chances together (exactly 100.0 %) and its whole volume. */
function ChancesTogether({ market, together }: { market: MarketDetail; together: string }) {
  return (
    <tfoot>
      <tr>
        <th scope="row">Together</th>
        <td data-testid="chances-sum">{together}</td>
        <td />
        <td className="col-volume">
          {formatCredits(market.options.reduce((sum, option) => sum + option.volumeCents, 0))}
        </td>
      </tr>
    </tfoot>
  );
}

/** What the prices mean, while the market trades. */
function PricesNote({ exclusive }: { exclusive: boolean }) {
  return exclusive ? (
    <p className="muted small">
      A Yes share of an option pays 100¢ if that option wins; a No share pays 100¢ if any other option wins.
      Buy prices are the best offers in each option’s book right now; “none” means nobody is selling.
    </p>
  ) : (
    <p className="muted small">
      A price is what a share costs in cents, and the chance the market gives the outcome: a Yes share at 62¢
      pays 100¢ if it happens. Buy prices are the best offers in the book right now; “none” means nobody is
      selling.
    </p>
  );
}

/**
 * Each option's chance and the price a buy pays now, from the live books (the read's quote until a book arrives).
 * A price the book does not have is never shown: no seller, no Buy price. Once trading has stopped, the outcome.
 */
export function OptionsTable({
  market,
  status,
  selectedId,
  side,
  books,
  onPick,
}: {
  market: MarketDetail;
  status: ShownStatus;
  selectedId: string | undefined;
  side: Side;
  books: Map<string, OrderBook>;
  onPick: (optionId: string, side: Side) => void;
}) {
  const tradable = status === 'open';
  const { exclusive } = market;
  // An exclusive event's chances, each to a tenth, and what they add up to: exactly 100.0 %.
  const tenths = chanceTenths(market.options.map((option) => option.probabilityBps));
  const chances = tenths.map(formatTenths);
  const together = formatTenths(tenths.reduce((sum, value) => sum + value, 0));
  return (
    <section className="card area-options" aria-labelledby="options-heading">
      <h2 id="options-heading">Options</h2>
      {exclusive ? (
        <p className="one-winner small" data-testid="one-winner">
          <span className="tag">One winner</span> Exactly one option wins: one market, whose chances add up to
          100 %.
        </p>
      ) : null}
      <TableScroll label="Options table">
        <table className="data options-table">
          <thead>
            <tr>
              <th scope="col">Option</th>
              <th scope="col">{tradable ? 'Chance' : 'Outcome'}</th>
              {tradable ? <th scope="col">Buy</th> : null}
              <th scope="col" className="col-volume">
                Volume
              </th>
            </tr>
          </thead>
          <tbody>
            {market.options.map((option, index) => (
              <OptionRow
                key={option.id}
                option={option}
                chance={exclusive ? chances[index] : undefined}
                tradable={tradable}
                book={books.get(option.id)}
                selected={option.id === selectedId}
                side={side}
                onPick={onPick}
              />
            ))}
          </tbody>
          {exclusive && tradable ? <ChancesTogether market={market} together={together} /> : null}
        </table>
      </TableScroll>
      {tradable ? <PricesNote exclusive={exclusive} /> : null}
    </section>
  );
}
