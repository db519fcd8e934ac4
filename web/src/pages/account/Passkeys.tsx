import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../api/client';
import { Loaded } from '../../components/Status';
import { formatDate, formatDay } from '../../lib/format';
import { useAction, useApi } from '../../lib/hooks';
import { passkeysSupported, registerPasskey } from '../../lib/passkeys';
import { FreshFactorGate } from './FreshFactor';

interface PasskeyView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * The account's passkeys: one made on this device by name (the first factor of the account with the password too),
 * each removable.
 */
export function Passkeys({
  needsPassword,
  onChanged,
  onRecoveryCodes,
}: {
  /** The account has no factor yet: the first one needs the current password. */
  needsPassword: boolean;
  onChanged: () => void;
  onRecoveryCodes: (codes: string[]) => void;
}) {
  const list = useApi('/api/me/passkeys');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const add = useAction(async () => {
    const { recoveryCodes } = await registerPasskey(
      name.trim() || 'Passkey',
      needsPassword ? password : undefined,
    );
    setName('');
    setPassword('');
    if (recoveryCodes.length > 0) onRecoveryCodes(recoveryCodes);
    list.reload();
    onChanged();
  });
  const remove = useAction(async (passkey: PasskeyView) => {
    await typed(apiClient.DELETE('/api/me/passkeys/{id}', { params: { path: { id: passkey.id } } }));
    list.reload();
    onChanged();
  });
  const [removing, setRemoving] = useState<PasskeyView | null>(null);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void add.run();
  };
  return (
    <div className="factor-row">
      <p>
        <strong>Passkeys</strong>{' '}
        <span className="muted small">sign in with your fingerprint, face or device PIN</span>
      </p>
      <Loaded data={list.data} error={list.error} reload={list.reload}>
        {({ data }) =>
          data.length === 0 ? null : (
            <ul className="plain rows" aria-label="Your passkeys">
              {data.map((passkey) => (
                <li key={passkey.id} className="row" data-testid="passkey-row">
                  <div>
                    <strong className="break">{passkey.name}</strong>
                    <div className="muted small">
                      Added {formatDay(passkey.createdAt)} · last used{' '}
                      {passkey.lastUsedAt ? formatDate(passkey.lastUsedAt) : 'never'}
                    </div>
                  </div>
                  <button
                    type="button"
                    className="button small ghost danger"
                    disabled={remove.pending}
                    onClick={() => {
                      setRemoving(passkey);
                      void remove.run(passkey);
                    }}
                  >
                    Remove<span className="visually-hidden"> {passkey.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      {removing ? <FreshFactorGate error={remove.error} retry={() => void remove.run(removing)} /> : null}
      {passkeysSupported() ? (
        <form className="inline-form" onSubmit={onSubmit}>
          <div className="field">
            <label htmlFor="passkey-name">Passkey name</label>
            <input
              id="passkey-name"
              value={name}
              maxLength={64}
              placeholder="my laptop"
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          {needsPassword ? (
            <div className="field">
              <label htmlFor="passkey-password">Your password for the passkey</label>
              <input
                id="passkey-password"
                type="password"
                autoComplete="current-password"
                aria-describedby="passkey-password-hint"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <span id="passkey-password-hint" className="muted small">
                Your first second factor needs it
              </span>
            </div>
          ) : null}
          <button
            type="submit"
            className="button"
            disabled={add.pending || (needsPassword && password === '')}
          >
            {add.pending ? 'Waiting for your device…' : 'Add a passkey'}
          </button>
        </form>
      ) : (
        <p className="muted small">This browser cannot make passkeys.</p>
      )}
      <FreshFactorGate error={add.error} retry={() => void add.run()} />
    </div>
  );
}
