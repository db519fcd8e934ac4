import { CostList } from './CostList';
import { EstimateLine } from './EstimateLine';
import { sideName } from './order-draft';
import type { TradeTicketState } from './useTradeTicket';

/** What the order would do now, from the book and the trader's means, or what stands in its way. */
export function OrderSummary({ ticket }: { ticket: TradeTicketState }) {
  const { market, side, inputs, order, submission } = ticket;
  const { option } = order;
  const payoutLabel = market.exclusive
    ? `Pays if ${option.label} ${side === 'YES' ? 'wins' : 'does not win'}`
    : `Pays if ${sideName(side)} wins`;
  return (
    <>
      {!order.bookForOption ? <p className="muted small">Reading the order book…</p> : null}
      {order.valid && !order.noLiquidity ? (
        <div aria-live="polite">
          {order.estimate ? (
            <EstimateLine
              estimate={order.estimate}
              quantity={order.qty}
              kind={inputs.kind}
              action={inputs.action}
            />
          ) : null}
          <CostList
            action={inputs.action}
            kind={inputs.kind}
            estimate={order.estimate}
            worstCents={order.worstCost}
            payout={{ label: payoutLabel, cents: 100 * order.qty }}
            cashCents={ticket.cashCents}
          />
        </div>
      ) : null}
      {order.problem && !submission.result && !submission.error ? (
        <p className="field-error" role="alert" data-testid="ticket-problem">
          {order.problem}
        </p>
      ) : null}
    </>
  );
}
