import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, iso, isoOrNull } from '../../platform/http.js';
import type { ApiKeyRow, CredentialOrigin, SessionRow } from './repository.js';
import {
  ApiKey,
  ChangePasswordBody,
  CreateApiKeyBody,
  CreatedApiKey,
  LoginBody,
  LoginResult,
  Me,
  PasswordChanged,
  RegisterBody,
  Session,
  SignedInSession,
  StreakBody,
  toUser,
} from './schemas.js';
import type { AccountsService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const accountsRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountsService }> = async (
  app,
  { accounts },
) => {
  app.post(
    '/api/auth/register',
    {
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'Creates an account credited with the starting balance and returns a session token. ' +
          '`referralCode` links a referrer (unknown or own code: 400); `inviteCode` accepts a head-to-head challenge.',
        body: RegisterBody,
        response: { 201: Session, ...errors(400, 409, 429) },
      },
    },
    async (request, reply) => {
      const result = await accounts.register(request.body, originOf(request));
      return reply
        .status(201)
        .send({ token: result.token, expiresAt: iso(result.expiresAt), user: toUser(result.user) });
    },
  );

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags,
        summary: 'Log in and collect the daily streak',
        description:
          'Returns a session token (use it as a Bearer token) and the streak this login awarded. ' +
          'Failures give one generic 401; repeated failures per email or address are throttled with 429.',
        body: LoginBody,
        response: { 200: LoginResult, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      try {
        const { address, userAgent } = originOf(request);
        const result = await accounts.login(request.body.email, request.body.password, address, userAgent);
        return {
          token: result.token,
          expiresAt: iso(result.expiresAt),
          user: toUser(result.user),
          streak: result.streak,
        };
      } catch (error) {
        const retry = (error as { details?: { retryAfterSeconds?: number } }).details?.retryAfterSeconds;
        if (retry !== undefined) reply.header('retry-after', retry);
        throw error;
      }
    },
  );

  app.post(
    '/api/auth/logout',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Revoke the session token used for this request',
        response: { 204: Type.Null(), ...errors(401) },
      },
    },
    async (request, reply) => {
      await accounts.logout(currentUser(request));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/auth/me',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'The signed-in user with balances',
        response: { 200: Me, ...errors(401) },
      },
    },
    async (request) => {
      const { userId } = currentUser(request);
      const [user, balance] = await Promise.all([accounts.getUser(userId), accounts.balances(userId)]);
      return { ...toUser(user), balance };
    },
  );

  app.post(
    '/api/me/password',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Change the password and end every other session',
        description:
          'Needs the current password (a wrong one: 400 naming `currentPassword`, counted as a failed login, so ' +
          'repeated guesses are throttled with 429). Every other session of the account ends at once; the one ' +
          'making the change stays signed in (a change made with an API key ends every session). API keys stay.',
        body: ChangePasswordBody,
        response: { 200: PasswordChanged, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      try {
        const endedSessions = await accounts.changePassword(
          currentUser(request),
          request.body.currentPassword,
          request.body.newPassword,
          request.ip,
        );
        return { endedSessions };
      } catch (error) {
        const retry = (error as { details?: { retryAfterSeconds?: number } }).details?.retryAfterSeconds;
        if (retry !== undefined) reply.header('retry-after', retry);
        throw error;
      }
    },
  );

  app.get(
    '/api/me/sessions',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Signed-in sessions, with where and when each was last used',
        response: { 200: Type.Object({ data: Type.Array(SignedInSession) }), ...errors(401) },
      },
    },
    async (request) => ({ data: (await accounts.listSessions(currentUser(request))).map(toSession) }),
  );

  app.delete(
    '/api/me/sessions/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'End a signed-in session',
        description:
          'Its token stops working at once, on every instance. Ending the current session logs out.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await accounts.revokeSession(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/me/streak',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Daily login streak and the next bonus',
        response: { 200: StreakBody, ...errors(401) },
      },
    },
    async (request) => accounts.streak(currentUser(request).userId),
  );

  app.post(
    '/api/me/api-keys',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Create an API key (shown once)',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...errors(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const { row, key } = await accounts.createApiKey(currentUser(request).userId, request.body.name);
      return reply.status(201).send({ ...toApiKey(row), key });
    },
  );

  app.get(
    '/api/me/api-keys',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'List active API keys',
        response: { 200: Type.Object({ data: Type.Array(ApiKey) }), ...errors(401) },
      },
    },
    async (request) => ({ data: (await accounts.listApiKeys(currentUser(request).userId)).map(toApiKey) }),
  );

  app.delete(
    '/api/me/api-keys/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Revoke an API key',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await accounts.revokeApiKey(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );
};

function toApiKey(row: ApiKeyRow) {
  return {
    id: String(row.id),
    name: row.name,
    prefix: row.prefix,
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    lastUsedFrom: row.last_used_ip,
  };
}

function toSession(row: SessionRow & { current: boolean }) {
  return {
    id: String(row.id),
    current: row.current,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    createdFrom: row.created_ip,
    userAgent: row.user_agent,
    lastUsedAt: isoOrNull(row.last_used_at),
    lastUsedFrom: row.last_used_ip,
  };
}

function originOf(request: FastifyRequest): CredentialOrigin {
  const agent = request.headers['user-agent'];
  return { address: request.ip, userAgent: typeof agent === 'string' ? agent : undefined };
}
