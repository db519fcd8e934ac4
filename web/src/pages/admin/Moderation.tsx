import { useState } from 'react';
import { Link } from 'react-router';
import { apiClient, typed } from '../../api/client';
import type { AdminReport, Suggestion } from '../../api/console-types';
import { ConfirmButton } from '../../components/Confirm';
import { PagedList } from '../../components/Paged';
import { formatDate, localDateTime } from '../../lib/format';
import { useDocumentTitle, usePagedApi } from '../../lib/hooks';
import { QueueHeading, StatusPill } from './AdminLayout';

const ACTIONS = {
  dismiss: 'Nothing is removed; the report is closed.',
  hide: 'The post or comment is hidden from everyone.',
  suspend: 'The account is suspended: its sessions and keys stop working at once.',
} as const;

function ReportActions({ report, onDone }: { report: AdminReport; onDone: () => void }) {
  const [note, setNote] = useState('');
  const resolve = (action: keyof typeof ACTIONS) => async () => {
    await typed(
      apiClient.POST('/api/admin/reports/{id}/resolve', {
        params: { path: { id: report.id } },
        body: { action, ...(note.trim() ? { note: note.trim() } : {}) },
      }),
    );
    onDone();
  };
  const who = report.target.username ?? 'this user';
  return (
    <div className="stack">
      <div className="field">
        <label htmlFor={`report-note-${report.id}`}>Moderation note (optional)</label>
        <input id={`report-note-${report.id}`} value={note} onChange={(e) => setNote(e.target.value)} />
      </div>
      <div className="actions">
        <ConfirmButton
          label="Dismiss"
          title="Dismiss this report?"
          danger={false}
          describe={() => <p>{ACTIONS.dismiss}</p>}
          onConfirm={resolve('dismiss')}
        />
        {report.targetType !== 'USER' ? (
          <ConfirmButton
            label="Hide content"
            title="Hide this content?"
            describe={() => <p>{ACTIONS.hide}</p>}
            onConfirm={resolve('hide')}
          />
        ) : null}
        <ConfirmButton
          label={`Suspend ${who}`}
          title={`Suspend ${who}?`}
          describe={() => <p>{ACTIONS.suspend}</p>}
          onConfirm={resolve('suspend')}
        />
      </div>
    </div>
  );
}

