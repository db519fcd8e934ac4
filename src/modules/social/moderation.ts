import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { isUniqueViolation } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, type PageOf, toPage } from '../../platform/http.js';
import type { CredentialChange, CredentialChanges } from '../accounts/credentials.js';
import type { NotificationsService } from '../notifications/service.js';
import type { DiscussionEvents } from './discussion-events.js';
import { AlreadyReportedError, CannotSuspendAdminError, ReportNotOpenError } from './errors.js';
import type { ModerationRepository, ReportRow } from './moderation-repository.js';
import type { ReportStatus, ReportTargetType } from './tables.js';
import { optionalText, plainText, TEXT_LIMITS } from './text.js';

export type ModerationAction = 'dismiss' | 'hide' | 'suspend';

const STATUS_OF: Record<ModerationAction, Exclude<ReportStatus, 'open'>> = {
  dismiss: 'dismissed',
  hide: 'hidden',
  suspend: 'suspended',
};

export interface ReportView {
  id: string;
  targetType: ReportTargetType;
  targetId: string;
  reason: string;
  status: ReportStatus;
  createdAt: string;
}

export interface AdminReportView extends ReportView {
  reporter: { id: string; username: string };
  target: { userId: string | null; username: string | null; text: string | null; removed: boolean };
  resolutionNote: string | null;
  resolvedAt: string | null;
}

/** Reports by users and their resolution by admins: dismiss, hide the content, or suspend its author. */
export class ModerationService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly moderation: ModerationRepository,
    private readonly notifications: NotificationsService,
    private readonly credentials: CredentialChanges,
    private readonly discussionEvents: DiscussionEvents,
  ) {}

  async report(
    reporterId: number,
    input: { targetType: ReportTargetType; targetId: string; reason: string },
  ): Promise<ReportView> {
    const reason = plainText(input.reason, 'reason', TEXT_LIMITS.reportReason);
    const targetId = Number(input.targetId);
    if (input.targetType === 'USER' && targetId === reporterId) {
      throw new ValidationError('You cannot report yourself', [
        { field: 'body.targetId', message: 'is your own account' },
      ]);
    }
    const owner = await this.moderation.findTargetOwner(this.db, input.targetType, targetId, {
      publicOnly: true,
    });
    if (!owner) throw new NotFoundError(targetName(input.targetType));
    if (await this.moderation.hasOpenReport(this.db, reporterId, input.targetType, targetId)) {
      throw new AlreadyReportedError();
    }
    try {
      const row = await this.moderation.insertReport(this.db, {
        reporterId,
        targetType: input.targetType,
        targetId,
        reason,
      });
      return {
        id: String(row.id),
        targetType: row.target_type,
        targetId: String(row.target_id),
        reason: row.reason,
        status: row.status,
        createdAt: row.created_at.toISOString(),
      };
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyReportedError();
      throw error;
    }
  }

  async list(filter: {
    status: 'open' | 'resolved' | 'all';
    limit: number;
    cursor?: string | undefined;
  }): Promise<PageOf<AdminReportView>> {
    const cursor = decodeCursor(filter.cursor, 1);
    const rows = await this.moderation.listReports(this.db, {
      status: filter.status,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: filter.limit,
    });
    return toPage(rows, filter.limit, toAdminReportView, (row) => [row.id]);
  }

  /**
   * Resolves a report and every other open report on the same target with the same decision. `hide` hides
   * a post or comment; `suspend` suspends the reported user, or the author of the reported content and
   * hides that content too.
   */
  async resolve(
    adminId: number,
    reportId: number,
    decision: { action: ModerationAction; note?: string | undefined },
  ): Promise<{ report: AdminReportView; resolvedReports: number }> {
    const note = optionalText(decision.note, 'note', TEXT_LIMITS.moderationNote);
    const { resolvedReports, suspension } = await this.db.transaction().execute(async (trx) => {
      let suspension: CredentialChange | null = null;
      const report = await this.moderation.lockReport(trx, reportId);
      if (!report) throw new NotFoundError('Report');
      if (report.status !== 'open') throw new ReportNotOpenError();
      const target = { type: report.target_type, id: report.target_id };
      const owner = await this.moderation.findTargetOwner(trx, target.type, target.id, { publicOnly: false });
      if (decision.action === 'hide' && target.type === 'USER') {
        throw new ValidationError('A user cannot be hidden; suspend them instead', [
          { field: 'body.action', message: 'hide applies to posts and comments' },
        ]);
      }
      if (decision.action === 'suspend') {
        if (!owner) throw new NotFoundError('User');
        if (owner.role === 'admin') throw new CannotSuspendAdminError();
        if (await this.moderation.suspendUser(trx, owner.user_id)) {
          suspension = { userId: owner.user_id };
          await this.credentials.announceCredentialChange(trx, suspension);
        }
      }
      if (decision.action !== 'dismiss' && target.type !== 'USER') {
        const hiddenIn = await this.moderation.hideContent(trx, target.type, target.id);
        if (hiddenIn !== null) await this.discussionEvents.announce(trx, hiddenIn, 'updated');
        if (hiddenIn !== null && owner) {
          const what = target.type === 'POST' ? 'post' : 'comment';
          await this.notifications.notify(trx, {
            userId: owner.user_id,
            type: 'social.content_hidden',
            title: `Your ${what} was hidden`,
            body: `A moderator hid your ${what} after a report${note ? `: ${note}` : ''}`,
            data: { targetType: target.type, targetId: String(target.id) },
          });
        }
      }
      const resolvedReports = await this.moderation.closeOpenReports(trx, target, {
        status: STATUS_OF[decision.action],
        note,
        resolvedBy: adminId,
      });
      return { resolvedReports, suspension };
    });
    // The suspension holds from the moment it is acknowledged: this instance's cached credentials go now.
    if (suspension) this.credentials.forgetCredentials(suspension);
    const row = await this.moderation.findReport(this.db, reportId);
    if (!row) throw new NotFoundError('Report');
    return { report: toAdminReportView(row), resolvedReports };
  }
}

function targetName(type: ReportTargetType): string {
  return type === 'POST' ? 'Post' : type === 'COMMENT' ? 'Comment' : 'User';
}

function toAdminReportView(row: ReportRow): AdminReportView {
  return {
    id: String(row.id),
    targetType: row.target_type,
    targetId: String(row.target_id),
    reason: row.reason,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    reporter: { id: String(row.reporter_id), username: row.reporter_username },
    target: {
      userId: row.target_user_id === null ? null : String(row.target_user_id),
      username: row.target_username,
      text: row.target_text,
      removed: Boolean(row.target_hidden),
    },
    resolutionNote: row.resolution_note,
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
  };
}
