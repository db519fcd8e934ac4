import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import type { ReportStatus, ReportTargetType } from './tables.js';

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
