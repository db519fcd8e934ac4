import { type FormEvent, useEffect, useRef, useState } from 'react';
import { apiClient, idempotencyKey, typed } from '../../api/client';
import type { Conversion, MarketDetail, Position } from '../../api/types';
import { useAuth } from '../../auth';
import { holdingsChanged } from '../../lib/account-live';
import type { ConversionKind } from '../../lib/conversions';
import { useAction } from '../../lib/hooks';
import { invalidate } from '../../lib/query';
import { describeConversion } from './conversion-words';
import { useConversionDraft } from './useConversionDraft';

/** A convert names the options whose NO it gives; a split or a merge takes every option of the event. */
type ConversionBody =
  | { type: 'convert'; quantity: number; optionIds: string[] }
  | { type: Exclude<ConversionKind, 'convert'>; quantity: number };

function postConversion(eventId: string, body: ConversionBody): Promise<Conversion> {
  return typed(
    apiClient.POST('/api/events/{id}/conversions', {
      params: { path: { id: eventId }, header: { 'idempotency-key': idempotencyKey() } },
      body,
    }),
  );
}

/**
 * The conversions panel: whether it is open (at once for a holder of shares to convert or merge), the draft, its
 * review, the request and what it did, and whether the history shows.
 */
export function useConversionPanel(market: MarketDetail, positions: Position[]) {
  const { me } = useAuth();
  const cashCents = me?.balance.cashCents ?? 0;
  const draft = useConversionDraft(market, positions, cashCents);
  const [reviewing, setReviewing] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [history, setHistory] = useState(false);
  const [open, setOpen] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const convert = useAction(async (body: ConversionBody) => {
    try {
      const done = await postConversion(market.id, body);
      const { give, get } = describeConversion(done.legs, done.cashCents, market.options.length);
      setResult(`Done: you gave ${give} and got ${get}.`);
      draft.forgetQuantity();
      invalidate('/api/conversions');
    } finally {
      holdingsChanged();
    }
  });
  const { holdsConvertible } = draft;
  useEffect(() => {
    if (holdsConvertible) setOpen(true);
  }, [holdsConvertible]);
  const { kind } = draft;
  return {
    cashCents,
    draft,
    reviewing,
    result,
    history,
    open,
    confirmButton,
    pending: convert.pending,
    error: convert.error,
    openPanel: () => setOpen(true),
    toggleHistory: () => setHistory(!history),
    cancelReview: () => setReviewing(false),
    /** Any edit forgets the review and the last outcome: a message always speaks of the inputs shown. */
    edited: () => {
      setReviewing(false);
      setResult(null);
      convert.clearError();
    },
    submit: (event: FormEvent) => {
      event.preventDefault();
      if (draft.problem) return;
      setReviewing(true);
      requestAnimationFrame(() => confirmButton.current?.focus());
    },
    send: () => {
      if (!kind) return;
      setReviewing(false);
      void convert.run(
        kind === 'convert'
          ? { type: kind, quantity: draft.quantity, optionIds: draft.givenIds }
          : { type: kind, quantity: draft.quantity },
      );
    },
  };
}
export type ConversionPanel = ReturnType<typeof useConversionPanel>;
