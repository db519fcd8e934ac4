import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useChannel } from '../api/live';
import type { Post } from '../api/types';
import { useAuth } from '../auth';
import { timeAgo } from '../lib/format';
import { useAction, usePagedApi } from '../lib/hooks';
import { Avatar } from './Avatar';
import { PagedList } from './Paged';
import { ReportButton } from './ReportButton';
import { ErrorMessage, SignInPrompt } from './Status';

function Composer({
  label,
  maxLength,
  submitLabel,
  onSubmit,
}: {
  label: string;
  maxLength: number;
  submitLabel: string;
  onSubmit: (text: string) => Promise<void>;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const send = useAction(async () => {
    await onSubmit(text.trim());
    setText('');
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) void send.run();
  };
  return (
    <form className="composer" onSubmit={submit}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={text}
        maxLength={maxLength}
        rows={3}
        onChange={(event) => setText(event.target.value)}
      />
      <div className="composer-foot">
        <span className="muted small">
          {text.length}/{maxLength}
        </span>
        <button type="submit" className="button small" disabled={!text.trim() || send.pending}>
          {send.pending ? 'Sending…' : submitLabel}
        </button>
      </div>
      <ErrorMessage error={send.error} />
    </form>
  );
}

function Comments({ post, onAdded }: { post: Post; onAdded: () => void }) {
  const { signedIn, me } = useAuth();
  const comments = usePagedApi('/api/posts/{id}/comments', {
    params: { path: { id: post.id }, query: { limit: 50 } },
  });
  // Someone else commented or removed a comment (the count moved on the stream): read the thread again.
  const { reload } = comments;
  const shownCount = useRef(post.commentCount);
  useEffect(() => {
    if (shownCount.current !== post.commentCount) reload();
    shownCount.current = post.commentCount;
  }, [post.commentCount, reload]);
  return (
    <div className="comments">
      <PagedList list={comments} empty="No comments yet." more="More comments">
        {(items) => (
          <ul className="plain">
            {items.map((comment) => (
              <li key={comment.id} className="comment">
                <Link to={`/users/${comment.author.username}`} className="author">
                  {comment.author.displayName ?? comment.author.username}
                </Link>{' '}
                <span className="muted small">{timeAgo(comment.createdAt)}</span>
                <p>{comment.text}</p>
                {me?.id !== comment.author.id ? (
                  <ReportButton targetType="COMMENT" targetId={comment.id} />
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </PagedList>
      {signedIn ? (
        <Composer
          label="Write a comment"
          maxLength={1000}
          submitLabel="Comment"
          onSubmit={async (text) => {
            await typed(
              apiClient.POST('/api/posts/{id}/comments', {
                params: { path: { id: post.id } },
                body: { text },
              }),
            );
            onAdded();
          }}
        />
      ) : null}
    </div>
  );
}

function PostItem({
  post,
  onChange,
  onDelete,
}: {
  post: Post;
  onChange: (post: Post) => void;
  onDelete: () => void;
}) {
  const { me } = useAuth();
  const [open, setOpen] = useState(false);
  const commentsId = useId();
  const like = useAction(async () => {
    const answer = await typed(apiClient.POST('/api/posts/{id}/like', { params: { path: { id: post.id } } }));
    onChange({ ...post, likedByMe: answer.liked, likeCount: answer.likeCount });
  });
  const remove = useAction(async () => {
    await typed(apiClient.DELETE('/api/posts/{id}', { params: { path: { id: post.id } } }));
    onDelete();
  });
  return (
    <li className="post">
      <div className="post-head">
        <Avatar url={post.author.avatarUrl} name={post.author.username} size={32} />
        <Link to={`/users/${post.author.username}`} className="author">
          {post.author.displayName ?? post.author.username}
        </Link>
        <span className="muted small">{timeAgo(post.createdAt)}</span>
      </div>
      <p className="post-text">{post.text}</p>
      <div className="post-actions">
        <button
          type="button"
          className="link-button"
          aria-pressed={post.likedByMe}
          disabled={!me || like.pending}
          onClick={() => void like.run()}
        >
          {post.likedByMe ? 'Liked' : 'Like'} ({post.likeCount})
        </button>
        <button
          type="button"
          className="link-button"
          aria-expanded={open}
          aria-controls={commentsId}
          onClick={() => setOpen((value) => !value)}
        >
          Comments ({post.commentCount})
        </button>
        {me?.id === post.author.id ? (
          <button
            type="button"
            className="link-button danger"
            disabled={remove.pending}
            onClick={() => void remove.run()}
          >
            Delete
          </button>
        ) : (
          <ReportButton targetType="POST" targetId={post.id} />
        )}
      </div>
      <ErrorMessage error={like.error ?? remove.error} />
      <div id={commentsId} hidden={!open}>
        {open ? (
          <Comments post={post} onAdded={() => onChange({ ...post, commentCount: post.commentCount + 1 })} />
        ) : null}
      </div>
    </li>
  );
}

/**
 * The public discussion of one market, live: new posts, likes, comments and removals arrive on the market's
 * event channel and change the list in place.
 */
export function Discussion({ eventId, eventSlug }: { eventId: string; eventSlug: string }) {
  const { signedIn } = useAuth();
  const posts = usePagedApi('/api/posts', { params: { query: { eventSlug, limit: 20 } } });
  const { setItems } = posts;
  useChannel(`event:${eventId}`, (message) => {
    if (message.type === 'resync') posts.reload();
    if (message.type !== 'discussion') return;
    const { postId, change, likeCount, commentCount } = message as unknown as {
      postId: string;
      change: 'created' | 'updated' | 'removed';
      likeCount: number;
      commentCount: number;
    };
    if (change === 'removed') setItems((all) => all.filter((item) => item.id !== postId));
    else if (change === 'updated') {
      setItems((all) =>
        all.map((item) => (item.id === postId ? { ...item, likeCount, commentCount } : item)),
      );
    } else {
      typed(apiClient.GET('/api/posts/{id}', { params: { path: { id: postId } } })).then(
        (post) => setItems((all) => (all.some((item) => item.id === post.id) ? all : [post, ...all])),
        () => {
          // Gone again, or out of reach: the next read of the list shows what there is.
        },
      );
    }
  });
  return (
    <section className="card" aria-labelledby="discussion-heading">
      <h2 id="discussion-heading">Discussion</h2>
      {signedIn ? (
        <Composer
          label="Share your view"
          maxLength={2000}
          submitLabel="Post"
          onSubmit={async (text) => {
            const post = await typed(apiClient.POST('/api/posts', { body: { eventSlug, text } }));
            setItems((items) => [post, ...items.filter((item) => item.id !== post.id)]);
          }}
        />
      ) : (
        <SignInPrompt what="join the discussion" />
      )}
      <PagedList list={posts} empty="No posts yet. Start the discussion." more="More posts">
        {(items) => (
          <ul className="plain posts">
            {items.map((post) => (
              <PostItem
                key={post.id}
                post={post}
                onChange={(next) =>
                  posts.setItems((all) => all.map((item) => (item.id === next.id ? next : item)))
                }
                onDelete={() => posts.setItems((all) => all.filter((item) => item.id !== post.id))}
              />
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}
