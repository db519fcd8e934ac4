import { ExpiryField } from './ExpiryField';
import { TIMES_IN_FORCE } from './maker-terms';
import { restsInBook, type TimeInForce } from './order-draft';
import type { TradeTicketState } from './useTradeTicket';

/** A limit order's time in force (with its expiry for GTD) and post-only, which only an order that rests may be. */
export function MakerTerms({ ticket }: { ticket: TradeTicketState }) {
  const { ids, inputs, edits } = ticket;
  const chosen = TIMES_IN_FORCE.find((item) => item.value === inputs.timeInForce)!;
  const rests = restsInBook(inputs.timeInForce);
  return (
    <>
      <div className="field">
        <label htmlFor={`${ids}-tif`}>Time in force</label>
        <select
          id={`${ids}-tif`}
          value={inputs.timeInForce}
          aria-describedby={`${ids}-tif-meaning`}
          onChange={(event) => edits.setTimeInForce(event.target.value as TimeInForce)}
        >
          {TIMES_IN_FORCE.map((item) => (
            <option key={item.value} value={item.value}>
              {item.label}
            </option>
          ))}
        </select>
        <p id={`${ids}-tif-meaning`} className="muted small">
          {chosen.meaning}
        </p>
      </div>
      {inputs.timeInForce === 'GTD' ? (
        <ExpiryField id={`${ids}-expiry`} expiry={inputs.expiry} onChange={edits.setExpiry} />
      ) : null}
      <label className="check">
        <input
          type="checkbox"
          checked={inputs.postOnly && rests}
          disabled={!rests}
          aria-describedby={`${ids}-post-only-meaning`}
          onChange={(event) => edits.setPostOnly(event.target.checked)}
        />
        Post-only
      </label>
      <p id={`${ids}-post-only-meaning`} className="muted small">
        {rests
          ? 'Only ever waits in the book as a maker: refused if it would trade on arrival.'
          : 'Only an order that waits in the book (GTC or GTD) can be post-only.'}
      </p>
    </>
  );
}
