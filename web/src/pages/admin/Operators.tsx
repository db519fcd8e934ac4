import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError, apiClient, typed } from '../../api/client';
import type { Operator } from '../../api/console-types';
import { useAuth } from '../../auth';
import { ConfirmButton } from '../../components/Confirm';
import { ErrorMessage, Loaded } from '../../components/Status';
import { describeError } from '../../lib/errors';
import { useAction, useApi, useDocumentTitle } from '../../lib/hooks';

function grantProblem(error: unknown): string {
  if (error instanceof ApiError && error.code === 'NOT_FOUND' && !error.unavailable)
    return 'No account has that email address, username or id.';
  return describeError(error);
}

/** Grants the admin role to an account named by its email, username or id. */
function GrantForm({ onGranted }: { onGranted: (operator: Operator) => void }) {
  const [account, setAccount] = useState('');
  const [granted, setGranted] = useState<Operator | null>(null);
  const grant = useAction(async () => {
    const operator = await typed(
      apiClient.PUT('/api/admin/operators/{account}', { params: { path: { account: account.trim() } } }),
    );
    setGranted(operator);
    setAccount('');
    onGranted(operator);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setGranted(null);
    if (account.trim()) void grant.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Grant the admin role">
      <div className="field">
        <label htmlFor="grant-account">Account: email address, username or id</label>
        <input
          id="grant-account"
          value={account}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setAccount(e.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" className="button" disabled={grant.pending || !account.trim()}>
          {grant.pending ? 'Granting…' : 'Grant the admin role'}
        </button>
      </div>
      <ErrorMessage error={grant.error} describe={grantProblem} />
      {granted ? (
        <p className="success" role="status" data-testid="granted">
          {granted.username} is an operator now, on every instance at once.
        </p>
      ) : null}
    </form>
  );
}

/** The accounts with the admin role: grant it to another, or take it away (never from the last one). */
export function AdminOperatorsPage() {
  useDocumentTitle('Console · Operators');
  const { me, refresh } = useAuth();
  const operators = useApi('/api/admin/operators');
  const revoke = async (operator: Operator) => {
    await typed(
      apiClient.DELETE('/api/admin/operators/{account}', { params: { path: { account: operator.userId } } }),
    );
    operators.setData(
      (current) => current && { data: current.data.filter((o) => o.userId !== operator.userId) },
    );
    // Without the role, the console is no longer this account's to see.
    if (operator.userId === me?.id) refresh();
  };
  const add = (operator: Operator) =>
    operators.setData(
      (current) =>
        current && {
          data: [...current.data.filter((o) => o.userId !== operator.userId), operator].sort((a, b) =>
            a.username.localeCompare(b.username),
          ),
        },
    );
  return (
    <>
      <section className="card" aria-labelledby="operators-heading">
        <div className="section-head">
          <h2 id="operators-heading">Operators</h2>
          <Link to="/admin/actions?targetType=user" className="small">
            Role changes in the admin log
          </Link>
        </div>
        <p className="muted small">
          Operators use this console and the admin API. A change takes effect on every instance at once and is
          written to the admin log. The last operator keeps the role.
        </p>
        <Loaded data={operators.data} error={operators.error} reload={operators.reload}>
          {({ data }) => (
            <ul className="plain rows" aria-label="Operators">
              {data.map((operator) => {
                const self = operator.userId === me?.id;
                return (
                  <li key={operator.userId} className="row operator" data-testid="operator">
                    <div className="break">
                      <strong>{operator.username}</strong>
                      {self ? <span className="tag">you</span> : null}
                      <div className="muted small">{operator.email}</div>
                    </div>
                    <ConfirmButton
                      label={`Revoke ${operator.username}`}
                      title={`Take the admin role from ${operator.username}?`}
                      disabled={data.length < 2}
                      describe={() => (
                        <p>
                          {self ? 'You lose' : `${operator.username} loses`} this console and the admin API at
                          once, on every instance.
                        </p>
                      )}
                      onConfirm={() => revoke(operator)}
                    />
                  </li>
                );
              })}
            </ul>
          )}
        </Loaded>
      </section>
      <section className="card" aria-labelledby="grant-heading">
        <h2 id="grant-heading">Grant the admin role</h2>
        <GrantForm onGranted={add} />
      </section>
    </>
  );
}
