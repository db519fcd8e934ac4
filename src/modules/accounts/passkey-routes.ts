import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from '@sinclair/typebox';
import fp from 'fastify-plugin';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, iso, isoOrNull } from '../../platform/http.js';
import type { PasskeyRow } from './passkey-repository.js';
import {
  AuthenticationOptions,
  AuthenticationResponse,
  Passkey,
  RegistrationOptions,
  RegistrationResponse,
} from './passkey-schemas.js';
import type { PasskeyService } from './passkeys.js';
import { originOf, signInFrom, toLoginResult } from './routes.js';
import { CurrentPassword, LoginResult } from './schemas.js';
import type { SecondFactorService } from './second-factors.js';
import type { AccountsService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export function toPasskey(row: PasskeyRow) {
  return {
    id: String(row.id),
    name: row.name,
    transports: row.transports,
    backedUp: row.backed_up,
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
  };
}

/** Passkeys: register, list and remove them, and sign in with one (a login's second step, or on its own). */
const plugin: FastifyPluginAsyncTypebox<{
  accounts: AccountsService;
  factors: SecondFactorService;
  passkeys: PasskeyService;
}> = async (app, { accounts, factors, passkeys }) => {
  app.post(
    '/api/auth/passkey/options',
    {
      schema: {
        tags,
        summary: 'Options for signing in with a passkey',
        description:
          'With the `challengeToken` of a login that asked for a second factor: options naming that account’s ' +
          'passkeys (answer at POST /api/auth/login/second-factor with `passkey`). Without one: options for any ' +
          'passkey of this site the authenticator holds, with user verification (answer at POST ' +
          '/api/auth/passkey). Each challenge works once, for 5 minutes.',
        body: Type.Object(
          { challengeToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: { 200: AuthenticationOptions, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const token = request.body.challengeToken;
      return token === undefined
        ? passkeys.authenticationOptions(null)
        : factors.passkeyOptionsForChallenge(token);
    },
  );

  app.post(
    '/api/auth/passkey',
    {
      schema: {
        tags,
        summary: 'Sign in with a passkey alone',
        description:
          'Takes what navigator.credentials.get answered to options made without a challenge token. The passkey ' +
          'must have verified its user (a PIN or biometrics), so it stands for both factors: the session starts ' +
          'with a fresh factor. Anything else: one generic 401 INVALID_CREDENTIALS.',
        body: Type.Object({ response: AuthenticationResponse }, { additionalProperties: false }),
        response: { 200: LoginResult, ...errors(400, 401, 429) },
      },
    },
    async (request) => {
      const origin = originOf(request);
      const response = request.body.response as AuthenticationResponseJSON;
      const result = await factors.signInWithPasskey(response, async (userId) =>
        accounts.completeLogin(await accounts.getUser(userId), origin),
      );
      return toLoginResult(result);
    },
  );

  app.get(
    '/api/me/passkeys',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'The account’s passkeys',
        response: { 200: Type.Object({ data: Type.Array(Passkey) }), ...errors(401) },
      },
    },
    async (request) => ({ data: (await passkeys.list(currentUser(request).userId)).map(toPasskey) }),
  );

  app.post(
    '/api/me/passkeys/options',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Options for registering a passkey',
        description:
          'Pass them to navigator.credentials.create (or startRegistration of @simplewebauthn/browser) and send ' +
          'its answer to POST /api/me/passkeys within 5 minutes. 409 TOO_MANY_PASSKEYS at 10.',
        response: { 200: RegistrationOptions, ...errors(401, 409) },
      },
    },
    async (request) => passkeys.registrationOptions(await accounts.getUser(currentUser(request).userId)),
  );

  app.post(
    '/api/me/passkeys',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Register a passkey',
        description:
          'Verifies the authenticator’s answer to the registration options (attestation is not asked for). From ' +
          'now on login needs a factor and the sensitive actions a fresh one. The account’s first factor also ' +
          'gets ten recovery codes, shown once (`recoveryCodes`, empty otherwise), and needs the current ' +
          '`password` (missing or wrong: 400 naming `password`, counted as a failed login, so repeated guesses ' +
          'are throttled with 429). An account that has a factor already needs a fresh one to add another (403 ' +
          'FRESH_SECOND_FACTOR_REQUIRED). An answer that does not verify: 400 INVALID_PASSKEY.',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 64 }),
            response: RegistrationResponse,
            password: Type.Optional(CurrentPassword),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ passkey: Passkey, recoveryCodes: Type.Array(Type.String()) }),
          ...errors(400, 401, 403, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const { name, response, password } = request.body;
      const added = await factors.addPasskey(
        currentUser(request),
        name.trim() || 'Passkey',
        response as RegistrationResponseJSON,
        { password, from: signInFrom(request) },
      );
      return reply
        .status(201)
        .send({ passkey: toPasskey(added.passkey), recoveryCodes: added.recoveryCodes });
    },
  );

  app.delete(
    '/api/me/passkeys/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Remove a passkey',
        description:
          'Needs a factor proved within the last minutes (403 FRESH_SECOND_FACTOR_REQUIRED). With the last ' +
          'factor gone, the recovery codes go too.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await factors.removePasskey(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/me/second-factors/passkey-options',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Options for proving a passkey for this session',
        description:
          'Answer them at POST /api/me/second-factors/verify with `passkey`; 404 when the account has none.',
        response: { 200: AuthenticationOptions, ...errors(401, 404) },
      },
    },
    async (request) => passkeys.authenticationOptions(currentUser(request).userId),
  );
};

export const passkeyRoutes = fp(plugin, { name: 'passkeys', dependencies: ['second-factors'] });
