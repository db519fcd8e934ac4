import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, iso, isoOrNull } from '../../platform/http.js';
import type { Scope } from '../../platform/scopes.js';
import type { EmailLinks } from './email-links.js';
import type { SignInAddress } from './login-throttle.js';
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
  SecondFactorChallenge,
  Session,
  SignedInSession,
  StreakBody,
  toUser,
  UpdateApiKeyBody,
} from './schemas.js';
import type { AccountsService, LoggedIn, LoginChallenge } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const accountsRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountsService;
  links: EmailLinks;
}> = async (app, { accounts, links }) => {
  app.post(
    '/api/auth/register',
    {
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'Creates an account credited with the starting balance and returns a session token. ' +
          '`referralCode` links a referrer (unknown or own code: 400); `inviteCode` accepts a head-to-head challenge. ' +
          'A password that is easy to guess (judged with the email and names given) is refused with 400 ' +
          '`WEAK_PASSWORD`, its `details` saying why; a username reserved for the house or looking like one ' +
          '(`admin`, `adm1n`, `suppport`...) with 409 `USERNAME_RESERVED`. When mail is configured, a link proving ' +
          'the address is mailed to it (see `POST /api/auth/verify-email`).',
        body: RegisterBody,
        response: { 201: Session, ...errors(400, 409, 429) },
      },
    },
    async (request, reply) => {
      const result = await accounts.register(request.body, originOf(request), signInFrom(request));
      void links.afterRegistration(result.user);
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
          'Failures give one generic 401. Repeated failures slow sign-in down with 429 and a `Retry-After` that ' +
          'doubles with each further failure: per account from one address first, then per address, then per ' +
          'account from anywhere; the last two never refuse an address the account has signed in from before. ' +
          'An account with a second factor gets `secondFactorRequired` and a challenge token instead: ' +
          'answer it at POST /api/auth/login/second-factor.',
        body: LoginBody,
        response: { 200: Type.Union([LoginResult, SecondFactorChallenge]), ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      try {
        const { userAgent } = originOf(request);
        const from = signInFrom(request);
        const result = await accounts.login(request.body.email, request.body.password, from, userAgent);
        if ('challenge' in result) return toChallenge(result.challenge);
        return toLoginResult(result);
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
          'repeated guesses are throttled with 429). A new password that is easy to guess: 400 `WEAK_PASSWORD`. ' +
          'Every other session of the account ends at once; the one making the change stays signed in (a change ' +
          'made with an API key ends every session). API keys stay.',
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
          signInFrom(request),
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
      onRequest: app.authenticateVerified,
      schema: {
        tags,
        security,
        summary: 'Create an API key (shown once)',
        description:
          'While the service proves addresses, an account whose address is not proven yet is refused with 403 ' +
          '`EMAIL_NOT_VERIFIED`. ' +
          'With `scopes`, an `allowedCidrs` allow-list, an `expiresAt` and risk `limits` (all optional: a key ' +
          'made without them has every scope, works from anywhere, never expires and has no limits). An API key ' +
          'may only make keys with scopes it has itself.',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { name, ...settings } = request.body;
      const { row, key } = await accounts.keys.createApiKey(currentUser(request), name, settings);
      return reply.status(201).send({ ...toApiKey(row), key });
    },
  );

  app.get(
    '/api/me/api-keys/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'An API key: its scopes, allow-list, expiry and limits',
        params: IdParams,
        response: { 200: ApiKey, ...errors(401, 403, 404) },
      },
    },
    async (request) =>
      toApiKey(await accounts.keys.getApiKey(currentUser(request).userId, Number(request.params.id))),
  );

  app.patch(
    '/api/me/api-keys/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: "Change an API key's name, scopes, allow-list, expiry or limits",
        description:
          'Fields left out stay as they are; null clears the allow-list, the expiry or the limits. Takes effect ' +
          'at once on every instance; orders already resting stay.',
        params: IdParams,
        body: UpdateApiKeyBody,
        response: { 200: ApiKey, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      toApiKey(
        await accounts.keys.updateApiKey(currentUser(request), Number(request.params.id), request.body),
      ),
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
    async (request) => ({
      data: (await accounts.keys.listApiKeys(currentUser(request).userId)).map(toApiKey),
    }),
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
      await accounts.keys.revokeApiKey(currentUser(request).userId, Number(request.params.id));
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
    scopes: row.scopes as Scope[],
    allowedCidrs: row.allowed_cidrs,
    expiresAt: isoOrNull(row.expires_at),
    limits: row.limits,
  };
}

/** The answer of a login that signed in. */
export function toLoginResult(result: LoggedIn) {
  return {
    token: result.token,
    expiresAt: iso(result.expiresAt),
    user: toUser(result.user),
    streak: result.streak,
  };
}

function toChallenge(challenge: LoginChallenge) {
  return {
    secondFactorRequired: true as const,
    challengeToken: challenge.challengeToken,
    expiresAt: iso(challenge.expiresAt),
    factors: challenge.factors,
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

/**
 * Where a sign-in comes from, for the login throttle. Behind a proxy that TRUST_PROXY does not name, every client
 * shares the proxy's address: the X-Forwarded-For the proxy sent keeps them apart (as a key only, never believed
 * as an address), so that one client's failures do not slow down everyone behind the same proxy.
 */
export function signInFrom(request: FastifyRequest): SignInAddress {
  const forwarded = request.headers['x-forwarded-for'];
  const peerTrusted = request.ip !== request.socket.remoteAddress;
  if (typeof forwarded !== 'string' || peerTrusted) return { ip: request.ip, key: request.ip };
  return { ip: request.ip, key: `${request.ip} for ${forwarded.slice(0, 300)}` };
}

export function originOf(request: FastifyRequest): CredentialOrigin {
  const agent = request.headers['user-agent'];
  return { address: request.ip, userAgent: typeof agent === 'string' ? agent : undefined };
}
