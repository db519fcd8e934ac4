import type { Position, Side } from '../../api/types';
import { formatNumber } from '../../lib/format';
import { sideName } from './order-draft';

/** When selling: the shares held that are free to sell, those already offered, and a button to sell them all. */
export function HeldShares({
  id,
  side,
  optionLabel,
  holding,
  sellable,
  onMax,
}: {
  id: string;
  side: Side;
  optionLabel: string;
  holding: Position | undefined;
  sellable: number;
  onMax: () => void;
}) {
  return (
    <p id={id} className="small held">
      You hold <span data-testid="shares-held">{formatNumber(sellable)}</span> {sideName(side)} shares of{' '}
      {optionLabel}
      {holding && holding.reservedQuantity > 0
        ? ` (${formatNumber(holding.reservedQuantity)} more offered in open orders)`
        : ''}
      .{' '}
      {sellable > 0 ? (
        <button type="button" className="link-button" onClick={onMax}>
          Max
        </button>
      ) : null}
    </p>
  );
}
