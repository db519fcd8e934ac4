import { ErrorMessage } from '../../../components/Status';
import { CatchAllNotice } from './CatchAllNotice';
import { EventFields } from './EventFields';
import { ExclusiveFields } from './ExclusiveFields';
import { isCatchAll } from './event-draft';
import { OptionRows } from './OptionRows';
import { useCreateEventForm } from './useCreateEventForm';

/** The console's form for a new event: its facts, its kind, its options, and whether it opens at once. */
export function CreateEventForm() {
  const form = useCreateEventForm();
  const { draft, change, problem } = form;
  return (
    <section className="card" aria-labelledby="create-event-heading">
      <h2 id="create-event-heading">Create an event</h2>
      <form className="stack" onSubmit={form.submit}>
        <EventFields draft={draft} onChange={change} />
        <ExclusiveFields draft={draft} onChange={change} />
        <OptionRows form={form} />
        {draft.exclusive && !draft.options.some((option) => isCatchAll(option.label)) ? (
          <CatchAllNotice onAdd={form.addCatchAll} />
        ) : null}
        {problem ? (
          <p className="field-error" data-testid="exclusive-problem">
            {problem}
          </p>
        ) : null}
        <label className="check">
          <input
            type="checkbox"
            checked={draft.openNow}
            onChange={(e) => change({ openNow: e.target.checked })}
          />
          Open for trading at once (otherwise it stays a draft)
        </label>
        <div>
          <button
            type="submit"
            className="button"
            disabled={form.pending || !draft.title.trim() || !draft.category.trim() || problem !== null}
          >
            Create event
          </button>
        </div>
        <ErrorMessage error={form.error} />
      </form>
    </section>
  );
}
