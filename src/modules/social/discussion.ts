import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError } from '../../platform/errors.js';
import { decodeCursor, type PageOf, toPage } from '../../platform/http.js';
import type { NotificationsService } from '../notifications/service.js';
import type { DiscussionEvents } from './discussion-events.js';
import type { CommentRow, DiscussionRepository, PostRow } from './discussion-repository.js';
import { NotYourContentError } from './errors.js';
import { NO_CARD, type People, type PersonCard } from './people.js';
import { plainText, TEXT_LIMITS } from './text.js';

export interface Author extends PersonCard {
  id: string;
  username: string;
}

export interface PostView {
  id: string;
  eventSlug: string;
  eventTitle: string;
  author: Author;
  text: string;
  likeCount: number;
  commentCount: number;
  likedByMe: boolean;
  createdAt: string;
}

export interface CommentView {
  id: string;
  postId: string;
  author: Author;
  text: string;
  createdAt: string;
}

/** Discussion under each market: posts, their comments and likes. */
export class DiscussionService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly discussion: DiscussionRepository,
    private readonly notifications: NotificationsService,
    private readonly people: People,
    private readonly events: DiscussionEvents,
  ) {}

  async listPosts(query: {
    eventSlug?: string | undefined;
    username?: string | undefined;
    limit: number;
    cursor?: string | undefined;
    viewerId: number | null;
  }): Promise<PageOf<PostView>> {
    const cursor = decodeCursor(query.cursor, 1);
    let eventId: number | null = null;
    if (query.eventSlug !== undefined) {
      const event = await this.discussion.findPublicEvent(this.db, query.eventSlug);
      if (!event) throw new NotFoundError('Event');
      eventId = event.id;
    }
    let authorId: number | null = null;
    if (query.username !== undefined) {
      const author = await this.discussion.findUserIdByUsername(this.db, query.username);
      if (!author) throw new NotFoundError('User');
      authorId = author.id;
    }
    const rows = await this.discussion.listPosts(this.db, {
      eventId,
      authorId,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: query.limit,
      viewerId: query.viewerId,
    });
    const cards = await this.people.cards(rows.map((row) => row.author_id));
    return toPage(
      rows,
      query.limit,
      (row) => toPostView(row, cards),
      (row) => [row.id],
    );
  }

  async getPost(id: number, viewerId: number | null): Promise<PostView> {
    const row = await this.discussion.findVisiblePost(this.db, id, viewerId);
    if (!row) throw new NotFoundError('Post');
    return toPostView(row, await this.people.cards([row.author_id]));
  }

  async createPost(userId: number, input: { eventSlug: string; text: string }): Promise<PostView> {
    const body = plainText(input.text, 'text', TEXT_LIMITS.post);
    const event = await this.discussion.findPublicEvent(this.db, input.eventSlug);
    if (!event) throw new NotFoundError('Event');
    const id = await this.db.transaction().execute(async (trx) => {
      const id = await this.discussion.insertPost(trx, { eventId: event.id, userId, body });
      await this.events.announce(trx, id, 'created');
      return id;
    });
    return this.getPost(id, userId);
  }

  async deletePost(userId: number, id: number): Promise<void> {
    const post = await this.discussion.findPostAuthor(this.db, id);
    if (!post) throw new NotFoundError('Post');
    if (post.user_id !== userId) throw new NotYourContentError('post');
    await this.db.transaction().execute(async (trx) => {
      await this.discussion.softDeletePost(trx, id);
      await this.events.announce(trx, id, 'removed');
    });
  }

  /**
   * Likes the post, or takes the like back when the user already likes it. The post row is locked for the
   * toggle, so concurrent toggles on one post apply one after the other and the count is always the rows.
   */
  async toggleLike(
    userId: number,
    postId: number,
  ): Promise<{ postId: string; liked: boolean; likeCount: number }> {
    return this.db.transaction().execute(async (trx) => {
      const post = await this.discussion.lockVisiblePost(trx, postId);
      if (!post) throw new NotFoundError('Post');
      const unliked = await this.discussion.removeLike(trx, postId, userId);
      if (!unliked) {
        await this.discussion.addLike(trx, postId, userId);
        if (post.user_id !== userId && (await this.people.accepts(trx, post.user_id, 'social'))) {
          await this.notifications.notify(trx, {
            userId: post.user_id,
            type: 'social.like',
            title: 'New like',
            body: `${await this.discussion.usernameOf(trx, userId)} liked your post`,
            data: { postId: String(postId), eventSlug: post.event_slug, likedBy: String(userId) },
          });
        }
      }
      await this.events.announce(trx, postId, 'updated');
      const likeCount = await this.discussion.countLikes(trx, postId);
      return { postId: String(postId), liked: !unliked, likeCount };
    });
  }

  async listComments(
    postId: number,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<PageOf<CommentView>> {
    const cursor = decodeCursor(page.cursor, 1);
    if (!(await this.discussion.findPostAuthor(this.db, postId))) throw new NotFoundError('Post');
    const rows = await this.discussion.listComments(this.db, postId, {
      afterId: cursor ? Number(cursor[0]) : null,
      limit: page.limit,
    });
    const cards = await this.people.cards(rows.map((row) => row.author_id));
    return toPage(
      rows,
      page.limit,
      (row) => toCommentView(row, cards),
      (row) => [row.id],
    );
  }

  async addComment(userId: number, postId: number, text: string): Promise<CommentView> {
    const body = plainText(text, 'text', TEXT_LIMITS.comment);
    const row = await this.db.transaction().execute(async (trx) => {
      const post = await this.discussion.lockVisiblePost(trx, postId);
      if (!post) throw new NotFoundError('Post');
      const id = await this.discussion.insertComment(trx, { postId, userId, body });
      if (post.user_id !== userId && (await this.people.accepts(trx, post.user_id, 'social'))) {
        await this.notifications.notify(trx, {
          userId: post.user_id,
          type: 'social.comment',
          title: 'New comment',
          body: `${await this.discussion.usernameOf(trx, userId)} commented on your post`,
          data: {
            postId: String(postId),
            eventSlug: post.event_slug,
            commentId: String(id),
            commentedBy: String(userId),
          },
        });
      }
      await this.events.announce(trx, postId, 'updated');
      const row = await this.discussion.findVisibleComment(trx, id);
      if (!row) throw new NotFoundError('Comment');
      return row;
    });
    return toCommentView(row, await this.people.cards([userId]));
  }

  async deleteComment(userId: number, id: number): Promise<void> {
    const comment = await this.discussion.findVisibleComment(this.db, id);
    if (!comment) throw new NotFoundError('Comment');
    if (comment.author_id !== userId) throw new NotYourContentError('comment');
    await this.db.transaction().execute(async (trx) => {
      await this.discussion.softDeleteComment(trx, id);
      await this.events.announce(trx, comment.post_id, 'updated');
    });
  }
}

function authorOf(id: number, username: string, cards: Map<number, PersonCard>): Author {
  return { id: String(id), username, ...(cards.get(id) ?? NO_CARD) };
}

export function toPostView(row: PostRow, cards: Map<number, PersonCard>): PostView {
  return {
    id: String(row.id),
    eventSlug: row.event_slug,
    eventTitle: row.event_title,
    author: authorOf(row.author_id, row.author_username, cards),
    text: row.body,
    likeCount: Number(row.like_count ?? 0),
    commentCount: Number(row.comment_count ?? 0),
    likedByMe: Boolean(row.liked),
    createdAt: row.created_at.toISOString(),
  };
}

function toCommentView(row: CommentRow, cards: Map<number, PersonCard>): CommentView {
  return {
    id: String(row.id),
    postId: String(row.post_id),
    author: authorOf(row.author_id, row.author_username, cards),
    text: row.body,
    createdAt: row.created_at.toISOString(),
  };
}
