import { type FormEvent, useId } from 'react';
import { type KeySettings, type LimitFields, SCOPE_HELP, SCOPES } from './keySettings';

const LIMITS: { field: keyof LimitFields; label: string; step: string }[] = [
  { field: 'maxOrder', label: 'Largest order (credits)', step: '0.01' },
  { field: 'maxOpenOrders', label: 'Open orders at once', step: '1' },
  { field: 'maxPositionShares', label: 'Shares per market side', step: '1' },
  { field: 'maxDailyLoss', label: 'Loss per day (credits)', step: '0.01' },
];

/** A key's name, scopes, allow-list, expiry and risk limits: for a new key, or one being changed. */
export function KeySettingsForm({
  settings,
  submitLabel,
  pending,
  onSubmit,
  onCancel,
}: {
  settings: KeySettings;
  submitLabel: string;
  pending: boolean;
  onSubmit: () => void;
  onCancel?: () => void;
}) {
  const id = useId();
  const { draft } = settings;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  const restricted =
    draft.allowList !== '' || draft.expiresOn !== '' || Object.values(draft.limits).some(Boolean);
  return (
    <form className="stack key-form" onSubmit={submit} aria-label={submitLabel}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Key name</label>
        <input
          id={`${id}-name`}
          value={draft.name}
          maxLength={60}
          placeholder="trading bot"
          onChange={(e) => settings.set({ name: e.target.value })}
        />
      </div>
      <fieldset>
        <legend>What the key may do</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="check">
            <input
              type="checkbox"
              checked={draft.scopes.includes(scope)}
              onChange={() => settings.toggleScope(scope)}
            />
            <span>
              <strong>{scope}</strong> <span className="muted small">{SCOPE_HELP[scope]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <details className="key-settings" open={restricted}>
        <summary>Addresses, expiry and limits</summary>
        <div className="field">
          <label htmlFor={`${id}-cidrs`}>
            Allowed addresses (one address or CIDR a line; empty: anywhere)
          </label>
          <textarea
            id={`${id}-cidrs`}
            rows={2}
            value={draft.allowList}
            placeholder="203.0.113.7&#10;2001:db8::/48"
            onChange={(e) => settings.set({ allowList: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-expires`}>Stops working after (empty: never)</label>
          <input
            id={`${id}-expires`}
            type="date"
            value={draft.expiresOn}
            onChange={(e) => settings.set({ expiresOn: e.target.value })}
          />
        </div>
        <div className="field-row">
          {LIMITS.map(({ field, label, step }) => (
            <div className="field" key={field}>
              <label htmlFor={`${id}-${field}`}>{label}</label>
              <input
                id={`${id}-${field}`}
                type="number"
                min="0"
                step={step}
                inputMode="decimal"
                value={draft.limits[field]}
                onChange={(e) => settings.setLimit(field, e.target.value)}
              />
            </div>
          ))}
        </div>
      </details>
      <div className="inline-form">
        <button
          type="submit"
          className="button"
          disabled={!draft.name.trim() || draft.scopes.length === 0 || pending}
        >
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button ghost" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
