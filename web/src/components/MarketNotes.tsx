import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import { timeAgo } from '../lib/format';
import { useAction, usePagedApi } from '../lib/hooks';
import { invalidate } from '../lib/query';
import { PagedList } from './Paged';
import { ErrorMessage } from './Status';

export const NOTE_MAX = 2000;

/** Your private notes on one market: why you traded, what would change your mind. Nobody else sees them. */
export function MarketNotes({ eventSlug }: { eventSlug: string }) {
  const id = useId();
  const notes = usePagedApi('/api/me/trade-notes', { params: { query: { eventSlug, limit: 20 } } });
  const [text, setText] = useState('');
  const add = useAction(async () => {
    await typed(apiClient.POST('/api/me/trade-notes', { body: { eventSlug, text: text.trim() } }));
    setText('');
    invalidate('/api/me/trade-notes');
  });
  const remove = useAction(async (noteId: string) => {
    await typed(apiClient.DELETE('/api/me/trade-notes/{id}', { params: { path: { id: noteId } } }));
    invalidate('/api/me/trade-notes');
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) void add.run();
  };
  return (
    <div className="notes">
      <h3>
        Your notes <span className="muted small">(private)</span>
      </h3>
      <PagedList list={notes} empty="No notes on this market yet." more="Older notes">
        {(items) => (
          <ul className="plain rows">
            {items.map((note) => (
              <li key={note.id} className="row" data-testid="note">
                <div>
                  <p className="post-text">{note.text}</p>
                  <span className="muted small">{timeAgo(note.createdAt)}</span>
                </div>
                <button
                  type="button"
                  className="link-button danger"
                  disabled={remove.pending}
                  onClick={() => void remove.run(note.id)}
                >
                  Delete<span className="visually-hidden"> note: {note.text.slice(0, 40)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
      <form className="composer" onSubmit={submit}>
        <label htmlFor={`${id}-note`}>Add a note</label>
        <textarea
          id={`${id}-note`}
          rows={2}
          maxLength={NOTE_MAX}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <div className="composer-foot">
          <Link to="/notes" className="small">
            All your notes
          </Link>
          <button type="submit" className="button small" disabled={!text.trim() || add.pending}>
            Save note
          </button>
        </div>
        <ErrorMessage error={add.error ?? remove.error} />
      </form>
    </div>
  );
}
