import { type RefObject, useRef, useState } from 'react';
import { holdingsChanged } from '../../lib/account-live';
import { useAction } from '../../lib/hooks';
import { describeResult, type OrderRequest, placeOrder } from './place-order';

/**
 * Sending the ticket's order: the review before a big one, the request, and what came of it (in words, or the
 * error). The keyboard goes back to the Shares field after each step, ready for the next order.
 */
export function useOrderSubmission(sharesField: RefObject<HTMLInputElement | null>) {
  const [result, setResult] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const place = useAction(async (request: OrderRequest) => {
    try {
      const order = await placeOrder(request);
      setResult(describeResult(order));
    } finally {
      // Whatever the answer, the balance and holdings on screen are read again: never a stale "Available".
      holdingsChanged();
      sharesField.current?.focus();
    }
  });
  const { clearError } = place;
  return {
    result,
    reviewing,
    pending: place.pending,
    error: place.error,
    confirmButton,
    /** Forgets the last outcome and any review in progress. */
    reset: () => {
      setResult(null);
      setReviewing(false);
      clearError();
    },
    send: (request: OrderRequest) => {
      setResult(null);
      setReviewing(false);
      sharesField.current?.focus();
      void place.run(request);
    },
    review: () => {
      setReviewing(true);
      requestAnimationFrame(() => confirmButton.current?.focus());
    },
    cancelReview: () => {
      setReviewing(false);
      sharesField.current?.focus();
    },
  };
}
export type OrderSubmission = ReturnType<typeof useOrderSubmission>;
