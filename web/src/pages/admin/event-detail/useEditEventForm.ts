import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../../api/client';
import type { MarketDetail } from '../../../api/types';
import { useAction } from '../../../lib/hooks';
import { toCents } from '../credits';

/** An ISO time as a datetime-local input's value, in the operator's time zone. */
function localInput(iso: string): string {
  const date = new Date(iso);
  date.setMinutes(date.getMinutes() - date.getTimezoneOffset(), 0, 0);
  return date.toISOString().slice(0, 16);
}

/** The event's editable facts as typed, and their saving. */
export function useEditEventForm(event: MarketDetail, onSaved: (event: MarketDetail) => void) {
  const [title, setTitle] = useState(event.title);
  const [category, setCategory] = useState(event.category);
  const [description, setDescription] = useState(event.description);
  const [closesAt, setClosesAt] = useState(localInput(event.closesAt));
  const [featured, setFeatured] = useState(event.featured);
  const [exclusive, setExclusive] = useState(event.exclusive);
  const [liquidity, setLiquidity] = useState(String((event.houseLiquidityCents ?? 0) / 100));
  const [saved, setSaved] = useState(false);
  const draft = event.status === 'draft';
  const save = useAction(async () => {
    // Whether exactly one option wins, and the one maker's liquidity, may change only while a draft.
    const kind = draft
      ? { exclusive, ...(exclusive ? { liquidityCents: toCents(liquidity || '0') } : {}) }
      : {};
    const next = await typed(
      apiClient.PATCH('/api/admin/events/{id}', {
        params: { path: { id: event.id } },
        body: { title, category, description, featured, closesAt: new Date(closesAt).toISOString(), ...kind },
      }),
    );
    setSaved(true);
    onSaved(next);
  });
  return {
    fields: { title, category, description, closesAt, featured, exclusive, liquidity },
    set: { setTitle, setCategory, setDescription, setClosesAt, setFeatured, setExclusive, setLiquidity },
    draft,
    saved,
    pending: save.pending,
    error: save.error,
    submit: (e: FormEvent) => {
      e.preventDefault();
      setSaved(false);
      void save.run();
    },
  };
}
export type EditEventFormState = ReturnType<typeof useEditEventForm>;
