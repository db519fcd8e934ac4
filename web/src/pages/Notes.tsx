import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useAuth } from '../auth';
import { PagedList } from '../components/Paged';
import { ErrorMessage, SignInPrompt } from '../components/Status';
import { formatDate } from '../lib/format';
import { useAction, useDocumentTitle, usePagedApi } from '../lib/hooks';

/** Your trading journal: every private note, newest first, with the market (and trade) it is about. */
export function NotesPage() {
  useDocumentTitle('Your notes');
  const { signedIn } = useAuth();
  const notes = usePagedApi(signedIn ? '/api/me/trade-notes' : null, { params: { query: { limit: 30 } } });
  const remove = useAction(async (id: string) => {
    await typed(apiClient.DELETE('/api/me/trade-notes/{id}', { params: { path: { id } } }));
    notes.setItems((items) => items.filter((note) => note.id !== id));
  });
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Your notes</h1>
        <SignInPrompt what="keep notes on your trades" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Your notes</h1>
      <p className="muted">
        Private notes on markets and trades: why you took a position, what would change your mind. Write them
        on a market's page, under Your activity. Nobody else can read them.
      </p>
      <ErrorMessage error={remove.error} />
      <PagedList list={notes} empty="No notes yet." more="Older notes">
        {(items) => (
          <ul className="plain rows">
            {items.map((note) => (
              <li key={note.id} className="card note" data-testid="note">
                <div>
                  <Link to={`/markets/${note.eventSlug}`}>{note.eventTitle}</Link>
                  <span className="muted small">
                    {' '}
                    · {formatDate(note.createdAt)}
                    {note.tradeId ? ` · on trade #${note.tradeId}` : ''}
                  </span>
                  <p className="post-text">{note.text}</p>
                </div>
                <button
                  type="button"
                  className="link-button danger"
                  disabled={remove.pending}
                  onClick={() => void remove.run(note.id)}
                >
                  Delete<span className="visually-hidden"> note on {note.eventTitle}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </div>
  );
}
