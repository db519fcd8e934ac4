import { type FormEvent, type KeyboardEvent, type RefObject, useEffect, useId } from 'react';
import type { MarketDetail, OrderBook, Position, Side } from '../../api/types';
import { useAuth } from '../../auth';
import type { PickedPrice } from '../OrderBookView';
import { contractOf, draftOrder, makerTerms } from './order-draft';
import { orderRequest, REVIEW_ABOVE_CENTS } from './place-order';
import { useOrderSubmission } from './useOrderSubmission';
import { type TicketEdits, useTicketInputs } from './useTicketInputs';

export interface TradeTicketProps {
  market: MarketDetail;
  optionId: string;
  onOption: (optionId: string) => void;
  side: Side;
  onSide: (side: Side) => void;
  /** The selected option's book; undefined until it arrives. */
  book: OrderBook | undefined;
  positions: Position[];
  picked: PickedPrice | null;
  /** The Shares field, where a picked price sends the keyboard and where it returns after an order. */
  sharesField: RefObject<HTMLInputElement | null>;
}

/** A price picked in the order book fills the ticket: that side and direction, a limit order at that price. */
function useFillFromPick(
  picked: PickedPrice | null,
  optionId: string,
  onSide: (side: Side) => void,
  edits: TicketEdits,
) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new pick fills the ticket
  useEffect(() => {
    if (!picked) return;
    onSide(picked.side);
    edits.setAction(picked.action);
    edits.setKind('limit');
    edits.setTyped({
      contract: contractOf(optionId, picked.side, picked.action, 'limit'),
      value: String(picked.priceCents),
    });
  }, [picked?.at]);
}

/**
 * The trade ticket's state and what it does: its inputs, the order they describe against the book and the
 * trader's cash and shares, and the sending of it (straight away, or after a review when it could cost or bring
 * more than REVIEW_ABOVE_CENTS or has terms of a maker's (a time in force other than GTC, post-only); Enter in a
 * field always opens the review).
 */
export function useTradeTicket({
  market,
  optionId,
  onOption,
  side,
  onSide,
  book,
  positions,
  picked,
  sharesField,
}: TradeTicketProps) {
  const { signedIn, me } = useAuth();
  const ids = useId();
  const submission = useOrderSubmission(sharesField);
  const edits = useTicketInputs(submission.reset);
  useFillFromPick(picked, optionId, onSide, edits);
  const { inputs } = edits;
  const cashCents = me?.balance.cashCents ?? null;
  const order = draftOrder(market, optionId, side, book, inputs, { signedIn, cashCents, positions });
  const ready = order.bookForOption !== undefined && !order.problem && market.status === 'open';
  const send = () => submission.send(orderRequest(order, side, inputs));
  return {
    ids,
    sharesField,
    market,
    side,
    signedIn,
    cashCents,
    inputs,
    edits,
    order,
    ready,
    submission,
    send,
    chooseOption: (id: string) => {
      submission.reset();
      onOption(id);
    },
    chooseSide: (value: Side) => {
      submission.reset();
      onSide(value);
    },
    submit: (event: FormEvent) => {
      event.preventDefault();
      if (!ready) return;
      if (order.worstCost > REVIEW_ABOVE_CENTS || makerTerms(inputs)) submission.review();
      else send();
    },
    // Enter in a field never sends an order by itself: it opens the review, with the keyboard on Confirm.
    keyDown: (event: KeyboardEvent<HTMLFormElement>) => {
      if (event.key !== 'Enter' || !(event.target instanceof HTMLInputElement)) return;
      event.preventDefault();
      if (ready) submission.review();
    },
  };
}
export type TradeTicketState = ReturnType<typeof useTradeTicket>;
