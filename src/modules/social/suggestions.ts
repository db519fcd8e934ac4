import type { Kysely } from 'kysely';
import type { DB, EventStatus } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, type PageOf, toPage } from '../../platform/http.js';
import type { NotificationsService } from '../notifications/service.js';
import { SuggestionNotPendingError, TooManyPendingSuggestionsError } from './errors.js';
import type { SuggestionsRepository } from './suggestions-repository.js';
import type { SuggestionStatus } from './tables.js';
import { optionalText, plainText, TEXT_LIMITS } from './text.js';

/** A user may have this many suggestions waiting for review at once. */
export const MAX_PENDING_SUGGESTIONS = 10;

export interface SuggestionInput {
  title: string;
  description?: string | undefined;
  category: string;
  options: string[];
  resolutionSource?: string | undefined;
  closesAt?: string | undefined;
}

export interface SuggestionView {
  id: string;
  title: string;
  description: string;
  category: string;
  options: string[];
  resolutionSource: string | null;
  closesAt: string | null;
  status: SuggestionStatus;
  rejectionReason: string | null;
  eventId: string | null;
  eventSlug: string | null;
  eventStatus: EventStatus | null;
  suggestedBy: { id: string; username: string };
  reviewedAt: string | null;
  createdAt: string;
}

type SuggestionRow = NonNullable<Awaited<ReturnType<SuggestionsRepository['find']>>>;

/** What an approved suggestion needs of the markets: a draft event with plain options, in the caller's transaction. */
export interface DraftEvents {
  createDraftEvent(
    trx: Tx,
    input: {
      slug?: string | undefined;
      title: string;
      description: string;
      category: string;
      resolutionSource: string | null;
      closesAt: Date;
      optionLabels: string[];
    },
  ): Promise<{ id: number; slug: string }>;
}

/** Markets proposed by users; an admin approves one into a draft event or rejects it with a reason. */
export class SuggestionsService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly suggestions: SuggestionsRepository,
    private readonly markets: DraftEvents,
    private readonly notifications: NotificationsService,
  ) {}

  async suggest(userId: number, input: SuggestionInput): Promise<SuggestionView> {
    const options = input.options.map((label, i) =>
      plainText(label, `options.${i}`, TEXT_LIMITS.suggestionOption),
    );
    if (new Set(options.map((label) => label.toLowerCase())).size !== options.length) {
      throw new ValidationError('Option labels must be different', [
        { field: 'body.options', message: 'contains the same label twice' },
      ]);
    }
    const closesAt = input.closesAt === undefined ? null : new Date(input.closesAt);
    if (closesAt !== null && closesAt.getTime() <= Date.now()) {
      throw new ValidationError('closesAt must be in the future', [
        { field: 'body.closesAt', message: 'is in the past' },
      ]);
    }
    const suggestion = {
      userId,
      title: plainText(input.title, 'title', TEXT_LIMITS.suggestionTitle),
      description: optionalText(input.description, 'description', TEXT_LIMITS.suggestionDescription) ?? '',
      category: plainText(input.category, 'category', TEXT_LIMITS.suggestionCategory).toLowerCase(),
      options,
      resolutionSource: optionalText(
        input.resolutionSource,
        'resolutionSource',
        TEXT_LIMITS.resolutionSource,
      ),
      closesAt,
    };
    const id = await this.db.transaction().execute(async (trx) => {
      // Serialises one user's submissions so the pending cap cannot be raced past.
      await this.suggestions.lockSuggester(trx, userId);
      if ((await this.suggestions.countPending(trx, userId)) >= MAX_PENDING_SUGGESTIONS) {
        throw new TooManyPendingSuggestionsError(MAX_PENDING_SUGGESTIONS);
      }
      return (await this.suggestions.insert(trx, suggestion)).id;
    });
    return this.get(id);
  }

  async get(id: number): Promise<SuggestionView> {
    const row = await this.suggestions.find(this.db, id);
    if (!row) throw new NotFoundError('Suggestion');
    return toSuggestionView(row);
  }

  async list(filter: {
    userId: number | null;
    status: SuggestionStatus | null;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PageOf<SuggestionView>> {
    const cursor = decodeCursor(filter.cursor, 1);
    const rows = await this.suggestions.list(this.db, {
      userId: filter.userId,
      status: filter.status,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: filter.limit,
    });
    return toPage(rows, filter.limit, toSuggestionView, (row) => [row.id]);
  }

  /**
   * Turns the suggestion into a draft event with its options (each with its escrow account), for an admin to
   * edit, fund and open through the events API. `closesAt` and `slug` override the suggestion's.
   */
  async approve(
    adminId: number,
    id: number,
    overrides: { closesAt?: string | undefined; slug?: string | undefined },
  ): Promise<SuggestionView> {
    await this.db.transaction().execute(async (trx) => {
      const suggestion = await this.suggestions.lock(trx, id);
      if (!suggestion) throw new NotFoundError('Suggestion');
      if (suggestion.status !== 'pending') throw new SuggestionNotPendingError();
      const closesAt = overrides.closesAt ? new Date(overrides.closesAt) : suggestion.closes_at;
      if (closesAt === null || closesAt.getTime() <= Date.now()) {
        throw new ValidationError('The market needs a closing time in the future', [
          { field: 'body.closesAt', message: closesAt === null ? 'is required' : 'is in the past' },
        ]);
      }
      const event = await this.markets.createDraftEvent(trx, {
        slug: overrides.slug,
        title: suggestion.title,
        description: suggestion.description,
        category: suggestion.category,
        resolutionSource: suggestion.resolution_source,
        closesAt,
        optionLabels: suggestion.options,
      });
      await this.suggestions.markApproved(trx, id, { eventId: event.id, reviewedBy: adminId });
      await this.notifications.notify(trx, {
        userId: suggestion.user_id,
        type: 'suggestion.approved',
        title: 'Your market suggestion was approved',
        body: `"${suggestion.title}" will be listed as a market`,
        data: { suggestionId: String(id), eventSlug: event.slug },
      });
    });
    return this.get(id);
  }

  async reject(adminId: number, id: number, reasonInput: string): Promise<SuggestionView> {
    const reason = plainText(reasonInput, 'reason', TEXT_LIMITS.rejectionReason);
    await this.db.transaction().execute(async (trx) => {
      const suggestion = await this.suggestions.lock(trx, id);
      if (!suggestion) throw new NotFoundError('Suggestion');
      if (suggestion.status !== 'pending') throw new SuggestionNotPendingError();
      await this.suggestions.markRejected(trx, id, { reason, reviewedBy: adminId });
      await this.notifications.notify(trx, {
        userId: suggestion.user_id,
        type: 'suggestion.rejected',
        title: 'Your market suggestion was not accepted',
        body: `"${suggestion.title}": ${reason}`,
        data: { suggestionId: String(id), reason },
      });
    });
    return this.get(id);
  }
}

function toSuggestionView(row: SuggestionRow): SuggestionView {
  return {
    id: String(row.id),
    title: row.title,
    description: row.description,
    category: row.category,
    options: row.options,
    resolutionSource: row.resolution_source,
    closesAt: row.closes_at ? row.closes_at.toISOString() : null,
    status: row.status,
    rejectionReason: row.rejection_reason,
    eventId: row.event_id === null ? null : String(row.event_id),
    eventSlug: row.event_slug,
    eventStatus: row.event_status,
    suggestedBy: { id: String(row.user_id), username: row.username },
    reviewedAt: row.reviewed_at ? row.reviewed_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}
