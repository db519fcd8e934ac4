import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, IdString, Page, PageQuery } from '../../platform/http.js';
import { DisputeView, EventDetail, EventSummary, OutcomeSchema } from '../markets/schemas.js';
import type { MarketsService } from '../markets/service.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

const NewOption = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 120 }),
    liquidityCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000_000,
        description:
          'LMSR liquidity b of the house market maker in cents (0 = none); its worst-case loss is b·ln 2',
      }),
    ),
    initialPriceCents: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99,
        description: 'Starting YES price of the house maker (default 50)',
      }),
    ),
  },
  { additionalProperties: false },
);

const CreateEventBody = Type.Object(
  {
    slug: Type.Optional(Type.String({ pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', maxLength: 80 })),
    title: Type.String({ minLength: 3, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    category: Type.String({ minLength: 1, maxLength: 60 }),
    featured: Type.Optional(Type.Boolean()),
    resolutionSource: Type.Optional(Type.String({ maxLength: 500 })),
    closesAt: Type.String({ format: 'date-time' }),
    options: Type.Array(NewOption, { minItems: 1, maxItems: 50 }),
    open: Type.Optional(Type.Boolean({ description: 'Open for trading at once (default: stays a draft)' })),
  },
  { additionalProperties: false },
);

const PatchEventBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 3, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    featured: Type.Optional(Type.Boolean()),
    resolutionSource: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    closesAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Outcomes = Type.Array(
  Type.Object({ optionId: IdString, outcome: OutcomeSchema }, { additionalProperties: false }),
  {
    minItems: 1,
    maxItems: 50,
  },
);

export const adminRoutes: FastifyPluginAsyncTypebox<{ markets: MarketsService }> = async (
  app,
  { markets },
) => {
  app.addHook('onRequest', app.authorizeAdmin);

  app.get(
    '/api/admin/events',
    {
      schema: {
        tags,
        security,
        summary: 'All events, drafts included',
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union(['draft', 'open', 'closed', 'resolved', 'settled'].map((s) => Type.Literal(s))),
          ),
          ...PageQuery,
        }),
        response: { 200: Page(EventSummary), ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      markets.adminList(request.query.limit ?? 50, request.query.cursor, request.query.status),
  );

  app.post(
    '/api/admin/events',
    {
      schema: {
        tags,
        security,
        summary: 'Create an event with its options',
        description:
          'Created as a draft unless `open` is true. The slug defaults to one made from the title (409 SLUG_TAKEN). ' +
          'Each option may get house liquidity (`liquidityCents`, the LMSR b).',
        body: CreateEventBody,
        response: { 201: EventDetail, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await markets.createEvent(request.body)),
  );

  app.get(
    '/api/admin/events/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One event (drafts included)',
        params: IdParams,
        response: { 200: EventDetail, ...errors(401, 403, 404) },
      },
    },
    async (request) => markets.adminView(Number(request.params.id)),
  );

  app.patch(
    '/api/admin/events/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Edit a draft or open event',
        params: IdParams,
        body: PatchEventBody,
        response: { 200: EventDetail, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { closesAt, ...rest } = request.body;
      return markets.updateEvent(Number(request.params.id), {
        ...rest,
        ...(closesAt !== undefined ? { closesAt: new Date(closesAt) } : {}),
      });
    },
  );

  const transition = (
    path: string,
    summary: string,
    description: string,
    run: (id: number) => Promise<unknown>,
  ) =>
    app.post(
      `/api/admin/events/:id/${path}`,
      {
        schema: {
          tags,
          security,
          summary,
          description,
          params: IdParams,
          response: { 200: EventDetail, ...errors(401, 403, 404, 409) },
        },
      },
      async (request) => run(Number(request.params.id)) as never,
    );

  transition('open', 'Open a draft for trading', '409 INVALID_TRANSITION unless it is a draft.', (id) =>
    markets.openEvent(id),
  );
  transition(
    'close',
    'Close trading',
    'No new orders; every open order is cancelled and its reservation released. Events also close by themselves at closesAt.',
    (id) => markets.closeEvent(id),
  );
  transition(
    'settle',
    'Settle now',
    'Pays every holder from escrow: 100 per winning share, 50 per share of either side for VOID. Normally a job ' +
      'settles after the dispute window; this skips the rest of the window. 409 DISPUTE_PENDING while a dispute is pending.',
    (id) => markets.settleEvent(id),
  );

  app.post(
    '/api/admin/events/:id/resolve',
    {
      schema: {
        tags,
        security,
        summary: 'Resolve an event: YES, NO or VOID for every option',
        description:
          'Closes the event first if it is open. Settlement follows after DISPUTE_WINDOW_HOURS unless a dispute is pending.',
        params: IdParams,
        body: Type.Object({ outcomes: Outcomes }, { additionalProperties: false }),
        response: { 200: EventDetail, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => markets.resolveEvent(Number(request.params.id), request.body.outcomes),
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
      markets.listDisputes(request.query.status ?? null, request.query.limit ?? 50, request.query.cursor),
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
      markets.decideDispute(currentUser(request).userId, Number(request.params.id), request.body),
  );
};
