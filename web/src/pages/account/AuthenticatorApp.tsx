import QRCode from 'qrcode';
import { type FormEvent, useEffect, useState } from 'react';
import { apiClient, typed } from '../../api/client';
import { CopyField } from '../../components/CopyField';
import { ErrorMessage } from '../../components/Status';
import { formatDay } from '../../lib/format';
import { useAction } from '../../lib/hooks';
import { FreshFactorGate } from './FreshFactor';

/**
 * The authenticator app: set up with its secret (typed in, or the otpauth link opened on the phone) and confirmed
 * with a code from it (and the password, when it is the account's first factor), or removed.
 */
export function AuthenticatorApp({
  enabledAt,
  needsPassword,
  onChanged,
  onRecoveryCodes,
}: {
  enabledAt: string | null;
  /** The account has no factor yet: the first one needs the current password. */
  needsPassword: boolean;
  onChanged: () => void;
  onRecoveryCodes: (codes: string[]) => void;
}) {
  const [setup, setSetup] = useState<{ secret: string; otpauthUri: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const start = useAction(async () => setSetup(await typed(apiClient.POST('/api/me/second-factors/totp'))));
  const confirm = useAction(async () => {
    const body = { code: code.replace(/\s/g, ''), ...(needsPassword ? { password } : {}) };
    const { recoveryCodes } = await typed(apiClient.POST('/api/me/second-factors/totp/confirm', { body }));
    setSetup(null);
    setCode('');
    setPassword('');
    onRecoveryCodes(recoveryCodes);
    onChanged();
  });
  const remove = useAction(async () => {
    await typed(apiClient.DELETE('/api/me/second-factors/totp'));
    onChanged();
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void confirm.run();
  };
  if (enabledAt) {
    return (
      <div className="factor-row">
        <p>
          <strong>Authenticator app</strong> <span className="tag">on</span>
          <span className="muted small"> since {formatDay(enabledAt)}</span>
        </p>
        <button
          type="button"
          className="button small ghost danger"
          disabled={remove.pending}
          onClick={() => void remove.run()}
        >
          Remove the app
        </button>
        <FreshFactorGate error={remove.error} retry={() => void remove.run()} />
      </div>
    );
  }
  if (!setup) {
    return (
      <div className="factor-row">
        <p>
          <strong>Authenticator app</strong> <span className="muted small">off</span>
        </p>
        <button
          type="button"
          className="button small"
          disabled={start.pending}
          onClick={() => void start.run()}
        >
          Set up an authenticator app
        </button>
        <ErrorMessage error={start.error} />
      </div>
    );
  }
  return (
    <section className="once" aria-label="Set up an authenticator app">
      <p>
        Add this account to your authenticator app: scan the code, type in the secret, or{' '}
        <a href={setup.otpauthUri}>open the setup link</a> on the phone that has the app. Then enter the code
        it shows.
      </p>
      <SetupQrCode uri={setup.otpauthUri} />
      <CopyField label="Secret" value={setup.secret} testId="totp-secret" />
      <form className="inline-form" onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="totp-code">Code from the app</label>
          <input
            id="totp-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </div>
        {needsPassword ? (
          <div className="field">
            <label htmlFor="totp-password">Your password</label>
            <input
              id="totp-password"
              type="password"
              autoComplete="current-password"
              aria-describedby="totp-password-hint"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <span id="totp-password-hint" className="muted small">
              Your first second factor needs it
            </span>
          </div>
        ) : null}
        <button
          type="submit"
          className="button"
          disabled={
            code.replace(/\s/g, '').length !== 6 || (needsPassword && password === '') || confirm.pending
          }
        >
          Turn on
        </button>
      </form>
      <ErrorMessage error={confirm.error} />
    </section>
  );
}

/** The setup link as a QR code for the phone's camera, drawn here (the secret never leaves the page). */
function SetupQrCode({ uri }: { uri: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then((text) => {
      if (live) setSvg(text);
    });
    return () => {
      live = false;
    };
  }, [uri]);
  if (!svg) return null;
  return (
    <img
      className="totp-qr"
      src={`data:image/svg+xml;utf8,${encodeURIComponent(svg)}`}
      alt="QR code of the authenticator app's setup link"
      width={176}
      height={176}
      data-testid="totp-qr"
    />
  );
}
