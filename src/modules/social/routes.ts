import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, Page, PageQuery } from '../../platform/http.js';
import type { DiscussionService } from './discussion.js';
import type { ModerationService } from './moderation.js';
import type { ProfilesService } from './profiles.js';
import { TRENDING_TRADE_WEIGHT, TRENDING_WINDOW_DAYS } from './profiles.js';
import {
  Comment,
  CreateCommentBody,
  CreatePostBody,
  CreateReportBody,
  CreateSuggestionBody,
  LikeResult,
  Post,
  PostsQuery,
  Profile,
  Report,
  Suggestion,
  SuggestionsQuery,
  TrendingPage,
  UsernameParams,
} from './schemas.js';
import { MAX_PENDING_SUGGESTIONS, type SuggestionsService } from './suggestions.js';
import { TEXT_LIMITS } from './text.js';

const tags = ['Social'];
const security = [{ bearerAuth: [] }];
const TEXT_RULES =
  'Text is plain text: it is trimmed, stored and returned exactly as written (markup is not interpreted or ' +
  'changed; JSON is not HTML, so clients must insert it into pages as text). Blank text is a 400.';

export interface SocialServices {
  discussion: DiscussionService;
  moderation: ModerationService;
  suggestions: SuggestionsService;
  profiles: ProfilesService;
}

export const socialRoutes: FastifyPluginAsyncTypebox<SocialServices> = async (
  app,
  { discussion, moderation, suggestions, profiles },
) => {
  app.get(
    '/api/users/:username',
    {
      schema: {
        tags,
        summary: 'Public profile and trading stats of a user',
        description:
          'Public: username, display name, bio, avatar, level, badges, follower counts and stats derived from ' +
          'trades (count, volume, realized profit, win rate on settled positions, current winning streak). ' +
          'Never shows email, balances or positions.',
        params: UsernameParams,
        response: { 200: Profile, ...errors(400, 404) },
      },
    },
    async (request) => profiles.profile(request.params.username),
  );

  app.get(
    '/api/trending-users',
    {
      schema: {
        tags,
        summary: 'Traders ranked by recent activity and profit',
        description:
          `Ranks unsuspended users with at least one trade in the last ${TRENDING_WINDOW_DAYS} days by ` +
          `score = trades × ${TRENDING_TRADE_WEIGHT} + profit in cents, where profit is that window's trades ` +
          'marked to market (settled options at their payout, others at the last traded price). Ties: higher ' +
          'profit first, then older account.',
        querystring: Type.Object(PageQuery),
        response: { 200: TrendingPage, ...errors(400) },
      },
    },
    async (request) => profiles.trending({ limit: request.query.limit ?? 50, cursor: request.query.cursor }),
  );

  app.get(
    '/api/posts',
    {
      schema: {
        tags,
        summary: 'Discussion posts, newest first',
        description:
          'Filter by `eventSlug` (a market; unknown or draft: 404) and/or `username` (the author; unknown: 404). ' +
          'Hidden and deleted posts never appear. `likedByMe` is filled in when a key is sent.',
        querystring: Type.Object({ ...PageQuery, ...PostsQuery.properties }),
        response: { 200: Page(Post), ...errors(400, 404) },
      },
    },
    async (request) =>
      discussion.listPosts({
        eventSlug: request.query.eventSlug,
        username: request.query.username,
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
        viewerId: request.user?.userId ?? null,
      }),
  );

  app.get(
    '/api/posts/:id',
    {
      schema: {
        tags,
        summary: 'One post',
        description: 'Hidden or deleted posts are 404.',
        params: IdParams,
        response: { 200: Post, ...errors(400, 404) },
      },
    },
    async (request) => discussion.getPost(Number(request.params.id), request.user?.userId ?? null),
  );

  app.post(
    '/api/posts',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Post in the discussion of a market',
        description: `\`text\`: 1..${TEXT_LIMITS.post} characters. ${TEXT_RULES} Unknown or draft market: 404.`,
        body: CreatePostBody,
        response: { 201: Post, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await discussion.createPost(currentUser(request).userId, request.body)),
  );

  app.delete(
    '/api/posts/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Delete your own post',
        description:
          'Only the author may delete a post: someone else’s post is 403, a missing, hidden or already ' +
          'deleted one 404. Its comments disappear with it.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await discussion.deletePost(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/posts/:id/like',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Like a post, or take your like back',
        description:
          'Toggles: likes the post when you do not like it yet, otherwise removes your like; returns the new ' +
          'state and count. A user likes a post at most once. The author is notified of a like (not of their own).',
        params: IdParams,
        response: { 200: LikeResult, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => discussion.toggleLike(currentUser(request).userId, Number(request.params.id)),
  );

  app.get(
    '/api/posts/:id/comments',
    {
      schema: {
        tags,
        summary: 'Comments on a post, oldest first',
        description: 'Hidden and deleted comments never appear; a hidden or deleted post is 404.',
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Page(Comment), ...errors(400, 404) },
      },
    },
    async (request) =>
      discussion.listComments(Number(request.params.id), {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/api/posts/:id/comments',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Comment on a post',
        description: `\`text\`: 1..${TEXT_LIMITS.comment} characters. ${TEXT_RULES} The post's author is notified.`,
        params: IdParams,
        body: CreateCommentBody,
        response: { 201: Comment, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await discussion.addComment(
            currentUser(request).userId,
            Number(request.params.id),
            request.body.text,
          ),
        ),
  );

  app.delete(
    '/api/comments/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Delete your own comment',
        description:
          'Only the author may delete a comment: someone else’s is 403, a missing or removed one 404.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await discussion.deleteComment(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/reports',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Report a post, a comment or a user to the moderators',
        description:
          `\`reason\`: 1..${TEXT_LIMITS.reportReason} characters. One open report per reporter and target: a ` +
          'second one is 409 ALREADY_REPORTED until the first is resolved. Unknown or removed target: 404; ' +
          'reporting yourself: 400.',
        body: CreateReportBody,
        response: { 201: Report, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await moderation.report(currentUser(request).userId, request.body)),
  );

  app.get(
    '/api/market-suggestions',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your market suggestions, newest first',
        description:
          'Filter with `status` = pending, approved or rejected. Admins review all of them under /api/admin.',
        querystring: Type.Object({ ...PageQuery, ...SuggestionsQuery.properties }),
        response: { 200: Page(Suggestion), ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      suggestions.list({
        userId: currentUser(request).userId,
        status: request.query.status ?? null,
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/api/market-suggestions',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Suggest a market for admin review',
        description:
          `\`title\` 1..${TEXT_LIMITS.suggestionTitle}, \`description\` up to ${TEXT_LIMITS.suggestionDescription}, ` +
          `\`category\` 1..${TEXT_LIMITS.suggestionCategory} (stored lower-case), \`options\` 1..10 different ` +
          `labels of 1..${TEXT_LIMITS.suggestionOption}, \`resolutionSource\` up to ${TEXT_LIMITS.resolutionSource} ` +
          `characters, \`closesAt\` in the future. At most ${MAX_PENDING_SUGGESTIONS} of your suggestions may ` +
          'wait for review at once (409 TOO_MANY_PENDING_SUGGESTIONS). You are notified of the decision.',
        body: CreateSuggestionBody,
        response: { 201: Suggestion, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await suggestions.suggest(currentUser(request).userId, request.body)),
  );
};
