import type { ReactNode } from 'react';
import type { Delivery } from '../api/console-types';
import { formatDate } from '../lib/format';
import { Empty } from './Status';

/** One delivery: its event type, time, state and every attempt with its outcome. */
export function DeliveryAttempts({
  delivery,
  children,
}: {
  delivery: Pick<Delivery, 'type' | 'createdAt' | 'status' | 'nextAttemptAt' | 'attempts'>;
  children?: ReactNode;
}) {
  return (
    <div>
      <code>{delivery.type}</code> · {formatDate(delivery.createdAt)} ·{' '}
      <span className={`status-pill ${delivery.status}`}>{delivery.status}</span>
      {delivery.nextAttemptAt ? (
        <span className="muted small"> · next attempt {formatDate(delivery.nextAttemptAt)}</span>
      ) : null}
      {children}
      {delivery.attempts.length === 0 ? (
        <Empty>Not attempted yet.</Empty>
      ) : (
        <ol className="small">
          {delivery.attempts.map((attempt) => (
            <li key={attempt.attemptedAt}>
              {formatDate(attempt.attemptedAt)}:{' '}
              {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : 'no answer'}
              {attempt.error ? ` (${attempt.error})` : ''} in {attempt.durationMs} ms
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
