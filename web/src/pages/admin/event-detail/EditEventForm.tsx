import type { MarketDetail } from '../../../api/types';
import { ErrorMessage } from '../../../components/Status';
import { DraftKindFields } from './DraftKindFields';
import { EditEventFields } from './EditEventFields';
import { useEditEventForm } from './useEditEventForm';

/** The event's title, category, closing time, description and featuring; while a draft, also its kind. */
export function EditEventForm({
  event,
  onSaved,
}: {
  event: MarketDetail;
  onSaved: (e: MarketDetail) => void;
}) {
  const form = useEditEventForm(event, onSaved);
  const { fields, set } = form;
  return (
    <form className="stack" onSubmit={form.submit} aria-label="Edit event">
      <EditEventFields form={form} />
      <label className="check">
        <input
          type="checkbox"
          checked={fields.featured}
          onChange={(e) => set.setFeatured(e.target.checked)}
        />
        Featured on the markets page
      </label>
      {form.draft ? <DraftKindFields form={form} /> : null}
      <div>
        <button type="submit" className="button" disabled={form.pending}>
          Save changes
        </button>
      </div>
      {form.saved ? (
        <p className="success" role="status">
          Saved.
        </p>
      ) : null}
      <ErrorMessage error={form.error} />
    </form>
  );
}
