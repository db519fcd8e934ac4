import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../api/client';
import type { Preferences } from '../../api/types';
import { useAction } from '../../lib/hooks';

/** The profile's editable preferences as typed, and their saving. */
export function usePreferencesForm(preferences: Preferences, onSaved: (preferences: Preferences) => void) {
  const [displayName, setDisplayName] = useState(preferences.displayName ?? '');
  const [bio, setBio] = useState(preferences.bio);
  const [timezone, setTimezone] = useState(preferences.timezone ?? '');
  const [notifications, setNotifications] = useState(preferences.notifications);
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    const next = await typed(
      apiClient.PATCH('/api/me/preferences', {
        body: {
          displayName: displayName.trim() || null,
          bio,
          timezone: timezone.trim() || null,
          notifications,
        },
      }),
    );
    setSaved(true);
    onSaved(next);
  });
  return {
    displayName,
    setDisplayName,
    bio,
    setBio,
    timezone,
    setTimezone,
    notifications,
    setNotifications,
    saved,
    pending: save.pending,
    error: save.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      setSaved(false);
      void save.run();
    },
  };
}
