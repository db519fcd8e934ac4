import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { currentUser } from '../../platform/auth.js';
import { ValidationError } from '../../platform/errors.js';
import { errors } from '../../platform/http.js';
import { AuthenticationResponse } from './passkey-schemas.js';
import { originOf, signInFrom, toLoginResult } from './routes.js';
import { CurrentPassword, LoginResult } from './schemas.js';
import type { FactorProof, SecondFactorService } from './second-factors.js';
import type { AccountsService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

const Code = Type.String({
  pattern: '^[0-9]{6}$',
  description: 'The 6-digit code the authenticator app shows',
});
const RecoveryCode = Type.String({
  minLength: 16,
  maxLength: 40,
  description: 'One of the recovery codes (each works once)',
});
const Proof = Type.Union([
  Type.Object({ code: Code }, { additionalProperties: false }),
  Type.Object({ recoveryCode: RecoveryCode }, { additionalProperties: false }),
  Type.Object({ passkey: AuthenticationResponse }, { additionalProperties: false }),
]);

/**
 * The actions that need a second factor proved within the last minutes (when the account has one), by method and
 * route path; a key's creation or change needs it only when the key may trade (a key made without scopes may).
 */
const NEEDS_FRESH_FACTOR: Record<string, (body: unknown) => boolean> = {
  'POST /api/me/password': () => true,
  'POST /api/me/second-factors/totp/confirm': () => true,
  'POST /api/me/webhooks': () => true,
  'DELETE /api/me/second-factors/totp': () => true,
  'POST /api/me/passkeys': () => true,
  'DELETE /api/me/passkeys/:id': () => true,
  'POST /api/me/api-keys': (body) => grantsTrade(body, true),
  'PATCH /api/me/api-keys/:id': (body) => grantsTrade(body, false),
};

function grantsTrade(body: unknown, byDefault: boolean): boolean {
  const scopes = (body as { scopes?: unknown } | null)?.scopes;
  return Array.isArray(scopes) ? scopes.includes('trade') : byDefault;
}

function proofOf(body: { code?: string; recoveryCode?: string; passkey?: unknown }): FactorProof {
  const given = [body.code, body.recoveryCode, body.passkey].filter((item) => item !== undefined);
  if (given.length === 1) {
    if (body.code !== undefined) return { code: body.code };
    if (body.recoveryCode !== undefined) return { recoveryCode: body.recoveryCode };
    return { passkey: body.passkey as AuthenticationResponseJSON };
  }
  throw new ValidationError('Send one of code, recoveryCode or passkey', [
    { field: 'body', message: 'must have exactly one of code, recoveryCode or passkey' },
  ]);
}

function headerCode(request: FastifyRequest): string | null {
  const value = request.headers['x-second-factor'];
  return typeof value === 'string' && /^\d{6}$/.test(value) ? value : null;
}

/** Second factors: set up, prove and remove an authenticator app, and the second step of a login. */
const plugin: FastifyPluginAsyncTypebox<{ accounts: AccountsService; factors: SecondFactorService }> = async (
  app,
  { accounts, factors },
) => {
  app.addHook('preHandler', async (request) => {
    const needs = NEEDS_FRESH_FACTOR[`${request.method} ${request.routeOptions.url ?? ''}`];
    if (!needs || !request.user || !needs(request.body)) return;
    await factors.requireFresh(request.user, headerCode(request));
  });

  app.post(
    '/api/auth/login/second-factor',
    {
      schema: {
        tags,
        summary: 'Second step of a login: a factor for the challenge',
        description:
          'Takes the challenge token a login answered and a code from the authenticator app, a recovery code ' +
          '(each works once), or a passkey’s answer to the options of POST /api/auth/passkey/options. A wrong ' +
          'one: 401 INVALID_SECOND_FACTOR; after 5 tries, or 5 minutes, the challenge is spent (401 ' +
          'UNAUTHENTICATED: log in again).',
        body: Type.Object(
          {
            challengeToken: Type.String({ minLength: 1, maxLength: 200 }),
            code: Type.Optional(Code),
            recoveryCode: Type.Optional(RecoveryCode),
            passkey: Type.Optional(AuthenticationResponse),
          },
          { additionalProperties: false, description: 'With one of `code`, `recoveryCode` or `passkey`' },
        ),
        response: { 200: LoginResult, ...errors(400, 401, 429) },
      },
    },
    async (request) => {
      const { challengeToken, ...given } = request.body;
      const proof = proofOf(given);
      const origin = originOf(request);
      const result = await factors.answerChallenge(challengeToken, proof, async (userId) =>
        accounts.completeLogin(await accounts.getUser(userId), origin),
      );
      return toLoginResult(result);
    },
  );

  app.get(
    '/api/me/second-factors',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'The account’s second factors and recovery codes left',
        response: {
          200: Type.Object({
            totp: Type.Union([
              Type.Object({ enabled: Type.Boolean(), confirmedAt: Type.String({ format: 'date-time' }) }),
              Type.Null(),
            ]),
            passkeys: Type.Integer({ minimum: 0, description: 'How many passkeys (GET /api/me/passkeys)' }),
            recoveryCodesLeft: Type.Integer({ minimum: 0 }),
          }),
          ...errors(401),
        },
      },
    },
    async (request) => {
      const status = await factors.status(currentUser(request).userId);
      return {
        totp: status.totp ? { enabled: true, confirmedAt: status.totp.confirmedAt.toISOString() } : null,
        passkeys: status.passkeys,
        recoveryCodesLeft: status.recoveryCodesLeft,
      };
    },
  );

  app.post(
    '/api/me/second-factors/totp',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Start setting up an authenticator app',
        description:
          'A new secret and its otpauth:// URI (show it as a QR code); not in force until a code from the app ' +
          'confirms it. 409 TOTP_ALREADY_ENABLED when one is set up.',
        response: {
          201: Type.Object({ secret: Type.String(), otpauthUri: Type.String() }),
          ...errors(401, 409),
        },
      },
    },
    async (request, reply) => {
      const user = await accounts.getUser(currentUser(request).userId);
      return reply.status(201).send(await factors.startTotp(user));
    },
  );

  app.post(
    '/api/me/second-factors/totp/confirm',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Confirm the authenticator app with a code; the recovery codes (shown once)',
        description:
          'From now on login needs a code, and the sensitive actions need one proved within the last minutes. ' +
          'The ten recovery codes each sign in once when the app is lost; they are stored hashed. An account ' +
          'that has no factor yet also sends its current `password` (missing or wrong: 400 naming `password`, ' +
          'counted as a failed login, so repeated guesses are throttled with 429); one that has a passkey needs a ' +
          'factor proved within the last minutes instead (403 FRESH_SECOND_FACTOR_REQUIRED).',
        body: Type.Object(
          { code: Code, password: Type.Optional(CurrentPassword) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ recoveryCodes: Type.Array(Type.String()) }),
          ...errors(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request) => ({
      recoveryCodes: await factors.confirmTotp(currentUser(request), request.body.code, {
        password: request.body.password,
        from: signInFrom(request),
      }),
    }),
  );

  app.post(
    '/api/me/second-factors/verify',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Prove a second factor for this session',
        description:
          'With a code, a recovery code, or a passkey’s answer to POST /api/me/second-factors/passkey-options. ' +
          'Changing the password, adding a webhook, making a key that may trade and removing a factor then go ' +
          'through for the next minutes. A wrong code: 401 INVALID_SECOND_FACTOR.',
        body: Proof,
        response: { 204: Type.Null(), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      await factors.verify(currentUser(request), request.body as FactorProof);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/api/me/second-factors/totp',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Remove the authenticator app',
        description:
          'Needs a factor proved within the last minutes (403 FRESH_SECOND_FACTOR_REQUIRED). With the last ' +
          'factor gone, the recovery codes go too.',
        response: { 204: Type.Null(), ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await factors.removeTotp(currentUser(request).userId);
      return reply.status(204).send(null);
    },
  );
};

export const secondFactorRoutes = fp(plugin, { name: 'second-factors' });
