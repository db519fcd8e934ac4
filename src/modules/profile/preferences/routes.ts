import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors } from '../../../platform/http.js';
import { BIO_MAX_LENGTH, PreferencesBody, PreferencesPatch } from './schemas.js';
import type { PreferencesService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const preferencesRoutes: FastifyPluginAsyncTypebox<{ preferences: PreferencesService }> = async (
  app,
  { preferences },
) => {
  app.get(
    '/api/me/preferences',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your preferences',
        description:
          'Display name, bio, dark mode, time zone, notification categories and avatar URL. A user who ' +
          'never changed anything gets the defaults (notifications on except marketing).',
        response: { 200: PreferencesBody, ...errors(401) },
      },
    },
    async (request) => preferences.get(currentUser(request).userId),
  );

  app.patch(
    '/api/me/preferences',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Change some preferences',
        description:
          'Partial update: send only the fields to change (at least one); returns all preferences. ' +
          `\`bio\` at most ${BIO_MAX_LENGTH} characters (trimmed); \`displayName\` 1..50 characters or null; ` +
          '`timezone` an IANA name or null; `notifications` any of trades, social, competitions, marketing. ' +
          'Unknown fields, a blank display name or an unknown time zone: 400 VALIDATION_FAILED.',
        body: PreferencesPatch,
        response: { 200: PreferencesBody, ...errors(400, 401) },
      },
    },
    async (request) => preferences.update(currentUser(request).userId, request.body),
  );
};
