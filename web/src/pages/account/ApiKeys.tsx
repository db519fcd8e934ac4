import type { ApiKey } from '../../api/types';
import { Empty, ErrorMessage, Loaded } from '../../components/Status';
import { ApiKeysTable } from './ApiKeysTable';
import { FreshFactorGate } from './FreshFactor';
import { KeySettingsForm } from './KeySettingsForm';
import { settingsBody, useKeySettings } from './keySettings';
import { ShownOnce } from './ShownOnce';
import { useApiKeys } from './useApiKeys';

/** The keys a trader's programs use: made with their scopes, addresses, expiry and limits, changed and revoked. */
export function ApiKeys() {
  const keys = useApiKeys();
  const { created } = keys;
  return (
    <section className="card" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="muted">
        Keys let your programs trade for you: send <code>Authorization: Bearer &lt;key&gt;</code>. See the{' '}
        <a href="/docs">API documentation</a>. A key is shown once, when you create it. Give each key only
        what it needs: a watchdog that only cancels, a bot held to limits, used only from its server.
      </p>
      {created ? (
        <ShownOnce
          label="New API key"
          field="API key"
          value={created.key}
          testId="new-api-key"
          onDone={keys.forgetCreated}
        >
          <strong>Copy your new key “{created.name}” now.</strong> It will not be shown again.
        </ShownOnce>
      ) : null}
      <KeySettingsForm
        settings={keys.settings}
        submitLabel="Create key"
        pending={keys.create.pending}
        onSubmit={() => void keys.create.run()}
      />
      <FreshFactorGate error={keys.create.error} retry={() => void keys.create.run()} />
      {keys.editing ? <EditKey key={keys.editing.id} apiKey={keys.editing} keys={keys} /> : null}
      <ErrorMessage error={keys.revokeError} />
      <Loaded data={keys.list.data} error={keys.list.error} reload={keys.list.reload}>
        {({ data }) =>
          data.length === 0 ? (
            <Empty>No API keys yet.</Empty>
          ) : (
            <ApiKeysTable
              keys={data}
              revoking={keys.revoking}
              onRevoke={keys.revoke}
              onEdit={(key) => keys.setEditing(key)}
            />
          )
        }
      </Loaded>
    </section>
  );
}

/** Changing one key's settings in place; takes effect at once. */
function EditKey({ apiKey, keys }: { apiKey: ApiKey; keys: ReturnType<typeof useApiKeys> }) {
  const settings = useKeySettings(apiKey);
  const save = () => void keys.update.run(apiKey, settingsBody(settings.draft));
  return (
    <section className="once" aria-label={`Change the key ${apiKey.name}`}>
      <p>
        <strong>Change “{apiKey.name}”.</strong> Orders already resting stay.
      </p>
      <KeySettingsForm
        settings={settings}
        submitLabel="Save key"
        pending={keys.update.pending}
        onSubmit={save}
        onCancel={() => keys.setEditing(null)}
      />
      <FreshFactorGate error={keys.update.error} retry={save} />
    </section>
  );
}
