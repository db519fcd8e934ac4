import { useState } from 'react';
import type { Action } from '../../api/types';
import type { Kind, TicketInputs, TimeInForce } from './order-draft';

/** The ticket's inputs, each set through a setter that also calls `onChange`. */
export function useTicketInputs(onChange: () => void) {
  const [action, setAction] = useState<Action>('BUY');
  const [kind, setKind] = useState<Kind>('market');
  const [quantity, setQuantity] = useState('10');
  const [typed, setTyped] = useState<TicketInputs['typed']>(null);
  const [timeInForce, setTimeInForce] = useState<TimeInForce>('GTC');
  const [expiry, setExpiry] = useState('24');
  const [postOnly, setPostOnly] = useState(false);
  // Every edit clears the last outcome and any review in progress: a message always speaks of the inputs shown.
  const edit =
    <T>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      onChange();
    };
  const inputs: TicketInputs = { action, kind, quantity, typed, timeInForce, expiry, postOnly };
  return {
    inputs,
    setAction: edit(setAction),
    setKind: edit(setKind),
    setQuantity: edit(setQuantity),
    setTyped: edit(setTyped),
    setTimeInForce: edit(setTimeInForce),
    setExpiry: edit(setExpiry),
    setPostOnly: edit(setPostOnly),
  };
}
export type TicketEdits = ReturnType<typeof useTicketInputs>;
