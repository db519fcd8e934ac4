import { useState } from 'react';
import { apiClient, typed } from '../../api/client';
import type { ApiKey } from '../../api/types';
import { useAction, useApi } from '../../lib/hooks';
import { invalidate } from '../../lib/query';
import { settingsBody, useKeySettings } from './keySettings';

/**
 * The account's API keys: the list, the settings of the next one, its creation (the key shown once), changing a
 * key's settings and revoking.
 */
export function useApiKeys() {
  const keys = useApi('/api/me/api-keys');
  const settings = useKeySettings(null);
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const changed = () => {
    keys.reload();
    invalidate('/api/me/security-log');
  };
  const create = useAction(async () => {
    const key = await typed(apiClient.POST('/api/me/api-keys', { body: settingsBody(settings.draft) }));
    setCreated(key);
    settings.reset();
    changed();
  });
  const update = useAction(async (key: ApiKey, body: ReturnType<typeof settingsBody>) => {
    await typed(apiClient.PATCH('/api/me/api-keys/{id}', { params: { path: { id: key.id } }, body }));
    setEditing(null);
    changed();
  });
  const revoke = useAction(async (key: ApiKey) => {
    await typed(apiClient.DELETE('/api/me/api-keys/{id}', { params: { path: { id: key.id } } }));
    if (created?.id === key.id) setCreated(null);
    changed();
  });
  return {
    list: keys,
    settings,
    created,
    forgetCreated: () => setCreated(null),
    create,
    editing,
    setEditing,
    update,
    revoking: revoke.pending,
    revoke: (key: ApiKey) => void revoke.run(key),
    revokeError: revoke.error,
  };
}
