import { DirectionChoice } from './DirectionChoice';
import { OptionChoice } from './OptionChoice';
import { OrderTypeChoice } from './OrderTypeChoice';
import { SideChoice } from './SideChoice';
import type { TradeTicketState } from './useTradeTicket';

/** What is traded and how: the option, buy or sell, Yes or No, a market or a limit order. */
export function OrderChoices({ ticket }: { ticket: TradeTicketState }) {
  const { ids, market, side, inputs, edits, order } = ticket;
  return (
    <>
      <OptionChoice
        id={`${ids}-option`}
        market={market}
        optionId={order.option.id}
        onChoose={ticket.chooseOption}
      />
      <DirectionChoice action={inputs.action} onChoose={edits.setAction} />
      <SideChoice
        side={side}
        action={inputs.action}
        book={order.bookForOption}
        optionLabel={order.option.label}
        exclusive={market.exclusive}
        onChoose={ticket.chooseSide}
      />
      <OrderTypeChoice kind={inputs.kind} onChoose={edits.setKind} />
    </>
  );
}
