import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { decodeCursor, errors, IdString, Page, PageQuery } from '../../platform/http.js';
import { SECURITY_EVENT_KINDS, type SecurityLog } from './security-log.js';

const SecurityEvent = Type.Object({
  id: IdString,
  kind: Type.Union(
    SECURITY_EVENT_KINDS.map((kind) => Type.Literal(kind)),
    {
      description:
        'account_created; login (details.method: password, password+totp, password+recovery_code, ' +
        'password+passkey, passkey); login_challenged (the password was right, a second factor was asked); ' +
        'login_failed (details.step: password, totp, recovery_code, passkey); login_throttled; rate_limited; ' +
        'session_ended; password_changed; password_reset; email_verified; api_key_created, api_key_changed, ' +
        'api_key_revoked; totp_added, totp_removed; passkey_added, passkey_removed; factor_verified; ' +
        'password_check_failed (a signed-in request carried a wrong current password; details.action: ' +
        'password_change, totp_added, passkey_added)',
    },
  ),
  at: Type.String({ format: 'date-time' }),
  address: Type.Union([Type.String(), Type.Null()], { description: 'The address the request came from' }),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
});

/** The account's security log. */
export const securityLogRoutes: FastifyPluginAsyncTypebox<{ log: SecurityLog }> = async (app, { log }) => {
  app.get(
    '/api/me/security-log',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['Account'],
        security: [{ bearerAuth: [] }],
        summary: 'The account’s security log, newest first',
        description:
          'Sign-ins and failed ones (a failure is logged to the account whose email, challenge or passkey it ' +
          'named), sessions ended, keys made, changed and revoked, factors added, removed and proved, password ' +
          'and address changes, and throttling (at most one entry of each throttling kind a minute), each with ' +
          'the address and user agent of the request.',
        querystring: Type.Object(PageQuery),
        response: { 200: Page(SecurityEvent), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      return log.list(currentUser(request).userId, limit, cursor ? Number(cursor[0]) : null);
    },
  );
};
