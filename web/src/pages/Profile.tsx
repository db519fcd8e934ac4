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
import { type Paged, type PageItem, useAction, useApi, useDocumentTitle, usePagedApi } from '../lib/hooks';
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

/** Who the trader is: avatar, name, level, followers, and for another trader, follow, copy and report. */
function ProfileHead({
  profile,
  actions,
  onFollowers,
}: {
  profile: PublicProfile;
  /** Whether the visitor may follow, copy and report: signed in, and not on their own profile. */
  actions: boolean;
  onFollowers: (followers: number) => void;
}) {
  return (
    <header className="profile-head">
      <Avatar url={profile.avatarUrl} name={profile.username} size={80} />
      <div>
        <h1>{profile.displayName ?? profile.username}</h1>
        <p className="muted">
          @{profile.username} · level {profile.level} · joined {formatDay(profile.joinedAt)}
        </p>
        <p className="muted small">
          {formatCount(profile.followers, 'follower')} · {profile.following} following
        </p>
        {actions ? (
          <div className="actions">
            <FollowButton profile={profile} onChange={onFollowers} />
            <Link
              to={`/copy-trading?trader=${encodeURIComponent(profile.username)}`}
              className="button small ghost"
            >
              Copy their trades
            </Link>
            <ReportButton targetType="USER" targetId={profile.id} />
          </div>
        ) : null}
      </div>
    </header>
  );
}

/** The trader's record: trades, volume, realized profit, win rate and winning streak. */
function ProfileStats({ stats }: { stats: PublicProfile['stats'] }) {
  return (
    <dl className="stats">
      <div className="stat">
        <dt>Trades</dt>
        <dd>{stats.trades}</dd>
      </div>
      <div className="stat">
        <dt>Volume</dt>
        <dd>{formatCredits(stats.volumeCents)}</dd>
      </div>
      <div className="stat">
        <dt>Realized profit</dt>
        <dd className={pnlClass(stats.realizedPnlCents)}>{formatSignedCredits(stats.realizedPnlCents)}</dd>
      </div>
      <div className="stat">
        <dt>Win rate</dt>
        <dd>{stats.winRateBps === null ? '—' : formatPercentBps(stats.winRateBps)}</dd>
      </div>
      <div className="stat">
        <dt>Winning streak</dt>
        <dd title="Settled positions won in a row, the latest first">
          {formatCount(stats.currentStreak, 'win')} in a row
        </dd>
      </div>
    </dl>
  );
}

function Badges({ badges }: { badges: PublicProfile['badges'] }) {
  return (
    <section className="card" aria-labelledby="badges-heading">
      <h2 id="badges-heading">Badges</h2>
      {badges.length === 0 ? (
        <p className="empty">No badges yet.</p>
      ) : (
        <ul className="badges">
          {badges.map((badge) => (
            <li key={badge.id} className="badge earned" title={badge.description}>
              <strong>{badge.name}</strong>
              <span className="small">{badge.description}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RecentPosts({ posts }: { posts: Paged<PageItem<'/api/posts'>> }) {
  return (
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
            <ProfileHead
              profile={data}
              actions={Boolean(me) && me?.id !== data.id}
              onFollowers={(followers) => profile.setData((p) => p && { ...p, followers })}
            />
            {data.bio ? <p>{data.bio}</p> : null}
            <ProfileStats stats={data.stats} />
            <Badges badges={data.badges} />
          </>
        )}
      </Loaded>
      <RecentPosts posts={posts} />
    </div>
  );
}
