import type { Preferences } from '../../api/types';
import { ErrorMessage } from '../../components/Status';
import { DarkModeToggle } from './DarkModeToggle';
import { NotificationChoices } from './NotificationChoices';
import { usePreferencesForm } from './usePreferencesForm';

/** The profile others see (display name, bio), the time zone, dark mode and the notifications wanted. */
export function PreferencesForm({
  preferences,
  onSaved,
}: {
  preferences: Preferences;
  onSaved: (preferences: Preferences) => void;
}) {
  const form = usePreferencesForm(preferences, onSaved);
  return (
    <form onSubmit={form.submit} className="stack">
      <DarkModeToggle />
      <div className="field">
        <label htmlFor="pref-display">Display name</label>
        <input
          id="pref-display"
          value={form.displayName}
          maxLength={50}
          onChange={(e) => form.setDisplayName(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="pref-bio">Bio</label>
        <textarea
          id="pref-bio"
          value={form.bio}
          maxLength={280}
          rows={3}
          onChange={(e) => form.setBio(e.target.value)}
        />
        <span className="muted small">{form.bio.length}/280</span>
      </div>
      <div className="field">
        <label htmlFor="pref-tz">Time zone</label>
        <input
          id="pref-tz"
          value={form.timezone}
          placeholder={Intl.DateTimeFormat().resolvedOptions().timeZone}
          aria-describedby="pref-tz-hint"
          onChange={(e) => form.setTimezone(e.target.value)}
        />
        <span id="pref-tz-hint" className="muted small">
          An IANA name such as Asia/Kolkata or Europe/London.
        </span>
      </div>
      <NotificationChoices notifications={form.notifications} onChange={form.setNotifications} />
      <button type="submit" className="button" disabled={form.pending}>
        {form.pending ? 'Saving…' : 'Save profile'}
      </button>
      <ErrorMessage error={form.error} />
      {form.saved ? (
        <p className="success" role="status">
          Saved.
        </p>
      ) : null}
    </form>
  );
}
