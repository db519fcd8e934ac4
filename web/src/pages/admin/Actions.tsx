import type { FormEvent } from 'react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import type { AdminAction } from '../../api/console-types';
import { PagedList } from '../../components/Paged';
import { formatDate } from '../../lib/format';
import { useDocumentTitle, usePagedApi } from '../../lib/hooks';

/** What an operator may have acted on, as the log names it. */
const TARGET_TYPES = [
  ['user', 'Roles'],
  ['event', 'Events'],
  ['dispute', 'Disputes'],
  ['report', 'Reports'],
  ['market-suggestion', 'Suggestions'],
  ['tournament', 'Tournaments'],
  ['flag', 'Feature flags'],
  ['setting', 'Settings'],
] as const;

const VIA = {
  api: 'through the console or API',
  cli: 'from the command line',
  bootstrap: 'with the bootstrap token',
};

function ActionEntry({ action }: { action: AdminAction }) {
  const who = action.actorUsername ?? (action.via === 'cli' ? 'An operator' : 'Someone');
  const hasDetails = action.details !== null && action.details !== undefined;
  return (
    <li className="row admin-action" data-testid="admin-action">
      <div>
        <strong className="break">{action.summary}</strong>
        {action.targetType ? (
          <span className="tag">
            {action.targetType}
            {action.targetId ? ` ${action.targetId}` : ''}
          </span>
        ) : null}
        <div className="muted small">
          {who} {VIA[action.via]}
          {action.address ? (
            <>
              , from <span className="admin-action-fact">{action.address}</span>
            </>
          ) : null}{' '}
          ·{' '}
          <time className="admin-action-fact" dateTime={action.at}>
            {formatDate(action.at)}
          </time>
        </div>
        <div className="small break">
          <code>{action.action}</code>
        </div>
        {hasDetails ? (
          <details className="small">
            <summary>What was sent</summary>
            <pre className="admin-action-details">{JSON.stringify(action.details, null, 2)}</pre>
          </details>
        ) : null}
      </div>
    </li>
  );
}

/** The admin audit log: who changed what, when and from where, newest first, by what was acted on. */
export function AdminActionsPage() {
  useDocumentTitle('Console · Admin log');
  const [params, setParams] = useSearchParams();
  const targetType = params.get('targetType') ?? '';
  const targetId = params.get('targetId') ?? '';
  const [idDraft, setIdDraft] = useState(targetId);
  const actions = usePagedApi('/api/admin/actions', {
    params: {
      query: {
        targetType: targetType || undefined,
        targetId: targetType && targetId ? targetId : undefined,
        limit: 30,
      },
    },
  });
  const filter = (type: string, id: string) => {
    const next = new URLSearchParams();
    if (type) next.set('targetType', type);
    if (type && id.trim()) next.set('targetId', id.trim());
    setParams(next, { replace: true });
  };
  const submitId = (e: FormEvent) => {
    e.preventDefault();
    filter(targetType, idDraft);
  };
  return (
    <section className="card" aria-labelledby="actions-heading">
      <div className="section-head">
        <h2 id="actions-heading">Admin log</h2>
      </div>
      <p className="muted small">
        Every change an operator made, newest first: in this console or the API (with the address it came
        from), from the command line, or with the bootstrap token.
      </p>
      <form className="field-row" onSubmit={submitId} aria-label="Filter the admin log">
        <div className="field">
          <label htmlFor="actions-type">Acted on</label>
          <select
            id="actions-type"
            value={targetType}
            onChange={(e) => {
              setIdDraft('');
              filter(e.target.value, '');
            }}
          >
            <option value="">Anything</option>
            {TARGET_TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="actions-id">Id or key</label>
          <input
            id="actions-id"
            value={idDraft}
            disabled={!targetType}
            placeholder={targetType ? 'any' : 'choose what first'}
            onChange={(e) => setIdDraft(e.target.value)}
            onBlur={() => filter(targetType, idDraft)}
          />
        </div>
      </form>
      <PagedList list={actions} empty="Nothing in the log matches.">
        {(items) => (
          <ul className="plain rows" aria-label="Admin log entries">
            {items.map((action) => (
              <ActionEntry key={action.id} action={action} />
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}
