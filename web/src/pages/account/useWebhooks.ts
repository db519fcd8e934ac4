import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../api/client';
import type { CreatedWebhook, Webhook, WebhookEventType } from '../../api/types';
import { useAction, useApi } from '../../lib/hooks';

/** The account's webhooks: the list, the next one as typed, its creation (the secret shown once) and deleting. */
export function useWebhooks() {
  const hooks = useApi('/api/me/webhooks');
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const create = useAction(async () => {
    const hook = await typed(
      apiClient.POST('/api/me/webhooks', {
        body: {
          url: url.trim(),
          ...(description.trim() ? { description: description.trim() } : {}),
          ...(events.length ? { events } : {}),
        },
      }),
    );
    setCreated(hook);
    setUrl('');
    setDescription('');
    setEvents([]);
    hooks.reload();
  });
  const remove = useAction(async (hook: Webhook) => {
    await typed(apiClient.DELETE('/api/me/webhooks/{id}', { params: { path: { id: hook.id } } }));
    hooks.reload();
  });
  return {
    list: hooks,
    draft: { url, description, events },
    setUrl,
    setDescription,
    setEvents,
    created,
    forgetCreated: () => setCreated(null),
    creating: create.pending,
    remove: (hook: Webhook) => void remove.run(hook),
    error: create.error ?? remove.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      if (url.trim()) void create.run();
    },
  };
}
