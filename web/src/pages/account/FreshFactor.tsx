import { type FormEvent, useState } from 'react';
import { ApiError, apiClient, typed } from '../../api/client';
import { ErrorMessage } from '../../components/Status';
import { useAction, useApi } from '../../lib/hooks';
import { passkeysSupported, provePasskey } from '../../lib/passkeys';

const FRESH = 'FRESH_SECOND_FACTOR_REQUIRED';

/**
 * An action's error, or, when the action needs a second factor proved in the last minutes, the way to prove one
 * here (a code from the app, a recovery code or a passkey); the action is then tried again.
 */
export function FreshFactorGate({ error, retry }: { error: unknown; retry: () => void }) {
  if (!(error instanceof ApiError && error.code === FRESH)) return <ErrorMessage error={error} />;
  return <ConfirmItsYou onConfirmed={retry} />;
}

function ConfirmItsYou({ onConfirmed }: { onConfirmed: () => void }) {
  const status = useApi('/api/me/second-factors');
  const [code, setCode] = useState('');
  const withCode = useAction(async () => {
    const value = code.replace(/\s/g, '');
    const proof = /^\d{6}$/.test(value) ? { code: value } : { recoveryCode: code.trim() };
    await typed(apiClient.POST('/api/me/second-factors/verify', { body: proof }));
    onConfirmed();
  });
  const withPasskey = useAction(async () => {
    await provePasskey();
    onConfirmed();
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void withCode.run();
  };
  const hasPasskey = (status.data?.passkeys ?? 0) > 0 && passkeysSupported();
  return (
    <section className="once" aria-label="Confirm it is you">
      <p>
        <strong>Confirm it is you.</strong> This change needs a second factor from the last 10 minutes.
      </p>
      {status.data?.totp ? (
        <form className="inline-form" onSubmit={onSubmit}>
          <div className="field">
            <label htmlFor="fresh-code">App code or recovery code</label>
            <input
              id="fresh-code"
              autoComplete="one-time-code"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </div>
          <button type="submit" className="button" disabled={!code.trim() || withCode.pending}>
            Confirm
          </button>
        </form>
      ) : null}
      {hasPasskey ? (
        <button
          type="button"
          className="button ghost"
          disabled={withPasskey.pending}
          onClick={() => void withPasskey.run()}
        >
          Confirm with a passkey
        </button>
      ) : null}
      <ErrorMessage error={withCode.error ?? withPasskey.error} />
    </section>
  );
}
