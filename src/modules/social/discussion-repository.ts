import { type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export interface PostRow {
  id: number;
  body: string;
  created_at: Date;
  event_slug: string;
  event_title: string;
  author_id: number;
  author_username: string;
  like_count: number | null;
  comment_count: number | null;
  liked: SqlBool | null;
}

export interface CommentRow {
  id: number;
  post_id: number;
  body: string;
  created_at: Date;
  author_id: number;
  author_username: string;
}

export interface VisibleEvent {
  id: number;
  slug: string;
  title: string;
  status: string;
}

/** Posts, comments and likes. */
export class DiscussionRepository {
  findPublicEvent(db: Queryable, slug: string): Promise<VisibleEvent | undefined> {
    return db
      .selectFrom('events')
      .select(['id', 'slug', 'title', 'status'])
      .where('slug', '=', slug)
      .where('status', '<>', 'draft')
      .executeTakeFirst();
  }

  findUserIdByUsername(db: Queryable, username: string): Promise<{ id: number } | undefined> {
    return db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
  }

  async usernameOf(db: Queryable, userId: number): Promise<string> {
    const row = await db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
    return row?.username ?? 'Someone';
  }

  async insertPost(db: Queryable, post: { eventId: number; userId: number; body: string }): Promise<number> {
    const row = await db
      .insertInto('posts')
      .values({ event_id: post.eventId, user_id: post.userId, body: post.body })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  listPosts(
    db: Queryable,
    filter: {
      eventId: number | null;
      authorId: number | null;
      beforeId: number | null;
      limit: number;
      viewerId: number | null;
    },
  ): Promise<PostRow[]> {
    let query = this.visiblePosts(db, filter.viewerId)
      .orderBy('p.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.eventId !== null) query = query.where('p.event_id', '=', filter.eventId);
    if (filter.authorId !== null) query = query.where('p.user_id', '=', filter.authorId);
    if (filter.beforeId !== null) query = query.where('p.id', '<', filter.beforeId);
    return query.execute();
  }

  findVisiblePost(db: Queryable, id: number, viewerId: number | null): Promise<PostRow | undefined> {
    return this.visiblePosts(db, viewerId).where('p.id', '=', id).executeTakeFirst();
  }

  private visiblePosts(db: Queryable, viewerId: number | null) {
    return db
      .selectFrom('posts as p')
      .innerJoin('events as e', 'e.id', 'p.event_id')
      .innerJoin('users as u', 'u.id', 'p.user_id')
      .select((eb) => [
        'p.id',
        'p.body',
        'p.created_at',
        'e.slug as event_slug',
        'e.title as event_title',
        'u.id as author_id',
        'u.username as author_username',
        ...postCounts(eb),
        viewerId === null ? sql<boolean>`false`.as('liked') : likedBy(eb, viewerId).as('liked'),
      ])
      .where('p.hidden_at', 'is', null)
      .where('p.deleted_at', 'is', null);
  }

  /** The author of a post that is still public, locked so that likes on it are applied one at a time. */
  lockVisiblePost(db: Queryable, id: number) {
    return db
      .selectFrom('posts')
      .select((eb) => [
        'id',
        'user_id',
        eb
          .selectFrom('events')
          .select('events.slug')
          .whereRef('events.id', '=', 'posts.event_id')
          .$narrowType<{ slug: string }>()
          .as('event_slug'),
      ])
      .where('id', '=', id)
      .where('hidden_at', 'is', null)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
  }

  findPostAuthor(db: Queryable, id: number): Promise<{ id: number; user_id: number } | undefined> {
    return db
      .selectFrom('posts')
      .select(['id', 'user_id'])
      .where('id', '=', id)
      .where('hidden_at', 'is', null)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async softDeletePost(db: Queryable, id: number): Promise<void> {
    await db.updateTable('posts').set({ deleted_at: sql<Date>`now()` }).where('id', '=', id).execute();
  }

  async removeLike(db: Queryable, postId: number, userId: number): Promise<boolean> {
    const result = await db
      .deleteFrom('post_likes')
      .where('post_id', '=', postId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async addLike(db: Queryable, postId: number, userId: number): Promise<void> {
    await db.insertInto('post_likes').values({ post_id: postId, user_id: userId }).execute();
  }

  async countLikes(db: Queryable, postId: number): Promise<number> {
    const row = await db
      .selectFrom('post_likes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertComment(db: Queryable, comment: { postId: number; userId: number; body: string }) {
    const row = await db
      .insertInto('comments')
      .values({ post_id: comment.postId, user_id: comment.userId, body: comment.body })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  listComments(
    db: Queryable,
    postId: number,
    page: { afterId: number | null; limit: number },
  ): Promise<CommentRow[]> {
    let query = this.visibleComments(db)
      .where('c.post_id', '=', postId)
      .orderBy('c.id', 'asc')
      .limit(page.limit + 1);
    if (page.afterId !== null) query = query.where('c.id', '>', page.afterId);
    return query.execute();
  }

  findVisibleComment(db: Queryable, id: number): Promise<CommentRow | undefined> {
    return this.visibleComments(db).where('c.id', '=', id).executeTakeFirst();
  }

  /** A comment is public while it and its post are. */
  private visibleComments(db: Queryable) {
    return db
      .selectFrom('comments as c')
      .innerJoin('posts as p', 'p.id', 'c.post_id')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select([
        'c.id',
        'c.post_id',
        'c.body',
        'c.created_at',
        'u.id as author_id',
        'u.username as author_username',
      ])
      .where('c.hidden_at', 'is', null)
      .where('c.deleted_at', 'is', null)
      .where('p.hidden_at', 'is', null)
      .where('p.deleted_at', 'is', null);
  }

  /** A post's event, whether it is gone (deleted or hidden), and its likes and visible comments now. */
  postState(db: Queryable, postId: number) {
    return db
      .selectFrom('posts as p')
      .select((eb) => [
        'p.event_id',
        sql<boolean>`p.hidden_at IS NOT NULL OR p.deleted_at IS NOT NULL`.as('removed'),
        ...postCounts(eb),
      ])
      .where('p.id', '=', postId)
      .executeTakeFirst();
  }

  async softDeleteComment(db: Queryable, id: number): Promise<void> {
    await db.updateTable('comments').set({ deleted_at: sql<Date>`now()` }).where('id', '=', id).execute();
  }
}

/** A post's likes and its comments still shown, as `like_count` and `comment_count`. */
function postCounts(eb: ExpressionBuilder<DB & { p: DB['posts'] }, 'p'>) {
  return [
    eb
      .selectFrom('post_likes as l')
      .select(eb.fn.countAll<number>().as('n'))
      .whereRef('l.post_id', '=', 'p.id')
      .as('like_count'),
    eb
      .selectFrom('comments as c')
      .select(eb.fn.countAll<number>().as('n'))
      .whereRef('c.post_id', '=', 'p.id')
      .where('c.hidden_at', 'is', null)
      .where('c.deleted_at', 'is', null)
      .as('comment_count'),
  ] as const;
}

function likedBy(eb: ExpressionBuilder<DB & { p: DB['posts'] }, 'p'>, viewerId: number) {
  return eb.exists(
    eb
      .selectFrom('post_likes as mine')
      .select('mine.user_id')
      .whereRef('mine.post_id', '=', 'p.id')
      .where('mine.user_id', '=', viewerId),
  );
}
