import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { apiClient, typed } from '../api/client';
import type { ApiKey, CreatedWebhook, Preferences, Webhook, WebhookEventType } from '../api/types';
import { useAuth } from '../auth';
import { ChangePassword, Sessions, WebhookDeliveries } from '../components/AccountSecurity';
import { Avatar } from '../components/Avatar';
import { CopyField } from '../components/CopyField';
import { Empty, ErrorMessage, Loaded, SignInPrompt } from '../components/Status';
import { TableScroll } from '../components/TableScroll';
import { formatCredits, formatDate, formatDay } from '../lib/format';
import { useAction, useApi, useDocumentTitle } from '../lib/hooks';
import { invalidate } from '../lib/query';
import { useTheme } from '../theme';

const WEBHOOK_EVENTS: WebhookEventType[] = [
  'order.filled',
  'order.cancelled',
  'order.expired',
  'trade.executed',
  'position.protection_triggered',
  'market.resolved',
  'market.settled',
  'notification.created',
];
const NOTIFICATION_CATEGORIES = [
  { key: 'trades', label: 'Trades: fills, cancellations, expiries, settlements' },
  { key: 'social', label: 'Social: followers, likes, comments' },
  { key: 'competitions', label: 'Tournaments and challenges' },
  { key: 'marketing', label: 'Product news and offers' },
] as const;

function AvatarUpload({
  avatarUrl,
  name,
  onUploaded,
}: {
  avatarUrl: string | null;
  name: string;
  onUploaded: () => void;
}) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const upload = useAction(async () => {
    if (!file) return;
    const form = new FormData();
    form.append('file', file);
    // The document types the binary part as a string: the body names the file, the serializer sends the file.
    await typed(apiClient.POST('/api/me/avatar', { body: { file: file.name }, bodySerializer: () => form }));
    setFile(null);
    onUploaded();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void upload.run();
  };
  return (
    <form className="avatar-form" onSubmit={submit}>
      <Avatar url={avatarUrl} name={name} size={72} />
      <div>
        <label htmlFor={id}>Avatar image</label>
        <input
          id={id}
          type="file"
          accept="image/jpeg,image/png,image/webp,image/gif"
          aria-describedby={`${id}-hint`}
          onChange={(event) => setFile(event.target.files?.[0] ?? null)}
        />
        <p id={`${id}-hint`} className="muted small">
          JPEG, PNG, WebP or GIF, up to 2 MB.
        </p>
        <button type="submit" className="button small" disabled={!file || upload.pending}>
          {upload.pending ? 'Uploading…' : 'Upload'}
        </button>
        <ErrorMessage error={upload.error} />
      </div>
    </form>
  );
}

