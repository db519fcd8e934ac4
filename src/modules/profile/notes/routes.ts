import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors, IdParams, Page } from '../../../platform/http.js';
import { CreateNoteBody, NOTE_MAX_LENGTH, Note, NotesQuery } from './schemas.js';
import type { NotesService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const notesRoutes: FastifyPluginAsyncTypebox<{ notes: NotesService }> = async (app, { notes }) => {
  app.get(
    '/api/me/trade-notes',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your private trade notes, newest first',
        description:
          'Only your own notes. `eventSlug` lists the notes filed under that market (notes on your trades ' +
          'in it included); `tradeId` those about one of your trades. An unknown market, or a trade that ' +
          'is not yours: 404.',
        querystring: NotesQuery,
        response: { 200: Page(Note), ...errors(400, 401, 404) },
      },
    },
    async (request) =>
      notes.list(currentUser(request).userId, { ...request.query, limit: request.query.limit ?? 50 }),
  );

  app.post(
    '/api/me/trade-notes',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Write a private note on one of your trades or on a market',
        description:
          `\`text\` 1..${NOTE_MAX_LENGTH} characters (trimmed) and exactly one of \`tradeId\` (one of your ` +
          'own trades) or `eventSlug`; otherwise 400. A trade that is not yours, or an unknown market: 404. ' +
          'Notes are visible only to you.',
        body: CreateNoteBody,
        response: { 201: Note, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await notes.create(currentUser(request).userId, request.body)),
  );

  app.delete(
    '/api/me/trade-notes/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Delete one of your notes',
        description: 'A note that does not exist or is not yours: 404.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await notes.remove(currentUser(request).userId, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );
};