export function AdminReportsPage() {
  useDocumentTitle('Console · Reports');
  const [status, setStatus] = useState<'open' | 'resolved' | 'all'>('open');
  const reports = usePagedApi('/api/admin/reports', { params: { query: { status } } });
  return (
    <section className="card" aria-labelledby="report-heading">
      <QueueHeading
        id="report"
        title="Reports"
        status={status}
        statuses={['open', 'resolved'] as const}
        allValue={'all'}
        onStatus={setStatus}
      />
      <PagedList list={reports} empty="No reports.">
        {(items) => (
          <ul className="plain rows">
            {items.map((report) => (
              <li key={report.id} className="card" data-testid="report">
                <div className="section-head">
                  <div>
                    {report.targetType === 'USER'
                      ? 'User'
                      : report.targetType === 'POST'
                        ? 'Post by'
                        : 'Comment by'}{' '}
                    {report.target.username ? (
                      <Link to={`/users/${report.target.username}`}>{report.target.username}</Link>
                    ) : (
                      'unknown'
                    )}{' '}
                    · reported by {report.reporter.username} · {formatDate(report.createdAt)}
                  </div>
                  <StatusPill status={report.status} />
                </div>
                {report.target.text ? <blockquote>{report.target.text}</blockquote> : null}
                <p>
                  <strong>Reason:</strong> {report.reason}
                </p>
                {report.resolutionNote ? <p className="muted">Note: {report.resolutionNote}</p> : null}
                {report.status === 'open' ? <ReportActions report={report} onDone={reports.reload} /> : null}
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}

function SuggestionReview({
  suggestion,
  onDone,
}: {
  suggestion: Suggestion;
  onDone: (reviewed: Suggestion) => void;
}) {
  const [reason, setReason] = useState('');
  const [closesAt, setClosesAt] = useState(() => localDateTime(suggestion.closesAt));
  return (
    <div className="stack">
      <div className="field">
        <label htmlFor={`approve-closes-${suggestion.id}`}>Closes at (if approved)</label>
        <input
          id={`approve-closes-${suggestion.id}`}
          type="datetime-local"
          value={closesAt}
          onChange={(e) => setClosesAt(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`reject-reason-${suggestion.id}`}>Reason for a rejection</label>
        <input
          id={`reject-reason-${suggestion.id}`}
          value={reason}
          maxLength={500}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      <div className="actions">
        <ConfirmButton
          label="Approve into a draft event"
          title="Approve this suggestion?"
          danger={false}
          describe={() => (
            <p>
              A draft event “{suggestion.title}” is created with the options {suggestion.options.join(', ')}.
              You can edit it and give its options house liquidity before opening it.
            </p>
          )}
          onConfirm={async () => {
            onDone(
              await typed(
                apiClient.POST('/api/admin/market-suggestions/{id}/approve', {
                  params: { path: { id: suggestion.id } },
                  body: { closesAt: new Date(closesAt).toISOString() },
                }),
              ),
            );
          }}
        />
        <ConfirmButton
          label="Reject"
          title="Reject this suggestion?"
          disabled={!reason.trim()}
          describe={() => <p>The suggester is told: “{reason.trim()}”.</p>}
          onConfirm={async () => {
            onDone(
              await typed(
                apiClient.POST('/api/admin/market-suggestions/{id}/reject', {
                  params: { path: { id: suggestion.id } },
                  body: { reason: reason.trim() },
                }),
              ),
            );
          }}
        />
      </div>
    </div>
  );
}

export function AdminSuggestionsPage() {
  useDocumentTitle('Console · Suggestions');
  const [status, setStatus] = useState<Suggestion['status'] | ''>('pending');
  const suggestions = usePagedApi('/api/admin/market-suggestions', {
    params: { query: { status: status || undefined } },
  });
  // The last decision, with its link: an approved suggestion leaves the pending queue at once.
  const [reviewed, setReviewed] = useState<Suggestion | null>(null);
  return (
    <section className="card" aria-labelledby="suggestion-heading">
      <QueueHeading
        id="suggestion"
        title="Market suggestions"
        status={status}
        statuses={['pending', 'approved', 'rejected'] as const}
        allValue={''}
        onStatus={setStatus}
      />
      {reviewed ? (
        <p className="success" role="status" data-testid="suggestion-reviewed">
          {reviewed.status === 'approved' && reviewed.eventId ? (
            <>
              Approved: “{reviewed.title}” is now a draft event.{' '}
              <Link to={`/admin/events/${reviewed.eventId}`}>Open the draft</Link> to give its options house
              liquidity and open it.
            </>
          ) : (
            <>Rejected: “{reviewed.title}”. The suggester has been told why.</>
          )}
        </p>
      ) : null}
      <PagedList list={suggestions} empty="No suggestions.">
        {(items) => (
          <ul className="plain rows">
            {items.map((s) => (
              <li key={s.id} className="card" data-testid="suggestion">
                <div className="section-head">
                  <strong>{s.title}</strong>
                  <StatusPill status={s.status} />
                </div>
                <p className="muted small">
                  {s.category} · options {s.options.join(', ')} · by {s.suggestedBy.username} ·{' '}
                  {formatDate(s.createdAt)}
                </p>
                {s.description ? <p>{s.description}</p> : null}
                {s.eventId ? (
                  <p>
                    Event made from it: <Link to={`/admin/events/${s.eventId}`}>{s.eventSlug}</Link> (
                    {s.eventStatus})
                  </p>
                ) : null}
                {s.rejectionReason ? <p className="muted">Rejected: {s.rejectionReason}</p> : null}
                {s.status === 'pending' ? (
                  <SuggestionReview
                    suggestion={s}
                    onDone={(next) => {
                      setReviewed(next);
                      suggestions.reload();
                    }}
                  />
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}