function PreferencesForm({
  preferences,
  onSaved,
}: {
  preferences: Preferences;
  onSaved: (p: Preferences) => void;
}) {
  const { theme, setTheme } = useTheme();
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
  const darkMode = useAction((dark: boolean) => setTheme(dark ? 'dark' : 'light'));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    void save.run();
  };
  return (
    <form onSubmit={submit} className="stack">
      <div className="field">
        <label className="check">
          <input
            type="checkbox"
            checked={theme === 'dark'}
            onChange={(event) => void darkMode.run(event.target.checked)}
          />
          Dark mode
        </label>
        <ErrorMessage error={darkMode.error} />
      </div>
      <div className="field">
        <label htmlFor="pref-display">Display name</label>
        <input
          id="pref-display"
          value={displayName}
          maxLength={50}
          onChange={(e) => setDisplayName(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="pref-bio">Bio</label>
        <textarea
          id="pref-bio"
          value={bio}
          maxLength={280}
          rows={3}
          onChange={(e) => setBio(e.target.value)}
        />
        <span className="muted small">{bio.length}/280</span>
      </div>
      <div className="field">
        <label htmlFor="pref-tz">Time zone</label>
        <input
          id="pref-tz"
          value={timezone}
          placeholder={Intl.DateTimeFormat().resolvedOptions().timeZone}
          aria-describedby="pref-tz-hint"
          onChange={(e) => setTimezone(e.target.value)}
        />
        <span id="pref-tz-hint" className="muted small">
          An IANA name such as Asia/Kolkata or Europe/London.
        </span>
      </div>
      <fieldset>
        <legend>Notify me about</legend>
        {NOTIFICATION_CATEGORIES.map((category) => (
          <label key={category.key} className="check">
            <input
              type="checkbox"
              checked={notifications[category.key]}
              onChange={(event) =>
                setNotifications({ ...notifications, [category.key]: event.target.checked })
              }
            />
            {category.label}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="button" disabled={save.pending}>
        {save.pending ? 'Saving…' : 'Save profile'}
      </button>
      <ErrorMessage error={save.error} />
      {saved ? (
        <p className="success" role="status">
          Saved.
        </p>
      ) : null}
    </form>
  );
}

function ApiKeys() {
  const keys = useApi('/api/me/api-keys');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const create = useAction(async () => {
    const key = await typed(apiClient.POST('/api/me/api-keys', { body: { name: name.trim() } }));
    setCreated(key);
    setName('');
    keys.reload();
  });
  const revoke = useAction(async (key: ApiKey) => {
    await typed(apiClient.DELETE('/api/me/api-keys/{id}', { params: { path: { id: key.id } } }));
    if (created?.id === key.id) setCreated(null);
    keys.reload();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) void create.run();
  };
  return (
    <section className="card" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="muted">
        Keys let your programs trade for you: send <code>Authorization: Bearer &lt;key&gt;</code>. See the{' '}
        <a href="/docs">API documentation</a>. A key is shown once, when you create it.
      </p>
      {created ? (
        <section className="once" aria-label="New API key">
          <p>
            <strong>Copy your new key “{created.name}” now.</strong> It will not be shown again.
          </p>
          <CopyField label="API key" value={created.key} testId="new-api-key" />
          <button type="button" className="button ghost small" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </section>
      ) : null}
      <form className="inline-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="key-name">Key name</label>
          <input
            id="key-name"
            value={name}
            maxLength={60}
            placeholder="trading bot"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={!name.trim() || create.pending}>
          Create key
        </button>
      </form>
      <ErrorMessage error={create.error ?? revoke.error} />
      <Loaded data={keys.data} error={keys.error} reload={keys.reload}>
        {({ data }) =>
          data.length === 0 ? (
            <Empty>No API keys yet.</Empty>
          ) : (
            <TableScroll label="API keys table">
              <table className="data" aria-label="Your API keys">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((key) => (
                    <tr key={key.id} data-testid="api-key-row">
                      <td>{key.name}</td>
                      <td>
                        <code>{key.prefix}…</code>
                      </td>
                      <td>{formatDay(key.createdAt)}</td>
                      <td>
                        {key.lastUsedAt ? formatDate(key.lastUsedAt) : 'Never'}
                        {key.lastUsedFrom ? <div className="muted small">from {key.lastUsedFrom}</div> : null}
                      </td>
                      <td>
                        <button
                          type="button"
                          className="button small ghost danger"
                          disabled={revoke.pending}
                          onClick={() => void revoke.run(key)}
                        >
                          Revoke<span className="visually-hidden"> {key.name}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Loaded>
    </section>
  );
}

function Webhooks() {
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (url.trim()) void create.run();
  };
  return (
    <section className="card" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      {hooks.error ? (
        <ErrorMessage error={hooks.error} onRetry={hooks.reload} />
      ) : (
        <>
          <p className="muted">
            We POST signed JSON to your URL when your orders fill, markets resolve and more. Check the
            signature with the secret shown once at creation.
          </p>
          {created ? (
            <section className="once" aria-label="New webhook secret">
              <p>
                <strong>Copy the signing secret now.</strong> It will not be shown again.
              </p>
              <CopyField label="Signing secret" value={created.secret} />
              <button type="button" className="button ghost small" onClick={() => setCreated(null)}>
                I have copied it
              </button>
            </section>
          ) : null}
          <form onSubmit={submit} className="stack">
            <div className="field">
              <label htmlFor="hook-url">Endpoint URL</label>
              <input
                id="hook-url"
                type="url"
                value={url}
                placeholder="https://example.com/hooks"
                onChange={(e) => setUrl(e.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor="hook-description">Description (optional)</label>
              <input
                id="hook-description"
                value={description}
                maxLength={200}
                onChange={(e) => setDescription(e.target.value)}
              />
            </div>
            <fieldset>
              <legend>Events (none ticked: all of them)</legend>
              <div className="check-grid">
                {WEBHOOK_EVENTS.map((type) => (
                  <label key={type} className="check">
                    <input
                      type="checkbox"
                      checked={events.includes(type)}
                      onChange={(event) =>
                        setEvents(
                          event.target.checked ? [...events, type] : events.filter((item) => item !== type),
                        )
                      }
                    />
                    <code>{type}</code>
                  </label>
                ))}
              </div>
            </fieldset>
            <button type="submit" className="button" disabled={!url.trim() || create.pending}>
              Add webhook
            </button>
          </form>
          <ErrorMessage error={create.error ?? remove.error} />
          {hooks.data && hooks.data.data.length > 0 ? (
            <ul className="plain rows">
              {hooks.data.data.map((hook) => (
                <li key={hook.id} className="row">
                  <div>
                    <code className="break">{hook.url}</code>
                    <div className="muted small">
                      {hook.description ? `${hook.description} · ` : ''}
                      {hook.events?.length ? hook.events.join(', ') : 'All events'} · since{' '}
                      {formatDay(hook.createdAt)}
                    </div>
                    <details>
                      <summary>Delivery attempts</summary>
                      <WebhookDeliveries webhookId={hook.id} />
                    </details>
                  </div>
                  <button
                    type="button"
                    className="button small ghost danger"
                    onClick={() => void remove.run(hook)}
                  >
                    Delete<span className="visually-hidden"> webhook {hook.url}</span>
                  </button>
                </li>
              ))}
            </ul>
          ) : hooks.data ? (
            <Empty>No webhooks yet.</Empty>
          ) : null}
        </>
      )}
    </section>
  );
}

function ReferralCard() {
  const referral = useApi('/api/me/referral');
  if (!referral.data) return referral.error ? <ErrorMessage error={referral.error} /> : null;
  const data = referral.data;
  return (
    <section className="card" aria-labelledby="referral-heading">
      <h2 id="referral-heading">Invite friends</h2>
      <p className="muted">
        You earn {formatCredits(data.rewardCents)} when someone you invite makes their first trade. So far:{' '}
        {data.referredCount} joined, {data.rewardedCount} traded, {formatCredits(data.totalEarnedCents)}{' '}
        earned.
      </p>
      <CopyField label="Your invite link" value={data.link} />
    </section>
  );
}

export function AccountPage() {
  useDocumentTitle('Account and security');
  const { me, signedIn, logout } = useAuth();
  const navigate = useNavigate();
  const preferences = useApi(signedIn ? '/api/me/preferences' : null);
  const signOut = useAction(async () => {
    await logout();
    navigate('/');
  });
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Account and security</h1>
        <SignInPrompt what="manage your account" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Account and security</h1>
      <section className="card" aria-labelledby="profile-heading">
        <h2 id="profile-heading">Profile</h2>
        {me ? (
          <dl className="facts">
            <div>
              <dt>Username</dt>
              <dd>
                <Link to={`/users/${me.username}`}>{me.username}</Link>
              </dd>
            </div>
            <div>
              <dt>Email</dt>
              <dd>{me.email}</dd>
            </div>
            <div>
              <dt>Cash</dt>
              <dd>{formatCredits(me.balance.cashCents)}</dd>
            </div>
            <div>
              <dt>Held for orders</dt>
              <dd>{formatCredits(me.balance.reservedCents)}</dd>
            </div>
            <div>
              <dt>Member since</dt>
              <dd>{formatDay(me.createdAt)}</dd>
            </div>
          </dl>
        ) : null}
        <p>
          <Link to="/progress">Your streak, level and badges</Link>
        </p>
        <Loaded data={preferences.data} error={preferences.error} reload={preferences.reload}>
          {(data) => (
            <>
              <AvatarUpload
                avatarUrl={data.avatarUrl}
                name={me?.username ?? '?'}
                onUploaded={preferences.reload}
              />
              <PreferencesForm preferences={data} onSaved={(next) => preferences.setData(() => next)} />
            </>
          )}
        </Loaded>
      </section>
      <section className="card" aria-labelledby="security-heading">
        <h2 id="security-heading">Password and sessions</h2>
        <ChangePassword onChanged={() => invalidate('/api/me/sessions')} />
        <h3>Signed-in sessions</h3>
        <Sessions />
      </section>
      <ApiKeys />
      <Webhooks />
      <ReferralCard />
      <section className="card" aria-labelledby="session-heading">
        <h2 id="session-heading">Session</h2>
        <p className="muted">
          Logging out ends this browser’s session. API keys keep working until you revoke them.
        </p>
        <button
          type="button"
          className="button ghost"
          disabled={signOut.pending}
          onClick={() => void signOut.run()}
        >
          Log out
        </button>
        <ErrorMessage error={signOut.error} />
      </section>
    </div>
  );
}
