import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, Page, PageQuery } from '../../platform/http.js';
import type { ModerationService } from './moderation.js';
import {
  AdminReport,
  ApproveSuggestionBody,
  RejectSuggestionBody,
  ReportsQuery,
  ResolveReportBody,
  Suggestion,
  SuggestionsQuery,
} from './schemas.js';
import type { SuggestionsService } from './suggestions.js';
import { TEXT_LIMITS } from './text.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

/** Moderation of reports and review of market suggestions (role admin). */
export const socialAdminRoutes: FastifyPluginAsyncTypebox<{
  moderation: ModerationService;
  suggestions: SuggestionsService;
}> = async (app, { moderation, suggestions }) => {
  app.get(
    '/api/admin/reports',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'Reports to moderate, newest first',
        description:
          '`status` = open (default), resolved or all. Each report shows its target: the reported user or the ' +
          'author, the text of a reported post or comment, and whether it is already removed.',
        querystring: Type.Object({ ...PageQuery, ...ReportsQuery.properties }),
        response: { 200: Page(AdminReport), ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      moderation.list({
        status: request.query.status ?? 'open',
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/api/admin/reports/:id/resolve',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'Resolve a report: dismiss, hide the content, or suspend',
        description:
          '`dismiss` changes nothing; `hide` removes a reported post or comment from every public read (400 for ' +
          'a USER report) and notifies its author; `suspend` sets the reported user, or the author of the ' +
          'reported content, as suspended (their keys and sessions then get 403 ACCOUNT_SUSPENDED) and hides ' +
          'that content. Every open report on the same target is closed with the same decision ' +
          `(\`resolvedReports\`). \`note\` up to ${TEXT_LIMITS.moderationNote} characters. Already resolved: ` +
          '409 REPORT_NOT_OPEN; suspending an admin: 409 CANNOT_SUSPEND_ADMIN.',
        params: IdParams,
        body: ResolveReportBody,
        response: {
          200: Type.Object({ report: AdminReport, resolvedReports: Type.Integer() }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      moderation.resolve(currentUser(request).userId, Number(request.params.id), request.body),
  );

  app.get(
    '/api/admin/market-suggestions',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'All market suggestions, newest first',
        description: 'Filter with `status` = pending, approved or rejected.',
        querystring: Type.Object({ ...PageQuery, ...SuggestionsQuery.properties }),
        response: { 200: Page(Suggestion), ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      suggestions.list({
        userId: null,
        status: request.query.status ?? null,
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/api/admin/market-suggestions/:id/approve',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'Approve a suggestion into a draft event',
        description:
          'Creates a draft event with the suggested title, description, category, resolution source and ' +
          'options (no house liquidity; edit and open it through the events API). `closesAt` overrides the ' +
          'suggested close and is required when the suggestion has none (400 if missing or past); `slug` ' +
          'overrides the slug made from the title (409 SLUG_TAKEN). The suggester is notified. Already ' +
          'reviewed: 409 SUGGESTION_NOT_PENDING.',
        params: IdParams,
        body: ApproveSuggestionBody,
        response: { 200: Suggestion, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      suggestions.approve(currentUser(request).userId, Number(request.params.id), request.body),
  );

  app.post(
    '/api/admin/market-suggestions/:id/reject',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'Reject a suggestion with a reason',
        description:
          `\`reason\` 1..${TEXT_LIMITS.rejectionReason} characters, shown to the suggester in a notification. ` +
          'Already reviewed: 409 SUGGESTION_NOT_PENDING.',
        params: IdParams,
        body: RejectSuggestionBody,
        response: { 200: Suggestion, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      suggestions.reject(currentUser(request).userId, Number(request.params.id), request.body.reason),
  );
};
