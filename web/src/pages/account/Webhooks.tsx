import { Empty, ErrorMessage } from '../../components/Status';
import { ShownOnce } from './ShownOnce';
import { useWebhooks } from './useWebhooks';
import { WebhookForm } from './WebhookForm';
import { WebhookList } from './WebhookList';

/** Where the service posts the trader's events, added and deleted here. */
export function Webhooks() {
  const webhooks = useWebhooks();
  const { list, created } = webhooks;
  return (
    <section className="card" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      {list.error ? (
        <ErrorMessage error={list.error} onRetry={list.reload} />
      ) : (
        <>
          <p className="muted">
            We POST signed JSON to your URL when your orders fill, markets resolve and more. Check the
            signature with the secret shown once at creation.
          </p>
          {created ? (
            <ShownOnce
              label="New webhook secret"
              field="Signing secret"
              value={created.secret}
              onDone={webhooks.forgetCreated}
            >
              <strong>Copy the signing secret now.</strong> It will not be shown again.
            </ShownOnce>
          ) : null}
          <WebhookForm
            draft={webhooks.draft}
            onUrl={webhooks.setUrl}
            onDescription={webhooks.setDescription}
            onEvents={webhooks.setEvents}
            creating={webhooks.creating}
            onSubmit={webhooks.submit}
          />
          <ErrorMessage error={webhooks.error} />
          {list.data && list.data.data.length > 0 ? (
            <WebhookList hooks={list.data.data} onDelete={webhooks.remove} />
          ) : list.data ? (
            <Empty>No webhooks yet.</Empty>
          ) : null}
        </>
      )}
    </section>
  );
}
