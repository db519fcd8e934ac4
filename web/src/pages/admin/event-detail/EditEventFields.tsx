import type { EditEventFormState } from './useEditEventForm';

/** The event's title, category, closing time and description. */
export function EditEventFields({ form }: { form: EditEventFormState }) {
  const { fields, set } = form;
  return (
    <>
      <div className="field-row">
        <div className="field">
          <label htmlFor="edit-title">Title</label>
          <input
            id="edit-title"
            value={fields.title}
            maxLength={200}
            onChange={(e) => set.setTitle(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="edit-category">Category</label>
          <input
            id="edit-category"
            value={fields.category}
            onChange={(e) => set.setCategory(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="edit-closes">Closes at</label>
          <input
            id="edit-closes"
            type="datetime-local"
            value={fields.closesAt}
            onChange={(e) => set.setClosesAt(e.target.value)}
          />
        </div>
      </div>
      <div className="field">
        <label htmlFor="edit-description">Description</label>
        <textarea
          id="edit-description"
          rows={2}
          value={fields.description}
          onChange={(e) => set.setDescription(e.target.value)}
        />
      </div>
    </>
  );
}
