import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, Page, PageQuery } from '../../platform/http.js';
import { CHALLENGE_LIMITS, type ChallengesService } from './challenges.js';
import {
  Challenge,
  ChallengeStatus,
  CodeParams,
  CreateChallengeBody,
  CreateTournamentBody,
  SlugParams,
  Tournament,
  TournamentDetail,
  TournamentsQuery,
  UpdateTournamentBody,
} from './schemas.js';
import { LEADERBOARD_SIZE, type TournamentsService } from './tournaments.js';

const tags = ['Competitions'];
const security = [{ bearerAuth: [] }];

const CHALLENGE_RULES =
  'A challenge is played on one market (`eventSlug`, which must be open; it ends when that market settles) ' +
  `or over a window on every market (\`endsAt\`, optional \`startsAt\`; at most ${CHALLENGE_LIMITS.maxWindowDays} ` +
  'days). Each side scores the profit of their trades placed after acceptance (and after `startsAt`) until ' +
  'the end: in that market, or in any market for a window. Profit = sales − purchases − fees + value of the ' +
  'shares those trades leave (payout once resolved, else the last traded price). The higher profit takes the ' +
  'pot (both stakes); equal profit is a draw and returns each stake. Stakes are held from creation and ' +
  'acceptance until the result. An unaccepted challenge expires after `expiresInHours` (or when its market ' +
  'closes or its window ends) and the stake is returned. Both sides are notified of the result.';

export const competitionsRoutes: FastifyPluginAsyncTypebox<{
  challenges: ChallengesService;
  tournaments: TournamentsService;
}> = async (app, { challenges, tournaments }) => {
  app.get(
    '/api/challenges',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your head-to-head challenges, newest first',
        description: 'Challenges you created or were sent or accepted. Filter with `status`.',
        querystring: Type.Object({ ...PageQuery, status: Type.Optional(ChallengeStatus) }),
        response: { 200: Page(Challenge), ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      challenges.list(currentUser(request).userId, {
        status: request.query.status ?? null,
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/api/challenges',
    {
      onRequest: app.authenticateVerified,
      schema: {
        tags,
        security,
        summary: 'Create a head-to-head challenge and get its invite code',
        description:
          `${CHALLENGE_RULES} Errors: neither or both of eventSlug and a window, or a bad window: 400; ` +
          'unknown market or opponent: 404; market not open: 409 EVENT_NOT_OPEN; stake above your cash: 402; ' +
          'address not proven yet (while the service proves addresses): 403 EMAIL_NOT_VERIFIED.',
        body: CreateChallengeBody,
        response: { 201: Challenge, ...errors(400, 401, 402, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await challenges.create(currentUser(request).userId, request.body)),
  );

  app.get(
    '/api/challenges/:code',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'A challenge by its invite code',
        params: CodeParams,
        response: { 200: Challenge, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => challenges.get(request.params.code),
  );

  app.post(
    '/api/challenges/:code/accept',
    {
      onRequest: app.authenticateVerified,
      schema: {
        tags,
        security,
        summary: 'Accept a challenge with its invite code',
        description:
          'Holds your stake and starts the challenge; the creator is notified. Already accepted, settled, ' +
          'expired, or its market no longer open: 409 CHALLENGE_NOT_OPEN; your own challenge: 409 ' +
          'CANNOT_ACCEPT_OWN_CHALLENGE; sent to someone else: 403; stake above your cash: 402; unknown code: 404. ' +
          'Address not proven yet (while the service proves addresses): 403 EMAIL_NOT_VERIFIED. A new account can ' +
          'also accept by registering with `inviteCode` (the invitation reached it: no proof is asked).',
        params: CodeParams,
        response: { 200: Challenge, ...errors(400, 401, 402, 403, 404, 409) },
      },
    },
    async (request) => challenges.accept(currentUser(request).userId, request.params.code),
  );

  app.get(
    '/api/tournaments',
    {
      schema: {
        tags,
        summary: 'Active and upcoming tournaments',
        description:
          '`status=live` (default): running and upcoming tournaments, soonest start first; `status=finished`: ' +
          'those whose prizes are paid, latest first.',
        querystring: Type.Object({ ...PageQuery, ...TournamentsQuery.properties }),
        response: { 200: Page(Tournament), ...errors(400) },
      },
    },
    async (request) =>
      tournaments.list({
        status: request.query.status ?? 'live',
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.get(
    '/api/tournaments/:slug',
    {
      schema: {
        tags,
        summary: 'A tournament with its leaderboard',
        description:
          'Score: return on the trades made in the tournament’s markets during its window = profit ÷ cost of ' +
          'the purchases (profit as for challenges), in basis points. Ties: higher profit, then earlier entry. ' +
          `Entrants without a trade are unranked. The top ${LEADERBOARD_SIZE} are shown: live while it runs, ` +
          'final once finished. Prizes go to ranks 1, 2, ... in order, paid from house bonus by a job at the end.',
        params: SlugParams,
        response: { 200: TournamentDetail, ...errors(400, 404) },
      },
    },
    async (request) => tournaments.detail(request.params.slug, request.user?.userId ?? null),
  );

  app.post(
    '/api/tournaments/:slug/join',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Join a tournament',
        description:
          'Free to enter; open until `entryClosesAt` (before or during the window). Joined already: 409 ' +
          'ALREADY_JOINED; entries closed or tournament over: 409 TOURNAMENT_CLOSED.',
        params: SlugParams,
        response: {
          200: Type.Object({ slug: Type.String(), joined: Type.Literal(true), joinedAt: Type.String() }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => tournaments.join(currentUser(request).userId, request.params.slug),
  );

  app.post(
    '/api/admin/tournaments',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Create a tournament',
        description:
          'A window (`startsAt` < `endsAt`, the end in the future), the markets it scores (`eventSlugs`, all ' +
          'existing: 400 naming unknown ones), `prizes` in cents for 1st, 2nd, ... (paid from house bonus) and ' +
          '`entryClosesAt` (default `endsAt`, not after it). Slug taken: 409 SLUG_TAKEN.',
        body: CreateTournamentBody,
        response: { 201: Tournament, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await tournaments.create(currentUser(request).userId, request.body)),
  );

  app.patch(
    '/api/admin/tournaments/:slug',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Edit a tournament',
        description:
          'Send only what changes. Before the start anything may change (the same rules as creation). Once ' +
          'started: the title, the description, `endsAt` (still in the future) and `entryClosesAt`; `prizes` only ' +
          'higher or more; `startsAt` or `eventSlugs` → 409 TOURNAMENT_STARTED. Once the window is over → 409 ' +
          'TOURNAMENT_ENDED. An entry deadline that was the end moves with the end.',
        params: SlugParams,
        body: UpdateTournamentBody,
        response: { 200: Tournament, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => tournaments.update(request.params.slug, request.body),
  );
};
