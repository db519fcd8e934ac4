import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { KeyLimits } from '../exchange/key-limits.js';
import { isDatabaseUnavailable } from './db/types.js';
import {
  AccountSuspendedError,
  EmailNotVerifiedError,
  ForbiddenError,
  UnauthenticatedError,
} from './errors.js';
import { checkKeyPermissions, type KeyPermissions } from './scopes.js';

export type Role = 'user' | 'admin';

export interface AuthUser {
  userId: number;
  role: Role;
  suspended: boolean;
  /** Whether the account's address has been proven by a link sent to it. */
  emailVerified: boolean;
  /** An API key's scopes, allow-list and limits (`permissions`); a session has every scope and no limits. */
  credential: { kind: 'session' | 'apiKey'; id: number; permissions?: KeyPermissions };
}

/**
 * Looks up who a bearer token belongs to; null when it is unknown, expired or revoked. `address` is where the
 * request came from, recorded as the credential's last use.
 */
export type CredentialResolver = (token: string, address?: string) => Promise<AuthUser | null>;

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | null;
    /** True when an Authorization header was sent but did not identify anyone. */
    badCredentials: boolean;
    /**
     * The database could not check the credentials (out of reach, read-only, full): the request is answered with
     * that 503 once the rate limit has counted it, so the answer carries the RateLimit headers like any other.
     */
    credentialCheckFailure: unknown;
  }
  interface FastifyInstance {
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    authorizeAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /**
     * Authenticates, and refuses with 403 EMAIL_NOT_VERIFIED an account whose address is not proven yet, while the
     * service proves addresses (mail is configured): the actions that let something act on the account's money
     * without its owner at the screen (API keys, webhooks, stakes against others).
     */
    authenticateVerified: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

export const API_KEY_PREFIX = 'pmx_live_';
export const SESSION_PREFIX = 'pmx_sess_';

export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Secrets carry 256 random bits, so a fast hash is enough to store them safely. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * The credential a signed-in request came with, as orders record it (`apiKey:<id>`, `session:<id>`): its dead man's
 * switch covers the orders it places.
 */
export function credentialOf(request: FastifyRequest): string {
  const { credential } = currentUser(request);
  return `${credential.kind}:${credential.id}`;
}

/** The risk limits of the API key a request came with, which its orders are held to (null: none). */
export function keyLimitsOf(request: FastifyRequest): KeyLimits | null {
  return currentUser(request).credential.permissions?.limits ?? null;
}

/** The signed-in user of a route that requires one (the route's onRequest hook has checked it). */
export function currentUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new UnauthenticatedError();
  return request.user;
}

export const authPlugin = fp<{ resolve: CredentialResolver; verifyingAddresses: boolean }>(
  async (app: FastifyInstance, { resolve, verifyingAddresses }) => {
    app.decorateRequest('user', null);
    app.decorateRequest('badCredentials', false);
    app.decorateRequest('credentialCheckFailure', null);

    app.addHook('onRequest', async (request) => {
      const token = bearerOf(request);
      if (token === null) return;
      let user: AuthUser | null = null;
      try {
        user = token.length > 0 && token.length <= 200 ? await resolve(token, request.ip) : null;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        request.credentialCheckFailure = error;
        return;
      }
      if (user) request.user = user;
      else request.badCredentials = true;
    });

    app.decorate('authenticate', async (request: FastifyRequest) => {
      if (!request.user) {
        throw new UnauthenticatedError(
          request.badCredentials ? 'Invalid, expired or revoked API key or session token' : undefined,
        );
      }
      if (request.user.suspended) throw new AccountSuspendedError();
      const { permissions } = request.user.credential;
      if (permissions) {
        const routeUrl = request.routeOptions.url ?? request.url;
        checkKeyPermissions(permissions, { method: request.method, routeUrl, address: request.ip });
      }
    });

    app.decorate('authorizeAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
      await app.authenticate(request, reply);
      if (request.user?.role !== 'admin') throw new ForbiddenError('Admin role required');
    });

    app.decorate('authenticateVerified', async (request: FastifyRequest, reply: FastifyReply) => {
      await app.authenticate(request, reply);
      if (verifyingAddresses && !request.user?.emailVerified) throw new EmailNotVerifiedError();
    });
  },
  { name: 'auth' },
);
