import { HeldShares } from './HeldShares';
import { MakerTerms } from './MakerTerms';
import { PriceField } from './PriceField';
import { PriceHint } from './PriceHint';
import { SharesField } from './SharesField';
import type { TradeTicketState } from './useTradeTicket';

/** How many shares at what price, what the trader holds to sell, and a limit order's time in force and post-only. */
export function OrderTerms({ ticket }: { ticket: TradeTicketState }) {
  const { ids, side, signedIn, inputs, edits, order } = ticket;
  const selling = inputs.action === 'SELL';
  return (
    <>
      <div className="field-row">
        <SharesField
          id={`${ids}-qty`}
          field={ticket.sharesField}
          quantity={inputs.quantity}
          describedBy={selling ? `${ids}-held` : undefined}
          onChange={edits.setQuantity}
        />
        <PriceField
          id={`${ids}-price`}
          hintId={`${ids}-price-hint`}
          kind={inputs.kind}
          action={inputs.action}
          price={order.price}
          suggested={order.suggestion !== null}
          onChange={(value) => edits.setTyped({ contract: order.contract, value })}
        />
      </div>
      {selling && signedIn ? (
        <HeldShares
          id={`${ids}-held`}
          side={side}
          optionLabel={order.option.label}
          holding={order.holding}
          sellable={order.sellable}
          onMax={() => edits.setQuantity(String(order.sellable))}
        />
      ) : null}
      <PriceHint id={`${ids}-price-hint`} kind={inputs.kind} />
      {inputs.kind === 'limit' ? <MakerTerms ticket={ticket} /> : null}
    </>
  );
}
