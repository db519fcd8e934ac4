import { type ExpressionBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { ReportStatus, ReportTargetType, SuggestionStatus } from './tables.js';

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

export interface ReportRow {
  id: number;
  reporter_id: number;
  reporter_username: string;
  target_type: ReportTargetType;
  target_id: number;
  reason: string;
  status: ReportStatus;
  resolution_note: string | null;
  resolved_at: Date | null;
  created_at: Date;
  target_user_id: number | null;
  target_username: string | null;
  target_text: string | null;
  target_hidden: boolean | null;
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
      ])
      .where('p.id', '=', postId)
      .executeTakeFirst();
  }

  async softDeleteComment(db: Queryable, id: number): Promise<void> {
    await db.updateTable('comments').set({ deleted_at: sql<Date>`now()` }).where('id', '=', id).execute();
  }
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

/** Reports and the moderation actions that resolve them. */
export class ModerationRepository {
  async insertReport(
    db: Queryable,
    report: { reporterId: number; targetType: ReportTargetType; targetId: number; reason: string },
  ) {
    return db
      .insertInto('reports')
      .values({
        reporter_id: report.reporterId,
        target_type: report.targetType,
        target_id: report.targetId,
        reason: report.reason,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async hasOpenReport(db: Queryable, reporterId: number, targetType: ReportTargetType, targetId: number) {
    const row = await db
      .selectFrom('reports')
      .select('id')
      .where('reporter_id', '=', reporterId)
      .where('target_type', '=', targetType)
      .where('target_id', '=', targetId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return row !== undefined;
  }

  lockReport(db: Queryable, id: number) {
    return db.selectFrom('reports').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** Closes every open report on a target with the same decision; returns how many were closed. */
  async closeOpenReports(
    db: Queryable,
    target: { type: ReportTargetType; id: number },
    decision: { status: Exclude<ReportStatus, 'open'>; note: string | null; resolvedBy: number },
  ): Promise<number> {
    const result = await db
      .updateTable('reports')
      .set({
        status: decision.status,
        resolution_note: decision.note,
        resolved_by: decision.resolvedBy,
        resolved_at: sql<Date>`now()`,
      })
      .where('target_type', '=', target.type)
      .where('target_id', '=', target.id)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  listReports(
    db: Queryable,
    filter: { status: 'open' | 'resolved' | 'all'; beforeId: number | null; limit: number },
  ): Promise<ReportRow[]> {
    let query = this.reportsWithTargets(db)
      .orderBy('r.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.status === 'open') query = query.where('r.status', '=', 'open');
    if (filter.status === 'resolved') query = query.where('r.status', '<>', 'open');
    if (filter.beforeId !== null) query = query.where('r.id', '<', filter.beforeId);
    return query.execute();
  }

  findReport(db: Queryable, id: number): Promise<ReportRow | undefined> {
    return this.reportsWithTargets(db).where('r.id', '=', id).executeTakeFirst();
  }

  /** Each report with what it points at, so a moderator can judge it without a second lookup. */
  private reportsWithTargets(db: Queryable) {
    return db
      .selectFrom('reports as r')
      .innerJoin('users as reporter', 'reporter.id', 'r.reporter_id')
      .leftJoin('posts as p', (join) =>
        join.on('r.target_type', '=', 'POST').onRef('p.id', '=', 'r.target_id'),
      )
      .leftJoin('comments as c', (join) =>
        join.on('r.target_type', '=', 'COMMENT').onRef('c.id', '=', 'r.target_id'),
      )
      .leftJoin('users as tu', (join) =>
        join.on(
          'tu.id',
          '=',
          sql<number>`CASE r.target_type WHEN 'USER' THEN r.target_id WHEN 'POST' THEN p.user_id ELSE c.user_id END`,
        ),
      )
      .select([
        'r.id',
        'r.reporter_id',
        'reporter.username as reporter_username',
        'r.target_type',
        'r.target_id',
        'r.reason',
        'r.status',
        'r.resolution_note',
        'r.resolved_at',
        'r.created_at',
        'tu.id as target_user_id',
        'tu.username as target_username',
        sql<string | null>`coalesce(p.body, c.body)`.as('target_text'),
        sql<boolean | null>`CASE r.target_type
          WHEN 'POST' THEN p.hidden_at IS NOT NULL OR p.deleted_at IS NOT NULL
          WHEN 'COMMENT' THEN c.hidden_at IS NOT NULL OR c.deleted_at IS NOT NULL
          ELSE tu.suspended_at IS NOT NULL END`.as('target_hidden'),
      ]);
  }

  /**
   * The owner of a reported target, or undefined when there is none. With `publicOnly`, a hidden or deleted post or
   * comment (or a comment under one) counts as none; a moderator acting on a report looks at any state.
   */
  findTargetOwner(
    db: Queryable,
    type: ReportTargetType,
    id: number,
    { publicOnly }: { publicOnly: boolean },
  ): Promise<{ user_id: number; role: 'user' | 'admin' } | undefined> {
    if (type === 'USER') {
      return db.selectFrom('users').select(['id as user_id', 'role']).where('id', '=', id).executeTakeFirst();
    }
    if (type === 'POST') {
      return db
        .selectFrom('posts as t')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .select(['u.id as user_id', 'u.role'])
        .where('t.id', '=', id)
        .$if(publicOnly, (q) => q.where('t.hidden_at', 'is', null).where('t.deleted_at', 'is', null))
        .executeTakeFirst();
    }
    return db
      .selectFrom('comments as t')
      .innerJoin('posts as p', 'p.id', 't.post_id')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select(['u.id as user_id', 'u.role'])
      .where('t.id', '=', id)
      .$if(publicOnly, (q) =>
        q
          .where('t.hidden_at', 'is', null)
          .where('t.deleted_at', 'is', null)
          .where('p.hidden_at', 'is', null)
          .where('p.deleted_at', 'is', null),
      )
      .executeTakeFirst();
  }

  /** Hides a post or comment; the post it hid or hid a comment of, or null when it was hidden already. */
  async hideContent(db: Queryable, type: 'POST' | 'COMMENT', id: number): Promise<number | null> {
    const row =
      type === 'POST'
        ? await db
            .updateTable('posts')
            .set({ hidden_at: sql<Date>`now()` })
            .where('id', '=', id)
            .where('hidden_at', 'is', null)
            .returning('id as post_id')
            .executeTakeFirst()
        : await db
            .updateTable('comments')
            .set({ hidden_at: sql<Date>`now()` })
            .where('id', '=', id)
            .where('hidden_at', 'is', null)
            .returning('post_id')
            .executeTakeFirst();
    return row?.post_id ?? null;
  }

  async suspendUser(db: Queryable, userId: number): Promise<boolean> {
    const result = await db
      .updateTable('users')
      .set({ suspended_at: sql<Date>`now()` })
      .where('id', '=', userId)
      .where('suspended_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

export interface NewSuggestion {
  userId: number;
  title: string;
  description: string;
  category: string;
  options: string[];
  resolutionSource: string | null;
  closesAt: Date | null;
}

/** Market suggestions and the draft events made from approved ones. */
export class SuggestionsRepository {
  insert(db: Queryable, suggestion: NewSuggestion) {
    return db
      .insertInto('market_suggestions')
      .values({
        user_id: suggestion.userId,
        title: suggestion.title,
        description: suggestion.description,
        category: suggestion.category,
        options: JSON.stringify(suggestion.options),
        resolution_source: suggestion.resolutionSource,
        closes_at: suggestion.closesAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async lockSuggester(db: Queryable, userId: number): Promise<void> {
    await db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
  }

  async countPending(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('market_suggestions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  list(
    db: Queryable,
    filter: {
      userId: number | null;
      status: SuggestionStatus | null;
      beforeId: number | null;
      limit: number;
    },
  ) {
    let query = db
      .selectFrom('market_suggestions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('events as e', 'e.id', 's.event_id')
      .selectAll('s')
      .select(['u.username', 'e.slug as event_slug', 'e.status as event_status'])
      .orderBy('s.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.userId !== null) query = query.where('s.user_id', '=', filter.userId);
    if (filter.status !== null) query = query.where('s.status', '=', filter.status);
    if (filter.beforeId !== null) query = query.where('s.id', '<', filter.beforeId);
    return query.execute();
  }

  find(db: Queryable, id: number) {
    return db
      .selectFrom('market_suggestions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('events as e', 'e.id', 's.event_id')
      .selectAll('s')
      .select(['u.username', 'e.slug as event_slug', 'e.status as event_status'])
      .where('s.id', '=', id)
      .executeTakeFirst();
  }

  lock(db: Queryable, id: number) {
    return db
      .selectFrom('market_suggestions')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  async markApproved(db: Queryable, id: number, review: { eventId: number; reviewedBy: number }) {
    await db
      .updateTable('market_suggestions')
      .set({
        status: 'approved',
        event_id: review.eventId,
        reviewed_by: review.reviewedBy,
        reviewed_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  async markRejected(db: Queryable, id: number, review: { reason: string; reviewedBy: number }) {
    await db
      .updateTable('market_suggestions')
      .set({
        status: 'rejected',
        rejection_reason: review.reason,
        reviewed_by: review.reviewedBy,
        reviewed_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
  }
}

export interface PerformanceRow {
  user_id: number;
  trades: number;
  volume_cents: number;
  cost_cents: number;
  pnl_cents: number;
}

export interface PerformanceFilter {
  from: Date;
  to: Date;
  userIds?: number[];
  eventIds?: number[];
}

export interface PublicUserRow {
  id: number;
  username: string;
  created_at: Date;
  streak_current: number;
  streak_last_day: string | null;
}

export interface SettledPositionRow {
  option_id: number;
  side: 'YES' | 'NO';
  settled_at: Date | null;
  pnl_cents: number;
}

/**
 * Trading performance derived from the trades table. The profit of a set of trades is the cash they moved
 * (sales minus purchases minus fees) plus the value of the shares they leave behind: 100 a share of a side
 * that won, 0 of a side that lost, 50 of a VOID option, otherwise the side's last traded price.
 */
export class PerformanceRepository {
  async byUser(db: Queryable, filter: PerformanceFilter): Promise<PerformanceRow[]> {
    if (filter.userIds?.length === 0 || filter.eventIds?.length === 0) return [];
    const result = await sql<PerformanceRow>`
      SELECT w.user_id, sum(w.trades)::int AS trades, sum(w.volume)::bigint AS volume_cents,
        sum(w.cost)::bigint AS cost_cents, sum(w.cash + w.net * ${markCents()})::bigint AS pnl_cents
      FROM (${this.tradeGroups(filter)}) w
      JOIN options o ON o.id = w.option_id
      GROUP BY w.user_id`.execute(db);
    return result.rows;
  }

  /** Active, unsuspended traders of the window ranked by `trades × tradeWeight + profit in cents`. */
  async trending(
    db: Queryable,
    window: { from: Date; to: Date },
    rank: { tradeWeight: number; offset: number; limit: number },
  ): Promise<(PerformanceRow & { username: string; score: number })[]> {
    const result = await sql<PerformanceRow & { username: string; score: number }>`
      WITH perf AS (
        SELECT w.user_id, sum(w.trades)::int AS trades, sum(w.volume)::bigint AS volume_cents,
          sum(w.cost)::bigint AS cost_cents, sum(w.cash + w.net * ${markCents()})::bigint AS pnl_cents
        FROM (${this.tradeGroups(window)}) w
        JOIN options o ON o.id = w.option_id
        GROUP BY w.user_id
      )
      SELECT perf.*, u.username, (perf.trades * ${rank.tradeWeight}::bigint + perf.pnl_cents)::bigint AS score
      FROM perf JOIN users u ON u.id = perf.user_id
      WHERE u.suspended_at IS NULL
      ORDER BY score DESC, perf.pnl_cents DESC, u.id ASC
      LIMIT ${rank.limit} OFFSET ${rank.offset}`.execute(db);
    return result.rows;
  }

  private tradeGroups(filter: PerformanceFilter): RawBuilder<unknown> {
    const conditions = [sql`t.created_at >= ${filter.from}`, sql`t.created_at < ${filter.to}`];
    if (filter.userIds) conditions.push(sql`t.user_id IN (${sql.join(filter.userIds)})`);
    if (filter.eventIds) conditions.push(sql`t.event_id IN (${sql.join(filter.eventIds)})`);
    return sql`
      SELECT t.user_id, t.option_id, t.side, count(*) AS trades,
        sum(t.quantity * t.price_cents) AS volume,
        sum(CASE WHEN t.action = 'BUY' THEN t.quantity * t.price_cents + t.fee_cents ELSE 0 END) AS cost,
        sum(CASE WHEN t.action = 'SELL' THEN t.quantity * t.price_cents - t.fee_cents
                 ELSE -(t.quantity * t.price_cents) - t.fee_cents END) AS cash,
        sum(CASE WHEN t.action = 'BUY' THEN t.quantity ELSE -t.quantity END) AS net
      FROM trades t
      WHERE ${sql.join(conditions, sql` AND `)}
      GROUP BY t.user_id, t.option_id, t.side`;
  }

  findPublicUser(db: Queryable, username: string): Promise<PublicUserRow | undefined> {
    return db
      .selectFrom('users')
      .select(['id', 'username', 'created_at', 'streak_current', 'streak_last_day'])
      .where('username', '=', username)
      .executeTakeFirst();
  }

  earnedBadges(db: Queryable, userId: number) {
    return db
      .selectFrom('user_badges')
      .select(['badge_id', 'earned_at'])
      .where('user_id', '=', userId)
      .orderBy('earned_at')
      .orderBy('badge_id')
      .execute();
  }

  async tradeTotals(db: Queryable, userId: number): Promise<{ trades: number; volume_cents: number }> {
    const row = await db
      .selectFrom('trades')
      .select([
        sql<number>`count(*)::int`.as('trades'),
        sql<number>`coalesce(sum(quantity * price_cents), 0)::bigint`.as('volume_cents'),
      ])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return row;
  }

  async realizedPnl(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('positions')
      .select(sql<number>`coalesce(sum(realized_pnl_cents), 0)::bigint`.as('pnl'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.pnl);
  }

  /** The user's positions (option and side) in settled YES/NO options, most recently settled first. */
  async settledPositions(db: Queryable, userId: number): Promise<SettledPositionRow[]> {
    const result = await sql<SettledPositionRow>`
      SELECT t.option_id, t.side, e.settled_at,
        (sum(CASE WHEN t.action = 'SELL' THEN t.quantity * t.price_cents - t.fee_cents
                  ELSE -(t.quantity * t.price_cents) - t.fee_cents END)
         + sum(CASE WHEN t.action = 'BUY' THEN t.quantity ELSE -t.quantity END)
           * (CASE WHEN o.resolution = t.side THEN 100 ELSE 0 END))::bigint AS pnl_cents
      FROM trades t
      JOIN options o ON o.id = t.option_id
      JOIN events e ON e.id = t.event_id
      WHERE t.user_id = ${userId} AND e.status = 'settled' AND o.resolution IN ('YES', 'NO')
      GROUP BY t.option_id, t.side, e.settled_at, o.resolution
      ORDER BY e.settled_at DESC NULLS LAST, t.option_id DESC, t.side`.execute(db);
    return result.rows;
  }
}

/** Value in cents of one share of side `w.side` of option `o`, as documented on PerformanceRepository. */
function markCents(): RawBuilder<number> {
  return sql<number>`(CASE
    WHEN o.resolution = 'VOID' THEN 50
    WHEN o.resolution = w.side THEN 100
    WHEN o.resolution IS NOT NULL THEN 0
    WHEN o.last_yes_price IS NULL THEN 50
    WHEN w.side = 'YES' THEN o.last_yes_price
    ELSE 100 - o.last_yes_price END)`;
}
