import { termsInWords } from './maker-terms';
import { OrderOutcome } from './OrderOutcome';
import { OrderReview } from './OrderReview';
import { restsInBook, sideName } from './order-draft';
import { SignInToTrade } from './SignInToTrade';
import type { TradeTicketState } from './useTradeTicket';

/** Sending the order: its review or its button (a visitor is asked to sign in), then what came of it. */
export function OrderSubmit({ ticket }: { ticket: TradeTicketState }) {
  const { ids, market, side, inputs, order, submission } = ticket;
  const { action, kind } = inputs;
  const verb = action === 'BUY' ? 'Buy' : 'Sell';
  return (
    <>
      {submission.reviewing && !order.problem ? (
        <OrderReview
          id={`${ids}-review`}
          order={{
            action,
            kind,
            side,
            optionLabel: order.option.label,
            quantity: order.qty,
            priceCents: order.cents,
            worstCents: order.worstCost,
            terms:
              kind === 'limit'
                ? termsInWords(
                    inputs.timeInForce,
                    inputs.expiry,
                    inputs.postOnly && restsInBook(inputs.timeInForce),
                  )
                : null,
          }}
          confirmButton={submission.confirmButton}
          pending={submission.pending}
          onConfirm={ticket.send}
          onChange={submission.cancelReview}
        />
      ) : ticket.signedIn ? (
        <button type="submit" className="button block" disabled={!ticket.ready || submission.pending}>
          {submission.pending ? 'Placing…' : `${verb} ${sideName(side)}${kind === 'limit' ? ' (limit)' : ''}`}
        </button>
      ) : (
        <SignInToTrade slug={market.slug} />
      )}
      <OrderOutcome error={submission.error} result={submission.result} />
    </>
  );
}
