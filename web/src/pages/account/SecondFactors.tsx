import { useState } from 'react';
import { Loaded } from '../../components/Status';
import { useApi } from '../../lib/hooks';
import { invalidate } from '../../lib/query';
import { AuthenticatorApp } from './AuthenticatorApp';
import { Passkeys } from './Passkeys';
import { RecoveryCodes } from './RecoveryCodes';

/** Second factors: the authenticator app, passkeys, and the recovery codes that stand in for them. */
export function SecondFactors() {
  const status = useApi('/api/me/second-factors');
  const [codes, setCodes] = useState<string[] | null>(null);
  const changed = () => {
    status.reload();
    invalidate('/api/me/security-log');
  };
  return (
    <section className="card" aria-labelledby="factors-heading">
      <h2 id="factors-heading">Second factors</h2>
      <p className="muted">
        With a second factor, signing in needs more than your password, and changing the password, making a
        key that can trade, adding a webhook or removing a factor needs it again. Adding your first one needs
        your password.
      </p>
      {codes ? <RecoveryCodes codes={codes} onDone={() => setCodes(null)} /> : null}
      <Loaded data={status.data} error={status.error} reload={status.reload}>
        {(data) => (
          <>
            <AuthenticatorApp
              enabledAt={data.totp?.confirmedAt ?? null}
              needsPassword={!data.totp && data.passkeys === 0}
              onChanged={changed}
              onRecoveryCodes={setCodes}
            />
            <Passkeys
              needsPassword={!data.totp && data.passkeys === 0}
              onChanged={changed}
              onRecoveryCodes={setCodes}
            />
            {data.totp || data.passkeys > 0 ? (
              <p className="muted small" data-testid="recovery-left">
                {data.recoveryCodesLeft} recovery codes left.
              </p>
            ) : null}
          </>
        )}
      </Loaded>
    </section>
  );
}
