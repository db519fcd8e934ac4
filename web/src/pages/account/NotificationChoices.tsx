import type { Preferences } from '../../api/types';

const NOTIFICATION_CATEGORIES = [
  { key: 'trades', label: 'Trades: fills, cancellations, expiries, settlements' },
  { key: 'social', label: 'Social: followers, likes, comments' },
  { key: 'competitions', label: 'Tournaments and challenges' },
  { key: 'marketing', label: 'Product news and offers' },
  { key: 'newSignIn', label: 'Sign-ins from a new device or address (also by mail)' },
] as const;

type Notifications = Preferences['notifications'];

/** Which kinds of notification the trader wants. */
export function NotificationChoices({
  notifications,
  onChange,
}: {
  notifications: Notifications;
  onChange: (notifications: Notifications) => void;
}) {
  return (
    <fieldset>
      <legend>Notify me about</legend>
      {NOTIFICATION_CATEGORIES.map((category) => (
        <label key={category.key} className="check">
          <input
            type="checkbox"
            checked={notifications[category.key]}
            onChange={(event) => onChange({ ...notifications, [category.key]: event.target.checked })}
          />
          {category.label}
        </label>
      ))}
    </fieldset>
  );
}
