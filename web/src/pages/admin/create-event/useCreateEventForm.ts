import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { apiClient, typed } from '../../../api/client';
import { localDateTime } from '../../../lib/format';
import { useAction } from '../../../lib/hooks';
import {
  CATCH_ALL,
  createEventBody,
  type EventDraft,
  exclusiveProblem,
  NEW_OPTION,
  type OptionDraft,
} from './event-draft';

/** Moves the keyboard to a new catch-all's label, its "…" selected to be typed over ("Any other team"). */
function selectCatchAllWords(index: number): void {
  requestAnimationFrame(() => {
    const field = document.getElementById(`option-label-${index}`);
    if (field instanceof HTMLInputElement) {
      field.focus();
      field.setSelectionRange('Any other '.length, CATCH_ALL.length);
    }
  });
}

/** The event being drafted in the console, its options, and its creation (then the console opens it). */
export function useCreateEventForm() {
  const navigate = useNavigate();
  const [draft, setDraft] = useState<EventDraft>(() => ({
    title: '',
    category: '',
    description: '',
    closesAt: localDateTime(null),
    options: [{ ...NEW_OPTION, label: 'Yes' }],
    openNow: false,
    exclusive: false,
    marketLiquidity: '1000',
  }));
  const create = useAction(async () => {
    const event = await typed(apiClient.POST('/api/admin/events', { body: createEventBody(draft) }));
    navigate(`/admin/events/${event.id}`);
  });
  const { options } = draft;
  const change = (next: Partial<EventDraft>) => setDraft((current) => ({ ...current, ...next }));
  const setOptions = (next: OptionDraft[]) => change({ options: next });
  return {
    draft,
    change,
    problem: draft.exclusive ? exclusiveProblem(options) : null,
    pending: create.pending,
    error: create.error,
    setOption: (index: number, edit: Partial<OptionDraft>) =>
      setOptions(options.map((option, i) => (i === index ? { ...option, ...edit } : option))),
    addOption: () => setOptions([...options, { ...NEW_OPTION }]),
    removeOption: (index: number) => setOptions(options.filter((_, i) => i !== index)),
    addCatchAll: () => {
      setOptions([...options, { ...NEW_OPTION, label: CATCH_ALL }]);
      selectCatchAllWords(options.length);
    },
    submit: (event: FormEvent) => {
      event.preventDefault();
      void create.run();
    },
  };
}
export type CreateEventForm = ReturnType<typeof useCreateEventForm>;
