import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors, IdParams, IdString, Page, PageQuery } from '../../platform/http.js';
import type { Markets } from '../markets/module.js';
import { EventDetail, EventSummary } from '../markets/schemas.js';

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
          'LMSR liquidity b of this option’s house market maker in cents (0 = none); its worst-case loss is ' +
          'b·ln(1 / min(p, 1 − p)) for a starting price p (b·ln 2 from 50). Not for an exclusive event, whose ' +
          'options share the event’s one maker (`liquidityCents` on the event)',
      }),
    ),
    initialPriceCents: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99,
        description:
          'Starting YES price of the house maker (default 50). In an exclusive event, the option’s starting ' +
          'chance: the prices of all options are taken as shares of 100 % (give all or none; none = even odds)',
      }),
    ),
  },
  { additionalProperties: false },
);

const EventLiquidity = Type.Integer({
  minimum: 0,
  maximum: 100_000_000,
  description:
    'Exclusive events only: LMSR liquidity b in cents of the event’s one house maker, which quotes every option ' +
    '(0 = none). Its worst-case loss is b·ln(1 / the smallest starting chance): b·ln n for n options at even odds. ' +
    'On PATCH, only while a draft',
});

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
    exclusive: Type.Optional(
      Type.Boolean({
        description:
          'Exactly one option resolves YES ("who wins?"): the options trade as one market with one house maker, ' +
          'chances that add up to 100 %, and conversions between them. Needs at least two options; a catch-all ' +
          'option ("Any other team") keeps it exhaustive. Fixed once the event opens. Default false',
      }),
    ),
    liquidityCents: Type.Optional(EventLiquidity),
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
    exclusive: Type.Optional(
      Type.Boolean({ description: 'Only while a draft: whether exactly one option resolves YES' }),
    ),
    liquidityCents: Type.Optional(EventLiquidity),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** Operators' events: listed (drafts included), created, and edited while draft or open. */
export const adminEventRoutes: FastifyPluginAsyncTypebox<{ markets: Markets }> = async (app, { markets }) => {
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
      markets.catalogue.adminList(request.query.limit ?? 50, request.query.cursor, request.query.status),
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
    async (request, reply) => reply.status(201).send(await markets.editing.createEvent(request.body)),
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
    async (request) => markets.catalogue.adminView(Number(request.params.id)),
  );

  app.patch(
    '/api/admin/events/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Edit a draft or open event',
        description:
          'Title, description, category, featured, resolution source and closing time while draft or open; ' +
          '`exclusive` and `liquidityCents` only while a draft (409 INVALID_TRANSITION after): the house maker then ' +
          'opens at the chances the draft shows.',
        params: IdParams,
        body: PatchEventBody,
        response: { 200: EventDetail, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { closesAt, ...rest } = request.body;
      return markets.editing.updateEvent(Number(request.params.id), {
        ...rest,
        ...(closesAt !== undefined ? { closesAt: new Date(closesAt) } : {}),
      });
    },
  );

  app.patch(
    '/api/admin/events/:id/options/:optionId',
    {
      schema: {
        tags,
        security,
        summary: 'Edit an option of a draft: label, house liquidity, starting price',
        description:
          'Only before the event opens (409 INVALID_TRANSITION after), so nothing has traded it: this is how an ' +
          'approved market suggestion, created without liquidity, gets its house market maker. The starting ' +
          'price stays where it is unless `initialPriceCents` is given.',
        params: Type.Object({ id: IdString, optionId: IdString }),
        body: Type.Object(
          {
            label: Type.Optional(NewOption.properties.label),
            liquidityCents: Type.Optional(NewOption.properties.liquidityCents),
            initialPriceCents: Type.Optional(NewOption.properties.initialPriceCents),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: EventDetail, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      markets.editing.updateDraftOption(
        Number(request.params.id),
        Number(request.params.optionId),
        request.body,
      ),
  );
};
