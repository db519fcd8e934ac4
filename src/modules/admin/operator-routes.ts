import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { currentUser } from '../../platform/auth.js';
import { errors, IdString, Page, PageQuery } from '../../platform/http.js';
import type { Actor, OperatorsService } from './operators.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

const Operator = Type.Object({
  userId: IdString,
  email: Type.String(),
  username: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
});

const AccountParams = Type.Object({
  account: Type.String({
    minLength: 1,
    maxLength: 254,
    description: 'The account: its id, email (any letter case) or username',
  }),
});

const AdminAction = Type.Object({
  id: IdString,
  actorId: Type.Union([IdString, Type.Null()], { description: 'Null for the command line' }),
  actorUsername: Type.Union([Type.String(), Type.Null()]),
  via: Type.Union([Type.Literal('api'), Type.Literal('cli'), Type.Literal('bootstrap')]),
  action: Type.String({ description: 'The route (`PUT /api/admin/flags/:key`) or command that acted' }),
  summary: Type.String(),
  targetType: Type.Union([Type.String(), Type.Null()], {
    description: 'What was acted on: `user`, `event`, `flag`, `dispute`, `report`, `setting`…',
  }),
  targetId: Type.Union([Type.String(), Type.Null()]),
  details: Type.Unknown({ description: 'The request body of the action, cut at 4 000 characters' }),
  address: Type.Union([Type.String(), Type.Null()], { description: 'Where the request came from' }),
  at: Type.String({ format: 'date-time' }),
});

/** Routes that write their own line of the admin audit log, inside the transaction that acts. */
export const SELF_RECORDING_ROUTES = new Set(['/api/admin/operators/:account']);

function actorOf(request: FastifyRequest): Actor {
  return { userId: currentUser(request).userId, via: 'api', address: request.ip };
}

export const operatorRoutes: FastifyPluginAsyncTypebox<{ operators: OperatorsService }> = async (
  app,
  { operators },
) => {
  app.get(
    '/api/admin/operators',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'The accounts with the admin role',
        response: { 200: Type.Object({ data: Type.Array(Operator) }), ...errors(401, 403, 429) },
      },
    },
    async () => operators.list(),
  );

  app.put(
    '/api/admin/operators/:account',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'Grant the admin role',
        description:
          'Takes effect at once on every instance (the account’s cached credentials are dropped everywhere when ' +
          'the change commits) and is written to the admin audit log. Granting it to an admin changes nothing.',
        params: AccountParams,
        response: { 200: Operator, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => operators.setRole(actorOf(request), request.params.account, 'admin'),
  );

  app.delete(
    '/api/admin/operators/:account',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'Revoke the admin role',
        description:
          'Takes effect at once on every instance and is written to the admin audit log. 409 LAST_ADMIN for the ' +
          'only admin left.',
        params: AccountParams,
        response: { 200: Operator, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => operators.setRole(actorOf(request), request.params.account, 'user'),
  );

  app.get(
    '/api/admin/actions',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags,
        security,
        summary: 'The admin audit log',
        description:
          'Every change made by an operator, newest first: through the admin API (who, from which address), the ' +
          'command line, or a bootstrap token. Filter by what was acted on with `targetType` (and `targetId`).',
        querystring: Type.Object({
          targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
          targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          ...PageQuery,
        }),
        response: { 200: Page(AdminAction), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { targetType, targetId, limit, cursor } = request.query;
      const target = targetType ? { type: targetType, ...(targetId ? { id: targetId } : {}) } : null;
      return operators.actions(limit ?? 50, cursor, target);
    },
  );

  app.post(
    '/api/auth/admin-bootstrap',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Become the first operator with the bootstrap token',
        description:
          'While no account is admin, the service prints a one-time bootstrap token in its log at start (or takes ' +
          '`ADMIN_BOOTSTRAP_TOKEN`). The signed-in account that sends it becomes admin; then every token is void. ' +
          '403 BOOTSTRAP_REFUSED for an unknown or used token, or once an admin exists.',
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Operator, ...errors(400, 401, 403, 429) },
      },
    },
    async (request) =>
      operators.redeemBootstrap(
        { ...actorOf(request), userId: currentUser(request).userId },
        request.body.token,
      ),
  );
};
