import { OrderChoices } from './OrderChoices';
import { OrderSubmit } from './OrderSubmit';
import { OrderSummary } from './OrderSummary';
import { OrderTerms } from './OrderTerms';
import { type TradeTicketProps, useTradeTicket } from './useTradeTicket';

/**
 * The ticket beside a market's book: what to trade and how, the terms, what the order would do, and its sending.
 * Its state and rules live in useTradeTicket; each part below shows one of them.
 */
export function TradeTicket(props: TradeTicketProps) {
  const ticket = useTradeTicket(props);
  const { ids } = ticket;
  return (
    <section className="card ticket" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Trade</h2>
      <form onSubmit={ticket.submit} onKeyDown={ticket.keyDown} noValidate>
        <OrderChoices ticket={ticket} />
        <OrderTerms ticket={ticket} />
        <OrderSummary ticket={ticket} />
        <OrderSubmit ticket={ticket} />
      </form>
    </section>
  );
}
