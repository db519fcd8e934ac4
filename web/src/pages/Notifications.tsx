import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useAuth } from '../auth';
import { PagedList } from '../components/Paged';
import { ErrorMessage, SignInPrompt } from '../components/Status';
import { feedInit, setUnreadCount } from '../lib/account-live';
import { timeAgo } from '../lib/format';
import { type PageItem, useAction, useDocumentTitle, usePagedApi } from '../lib/hooks';
import { notificationLink } from '../lib/notification-links';

type Notification = PageItem<'/api/me/notifications'>;

/** One notification: what happened, when, a link to where it happened, and a way to mark it read. */
function NotificationItem({ item, onRead }: { item: Notification; onRead: () => void }) {
  const link = notificationLink(item.type, item.data);
  return (
    <li className={item.read ? 'card notification' : 'card notification unread'} data-testid="notification">
      <div>
        <h2 className="notification-title">
          {item.read ? null : <span className="visually-hidden">Unread: </span>}
          {item.title}
        </h2>
        <p>{item.body}</p>
        <span className="muted small">{timeAgo(item.createdAt)}</span>
        {link ? (
          <>
            {' · '}
            <Link
              to={link.to}
              className="small"
              onClick={() => {
                if (!item.read) onRead();
              }}
            >
              {link.label}
              <span className="visually-hidden">: {item.title}</span>
            </Link>
          </>
        ) : null}
      </div>
      {item.read ? null : (
        <button type="button" className="link-button" onClick={onRead}>
          Mark read<span className="visually-hidden">: {item.title}</span>
        </button>
      )}
    </li>
  );
}

export function NotificationsPage() {
  useDocumentTitle('Notifications');
  const { signedIn } = useAuth();
  const feed = usePagedApi(signedIn ? '/api/me/notifications' : null, feedInit);
  const mark = useAction(async (body: { markAllRead: true } | { id: string }) => {
    const answer = await typed(apiClient.POST('/api/me/notifications', { body }));
    feed.setItems((items) =>
      items.map((item) => ('markAllRead' in body || item.id === body.id ? { ...item, read: true } : item)),
    );
    setUnreadCount(() => answer.unreadCount);
  });
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Notifications</h1>
        <SignInPrompt what="see your notifications" />
      </div>
    );
  }
  const unread = feed.items.some((item) => !item.read);
  return (
    <div className="page narrow">
      <div className="page-head">
        <h1>Notifications</h1>
        <button
          type="button"
          className="button ghost small"
          disabled={!unread || mark.pending}
          onClick={() => void mark.run({ markAllRead: true })}
        >
          Mark all read
        </button>
      </div>
      <ErrorMessage error={mark.error} />
      <PagedList
        list={feed}
        empty="Nothing yet. Fills, settlements, likes and prizes show up here."
        more="Older"
      >
        {(items) => (
          <ul className="plain notifications">
            {items.map((item) => (
              <NotificationItem key={item.id} item={item} onRead={() => void mark.run({ id: item.id })} />
            ))}
          </ul>
        )}
      </PagedList>
    </div>
  );
}
