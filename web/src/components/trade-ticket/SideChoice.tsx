import type { Action, OrderBook, Side } from '../../api/types';
import { formatPrice } from '../../lib/format';
import { levelsTaken } from '../../lib/market';
import { SegmentedChoice } from '../SegmentedChoice';
import { sideName } from './order-draft';

/** The best price of a side in the book now: a number, `null` when nobody offers it, undefined while loading. */
function quote(book: OrderBook | undefined, side: Side, action: Action): number | null | undefined {
  if (!book) return undefined;
  return levelsTaken(book, side, action)[0]?.priceCents ?? null;
}

function quoteText(book: OrderBook | undefined, side: Side, action: Action): string {
  const best = quote(book, side, action);
  return best === undefined ? '…' : best === null ? 'none' : formatPrice(best);
}

/** Yes or No, each with its best price for the direction chosen; in an exclusive event, what each side pays on. */
export function SideChoice({
  side,
  action,
  book,
  optionLabel,
  exclusive,
  onChoose,
}: {
  side: Side;
  action: Action;
  /** The selected option's book; undefined while it loads. */
  book: OrderBook | undefined;
  optionLabel: string;
  exclusive: boolean;
  onChoose: (side: Side) => void;
}) {
  const choices = (['YES', 'NO'] as const).map((value) => ({
    value,
    label: `${sideName(value)} ${quoteText(book, value, action)}`,
    className: value === 'YES' ? 'yes' : 'no',
    testId: `ticket-${value.toLowerCase()}-price`,
  }));
  return (
    <>
      <SegmentedChoice
        legend={`Outcome (${action === 'BUY' ? 'best offer' : 'best bid'})`}
        name="side"
        className="sides"
        choices={choices}
        value={side}
        onChoose={onChoose}
      />
      {exclusive ? (
        <p className="muted small" data-testid="side-meaning">
          {side === 'YES'
            ? `Yes pays 100¢ if ${optionLabel} wins.`
            : `No pays 100¢ if ${optionLabel} does not win: any other option.`}
        </p>
      ) : null}
    </>
  );
}
