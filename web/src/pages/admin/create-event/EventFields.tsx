import type { EventDraft } from './event-draft';

/** What the event is: its title, category, closing time, and how it resolves. */
export function EventFields({
  draft,
  onChange,
}: {
  draft: EventDraft;
  onChange: (change: Partial<EventDraft>) => void;
}) {
  return (
    <>
      <div className="field-row">
        <div className="field">
          <label htmlFor="event-title">Title</label>
          <input
            id="event-title"
            value={draft.title}
            maxLength={200}
            onChange={(e) => onChange({ title: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="event-category">Category</label>
          <input
            id="event-category"
            value={draft.category}
            maxLength={60}
            placeholder="cricket"
            onChange={(e) => onChange({ category: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="event-closes">Closes at</label>
          <input
            id="event-closes"
            type="datetime-local"
            value={draft.closesAt}
            onChange={(e) => onChange({ closesAt: e.target.value })}
          />
        </div>
      </div>
      <div className="field">
        <label htmlFor="event-description">Description and resolution rules</label>
        <textarea
          id="event-description"
          rows={2}
          maxLength={5000}
          value={draft.description}
          onChange={(e) => onChange({ description: e.target.value })}
        />
      </div>
    </>
  );
}
