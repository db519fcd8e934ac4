import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useAuth } from '../auth';
import { PagedList } from '../components/Paged';
import { ErrorMessage, SignInPrompt } from '../components/Status';
import { formatDate } from '../lib/format';
import { useAction, useDocumentTitle, usePagedApi } from '../lib/hooks';

function SuggestForm({ onSent }: { onSent: () => void }) {
  const [title, setTitle] = useState('');
  const [category, setCategory] = useState('');
  const [options, setOptions] = useState('Yes');
  const [description, setDescription] = useState('');
  const [source, setSource] = useState('');
  const send = useAction(async () => {
    await typed(
      apiClient.POST('/api/market-suggestions', {
        body: {
          title: title.trim(),
          category: category.trim(),
          options: options
            .split(',')
            .map((o) => o.trim())
            .filter(Boolean),
          ...(description.trim() ? { description: description.trim() } : {}),
          ...(source.trim() ? { resolutionSource: source.trim() } : {}),
        },
      }),
    );
    setTitle('');
    setDescription('');
    setSource('');
    onSent();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Suggest a market">
      <div className="field">
        <label htmlFor="suggest-title">Question</label>
        <input
          id="suggest-title"
          value={title}
          maxLength={200}
          placeholder="Will it rain in Mumbai on 1 June?"
          onChange={(e) => setTitle(e.target.value)}
        />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor="suggest-category">Category</label>
          <input id="suggest-category" value={category} onChange={(e) => setCategory(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="suggest-options">Options, separated by commas</label>
          <input id="suggest-options" value={options} onChange={(e) => setOptions(e.target.value)} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="suggest-description">Details (optional)</label>
        <textarea
          id="suggest-description"
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="suggest-source">How it will be decided (optional)</label>
        <input id="suggest-source" value={source} onChange={(e) => setSource(e.target.value)} />
      </div>
      <div>
        <button type="submit" className="button" disabled={send.pending || !title.trim() || !category.trim()}>
          Send suggestion
        </button>
      </div>
      <ErrorMessage error={send.error} />
    </form>
  );
}

const STATUS_TEXT = { pending: 'Waiting for review', approved: 'Approved', rejected: 'Rejected' } as const;

export function SuggestionsPage() {
  useDocumentTitle('Suggest a market');
  const { signedIn } = useAuth();
  const mine = usePagedApi(signedIn ? '/api/market-suggestions' : null);
  if (!signedIn) {
    return (
      <div className="page narrow">
        <h1>Suggest a market</h1>
        <SignInPrompt what="suggest a market" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Suggest a market</h1>
      <section className="card" aria-labelledby="suggest-heading">
        <h2 id="suggest-heading">Your idea</h2>
        <p className="muted">An operator reviews every suggestion; an approved one becomes a market.</p>
        <SuggestForm onSent={mine.reload} />
      </section>
      <section className="card" aria-labelledby="my-suggestions-heading">
        <h2 id="my-suggestions-heading">Your suggestions</h2>
        <PagedList list={mine} empty="You have not suggested a market yet.">
          {(items) => (
            <ul className="plain rows">
              {items.map((s) => (
                <li key={s.id} className="row" data-testid="my-suggestion">
                  <div>
                    <strong>{s.title}</strong>
                    <div className="muted small">
                      {s.category} · {s.options.join(', ')} · {formatDate(s.createdAt)}
                    </div>
                    {s.rejectionReason ? <div>Reason: {s.rejectionReason}</div> : null}
                    {s.status === 'approved' && s.eventSlug ? (
                      s.eventStatus === 'draft' ? (
                        <div className="small">
                          Being prepared as a market; it appears here once it opens.
                        </div>
                      ) : (
                        <div className="small">
                          It is a market now: <Link to={`/markets/${s.eventSlug}`}>open it</Link>
                        </div>
                      )
                    ) : null}
                  </div>
                  <span className={`status-pill ${s.status}`}>{STATUS_TEXT[s.status]}</span>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
        <p className="small">
          <Link to="/">Back to the markets</Link>
        </p>
      </section>
    </div>
  );
}
