import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, apiClient, typed } from '../api/client';
import type { PublicProfile } from '../api/types';
import { useAuth } from '../auth';
import { Avatar } from '../components/Avatar';
import { PagedList } from '../components/Paged';
import { ReportButton } from '../components/ReportButton';
import { ErrorMessage, Loaded } from '../components/Status';
import {
  formatCount,
  formatCredits,
  formatDay,
  formatPercentBps,
  formatSignedCredits,
  pnlClass,
  timeAgo,
} from '../lib/format';
import { useAction, useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';
import { NotFoundPage } from './NotFound';

function FollowButton({
  profile,
  onChange,
}: {
  profile: PublicProfile;
  onChange: (followers: number) => void;
}) {
  const [following, setFollowing] = useState<boolean | null>(null);
  const toggle = useAction(async () => {
    if (following) {
      await typed(apiClient.DELETE('/api/follow/{userId}', { params: { path: { userId: profile.id } } }));
      setFollowing(false);
      onChange(profile.followers - 1);
    } else {
      const answer = await typed(
        apiClient.POST('/api/follow/{userId}', { params: { path: { userId: profile.id } } }),
      );
      setFollowing(true);
      onChange(answer.followerCount);
    }
  });
  return (
    <>
      <button
        type="button"
        className="button small"
        aria-pressed={following ?? false}
        disabled={toggle.pending}
        onClick={() => void toggle.run()}
      >
        {following ? 'Following' : 'Follow'}
      </button>
      <ErrorMessage error={toggle.error} />
    </>
  );
}

export function ProfilePage() {
  const { username = '' } = useParams();
  const { me } = useAuth();
  const profile = useApi('/api/users/{username}', { params: { path: { username } } });
  const posts = usePagedApi('/api/posts', { params: { query: { username, limit: 10 } } });
  useDocumentTitle(username);
  if (profile.error instanceof ApiError && profile.error.status === 404) return <NotFoundPage what="user" />;
  return (
    <div className="page narrow">
      <Loaded data={profile.data} error={profile.error} reload={profile.reload}>
        {(data) => (
          <>
            <header className="profile-head">
              <Avatar url={data.avatarUrl} name={data.username} size={80} />
              <div>
                <h1>{data.displayName ?? data.username}</h1>
                <p className="muted">
                  @{data.username} · level {data.level} · joined {formatDay(data.joinedAt)}
                </p>
                <p className="muted small">
                  {formatCount(data.followers, 'follower')} · {data.following} following
                </p>
                {me && me.id !== data.id ? (
                  <div className="actions">
                    <FollowButton
                      profile={data}
                      onChange={(followers) => profile.setData((p) => p && { ...p, followers })}
                    />
                    <Link
                      to={`/copy-trading?trader=${encodeURIComponent(data.username)}`}
                      className="button small ghost"
                    >
                      Copy their trades
                    </Link>
                    <ReportButton targetType="USER" targetId={data.id} />
                  </div>
                ) : null}
              </div>
            </header>
            {data.bio ? <p>{data.bio}</p> : null}
            <dl className="stats">
              <div className="stat">
                <dt>Trades</dt>
                <dd>{data.stats.trades}</dd>
              </div>
              <div className="stat">
                <dt>Volume</dt>
                <dd>{formatCredits(data.stats.volumeCents)}</dd>
              </div>
              <div className="stat">
                <dt>Realized profit</dt>
                <dd className={pnlClass(data.stats.realizedPnlCents)}>
                  {formatSignedCredits(data.stats.realizedPnlCents)}
                </dd>
              </div>
              <div className="stat">
                <dt>Win rate</dt>
                <dd>{data.stats.winRateBps === null ? '—' : formatPercentBps(data.stats.winRateBps)}</dd>
              </div>
              <div className="stat">
                <dt>Winning streak</dt>
                <dd title="Settled positions won in a row, the latest first">
                  {formatCount(data.stats.currentStreak, 'win')} in a row
                </dd>
              </div>
            </dl>
            <section className="card" aria-labelledby="badges-heading">
              <h2 id="badges-heading">Badges</h2>
              {data.badges.length === 0 ? (
                <p className="empty">No badges yet.</p>
              ) : (
                <ul className="badges">
                  {data.badges.map((badge) => (
                    <li key={badge.id} className="badge earned" title={badge.description}>
                      <strong>{badge.name}</strong>
                      <span className="small">{badge.description}</span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </Loaded>
      <section className="card" aria-labelledby="posts-heading">
        <h2 id="posts-heading">Recent posts</h2>
        <PagedList list={posts} empty="No posts yet." more="More posts">
          {(items) => (
            <ul className="plain posts">
              {items.map((post) => (
                <li key={post.id} className="post">
                  <Link to={`/markets/${post.eventSlug}`}>{post.eventTitle}</Link>{' '}
                  <span className="muted small">{timeAgo(post.createdAt)}</span>
                  <p className="post-text">{post.text}</p>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </div>
  );
}
