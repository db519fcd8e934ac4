import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, IdString, Page, PageQuery } from '../../platform/http.js';
import type { Markets } from '../markets/module.js';
import { DisputeView, EventDetail, OutcomeSchema } from '../markets/schemas.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

const Outcomes = Type.Array(
  Type.Object({ optionId: IdString, outcome: OutcomeSchema }, { additionalProperties: false }),
  {
    minItems: 1,
    maxItems: 50,
  },
);

/** An event's resolution, and the disputes of it that operators uphold (new outcomes) or reject. */
export const adminResolutionRoutes: FastifyPluginAsyncTypebox<{ markets: Markets }> = async (
  app,
  { markets },
) => {
  app.post(
    '/api/admin/events/:id/resolve',
    {
      schema: {
        tags,
        security,
        summary: 'Resolve an event: YES, NO or VOID for every option',
        description:
          'Closes the event first if it is open. Settlement follows after DISPUTE_WINDOW_HOURS unless a dispute is ' +
          'pending. An exclusive event resolves with exactly one option YES and every other NO, or every option ' +
          'VOID; anything else is 400 VALIDATION_FAILED with the reason.',
        params: IdParams,
        body: Type.Object({ outcomes: Outcomes }, { additionalProperties: false }),
        response: { 200: EventDetail, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => markets.lifecycle.resolveEvent(Number(request.params.id), request.body.outcomes),
  );

  app.get(
    '/api/admin/disputes',
    {
      schema: {
        tags,
        security,
        summary: 'Disputes, newest first',
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('pending'), Type.Literal('upheld'), Type.Literal('rejected')]),
          ),
          ...PageQuery,
        }),
        response: {
          200: Page(Type.Composite([DisputeView, Type.Object({ username: Type.String() })])),
          ...errors(400, 401, 403),
        },
      },
    },
    async (request) =>
      markets.disputes.listDisputes(
        request.query.status ?? null,
        request.query.limit ?? 50,
        request.query.cursor,
      ),
  );

  app.post(
    '/api/admin/disputes/:id/decide',
    {
      schema: {
        tags,
        security,
        summary: 'Uphold or reject a dispute',
        description:
          'Upholding replaces the outcomes (give them in `outcomes`) before anything is paid and restarts the ' +
          'dispute window; rejecting lets settlement proceed. The disputer is notified.',
        params: IdParams,
        body: Type.Object(
          {
            decision: Type.Union([Type.Literal('upheld'), Type.Literal('rejected')]),
            note: Type.Optional(Type.String({ maxLength: 2000 })),
            outcomes: Type.Optional(Outcomes),
          },
          { additionalProperties: false },
        ),
        response: { 200: DisputeView, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      markets.disputes.decideDispute(currentUser(request).userId, Number(request.params.id), request.body),
  );
};
