import { useRef, useState } from 'react';
import { Link } from 'react-router';
import type { Position } from '../api/types';
import { formatCredits, formatNumber, formatPrice, formatSignedCredits, pnlClass } from '../lib/format';
import { invalidate } from '../lib/query';
import { ProtectionsForm } from './ProtectionsForm';
import { TableScroll } from './TableScroll';

/** A position's stop-loss and take-profit, and a button that opens their form. */
function ProtectionsCell({
  position,
  editable,
  editing,
  onEdit,
}: {
  position: Position;
  editable: boolean;
  editing: boolean;
  onEdit: (button: HTMLButtonElement) => void;
}) {
  return (
    <td>
      <span className="small">
        {position.stopLossProbBps !== null ? `Stop ${position.stopLossProbBps / 100}¢ ` : ''}
        {position.takeProfitProbBps !== null ? `Take ${position.takeProfitProbBps / 100}¢` : ''}
      </span>{' '}
      {editable ? (
        <button
          type="button"
          className="link-button"
          aria-expanded={editing}
          aria-controls="protections-form"
          onClick={(event) => onEdit(event.currentTarget)}
        >
          {position.stopLossProbBps === null && position.takeProfitProbBps === null ? 'Add' : 'Edit'}
          <span className="visually-hidden"> protections for {position.optionLabel}</span>
        </button>
      ) : null}
    </td>
  );
}

/** A position: its market, shares, average and mark prices, value, profit and loss, and protections. */
function PositionRow({
  position,
  showMarket,
  editable,
  editing,
  onEdit,
}: {
  position: Position;
  showMarket: boolean;
  editable: boolean;
  editing: boolean;
  onEdit: (button: HTMLButtonElement) => void;
}) {
  return (
    <tr data-testid="position">
      {showMarket ? (
        <td>
          <Link to={`/markets/${position.eventSlug}`}>{position.eventTitle}</Link>
          <div className="muted small">{position.optionLabel}</div>
        </td>
      ) : null}
      <td>
        {formatNumber(position.quantity)}{' '}
        <span className={position.side === 'YES' ? 'yes' : 'no'}>
          {position.side === 'YES' ? 'Yes' : 'No'}
        </span>
        {showMarket ? null : <span className="muted"> · {position.optionLabel}</span>}
      </td>
      <td>{formatPrice(position.avgPriceCents)}</td>
      <td>
        {formatPrice(position.markPriceCents)}
        {position.resolution ? <div className="muted small">payout</div> : null}
      </td>
      <td>{formatCredits(position.valueCents)}</td>
      <td className={pnlClass(position.unrealizedPnlCents)}>
        {formatSignedCredits(position.unrealizedPnlCents)}
      </td>
      <td className={pnlClass(position.realizedPnlCents)}>
        {formatSignedCredits(position.realizedPnlCents)}
      </td>
      <ProtectionsCell position={position} editable={editable} editing={editing} onEdit={onEdit} />
    </tr>
  );
}

/** Positions held, with their protections edited below the table (the keyboard returns to the button after). */
export function PositionsTable({
  positions,
  showMarket = true,
  protections = true,
}: {
  positions: Position[];
  showMarket?: boolean;
  /** Stop-loss and take-profit only make sense while the market trades. */
  protections?: boolean;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  // The button that opened the form: where the keyboard goes back when it closes.
  const opener = useRef<HTMLButtonElement | null>(null);
  const edited = positions.find((position) => position.id === editing);
  const close = () => {
    setEditing(null);
    opener.current?.focus();
  };
  return (
    <>
      <TableScroll label="Positions table">
        <table className="data" aria-label="Positions">
          <thead>
            <tr>
              {showMarket ? <th scope="col">Market</th> : null}
              <th scope="col">Position</th>
              <th scope="col">Avg price</th>
              <th scope="col">Mark</th>
              <th scope="col">Value</th>
              <th scope="col">Unrealized P&amp;L</th>
              <th scope="col">Realized P&amp;L</th>
              <th scope="col">Protections</th>
            </tr>
          </thead>
          <tbody>
            {positions.map((position) => (
              <PositionRow
                key={position.id}
                position={position}
                showMarket={showMarket}
                editable={position.quantity > 0 && protections && !position.resolution}
                editing={editing === position.id}
                onEdit={(button) => {
                  opener.current = button;
                  setEditing(editing === position.id ? null : position.id);
                }}
              />
            ))}
          </tbody>
        </table>
      </TableScroll>
      {edited ? (
        <ProtectionsForm
          position={edited}
          onSaved={() => {
            invalidate('/api/positions');
            close();
          }}
          onCancel={close}
        />
      ) : null}
    </>
  );
}
