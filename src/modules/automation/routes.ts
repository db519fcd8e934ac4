import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, Page, PageQuery } from '../../platform/http.js';
import { PositionView } from '../trading/schemas.js';
import { COPY_RULES, type CopyTradingService } from './copy-trading.js';
import type { ProtectionsService } from './protections.js';
import { FollowBody, FollowView, LeaderParams, MirrorView, ProtectionsBody } from './schemas.js';

const security = [{ bearerAuth: [] }];
const copyTags = ['Copy trading'];
const flagNote = ' 503 FEATURE_DISABLED while the `copyTrading` flag is off.';

export const automationRoutes: FastifyPluginAsyncTypebox<{
  protections: ProtectionsService;
  copyTrading: CopyTradingService;
}> = async (app, { protections, copyTrading }) => {
  app.post(
    '/api/positions/:id/protections',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['Trading'],
        security,
        summary: 'Set a stop-loss and/or take-profit on a position',
        description:
          'Thresholds are basis points of your side’s price (100..9900; 4000 = 40¢). A stop-loss must be below and a ' +
          'take-profit above the side’s current price (its last traded price, or the displayed price if the option ' +
          'never traded), else 400. `null` clears a threshold; an absent field leaves it as it is. After every fill ' +
          'in the option, a position whose side traded at or below its stop-loss, or at or above its take-profit, ' +
          'is sold at market (immediate-or-cancel, worst price 1¢) in that same flow: all shares not held by your ' +
          'open sell orders. The protection is then cleared (it fires once) and you get a notification and a ' +
          '`position.protection_triggered` webhook. A protection left on a position you empty by trading is cleared with that trade. ' +
          '409 POSITION_CLOSED when the position holds no shares or its market is not open; another user’s ' +
          'position: 404. Returns the position as GET /api/positions shows it.',
        params: IdParams,
        body: ProtectionsBody,
        response: { 200: PositionView, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) =>
      protections.setProtections(currentUser(request).userId, Number(request.params.id), request.body),
  );

  app.get(
    '/api/copy-trader',
    {
      onRequest: app.authenticate,
      schema: {
        tags: copyTags,
        security,
        summary: 'The traders you copy and your settings',
        description: `Oldest first, with what your copies of each trader spent today (UTC).${flagNote}`,
        response: { 200: Type.Object({ data: Type.Array(FollowView) }), ...errors(401, 503) },
      },
    },
    async (request) => copyTrading.list(currentUser(request).userId),
  );

  app.post(
    '/api/copy-trader',
    {
      onRequest: app.authenticate,
      schema: {
        tags: copyTags,
        security,
        summary: 'Copy a trader, or change how you copy them',
        description:
          'Name the trader by `leaderId` or `leaderUsername`. 201 when you start copying them, 200 when you change ' +
          'an existing setting (absent fields keep their values; `sizing` is required the first time). When their ' +
          '**market trade** fills, your copy is placed within seconds as your own market trade on the same side ' +
          'and action, at their average fill price or better (rounded in your favour): `fixed` trades `quantity` ' +
          'shares, `fraction` that share of their filled quantity (rounded down), capped by ' +
          `\`maxQuantityPerTrade\` (default ${COPY_RULES.defaultMaxQuantityPerTrade}), by \`dailyLimitCents\` ` +
          `(default ${COPY_RULES.defaultDailyLimitCents}: the most your copies of this trader may spend per UTC day, ` +
          'buys only) and, for sells, by the shares you hold. A copy is skipped, with a `copy.skipped` notification, ' +
          'when you lack the cash or shares, a cap is reached, nothing fills at that price, or it could not be ' +
          `placed within ${COPY_RULES.staleAfterMinutes} minutes. Limit orders and copies are never copied. ` +
          `At most ${COPY_RULES.maxFollows} traders (409 COPY_LIMIT_REACHED). Yourself: 400; unknown trader: 404.` +
          flagNote,
        body: FollowBody,
        response: { 200: FollowView, 201: FollowView, ...errors(400, 401, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { created, follow } = await copyTrading.follow(currentUser(request).userId, request.body);
      return reply.status(created ? 201 : 200).send(follow);
    },
  );

  app.delete(
    '/api/copy-trader/:leaderId',
    {
      onRequest: app.authenticate,
      schema: {
        tags: copyTags,
        security,
        summary: 'Stop copying a trader',
        description: `Copies not yet placed are skipped. 404 when you do not copy them.${flagNote}`,
        params: LeaderParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404, 503) },
      },
    },
    async (request, reply) => {
      await copyTrading.unfollow(currentUser(request).userId, Number(request.params.leaderId));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/copy-trader/mirrors',
    {
      onRequest: app.authenticate,
      schema: {
        tags: copyTags,
        security,
        summary: 'Your copies of leaders’ trades, newest first',
        description: `Each copy is \`pending\`, \`processing\`, \`placed\` (with its order) or \`skipped\` (with the reason).${flagNote}`,
        querystring: Type.Object(PageQuery),
        response: { 200: Page(MirrorView), ...errors(400, 401, 503) },
      },
    },
    async (request) =>
      copyTrading.mirrors(currentUser(request).userId, request.query.limit ?? 50, request.query.cursor),
  );
};
