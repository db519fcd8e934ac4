import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, IdString, Page, PageQuery } from '../../platform/http.js';
import type { InvariantResult } from '../ledger/audit.js';
import type { Markets } from '../markets/module.js';
import { DisputeView, EventDetail, EventSummary, OutcomeSchema } from '../markets/schemas.js';

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

const Outcomes = Type.Array(
  Type.Object({ optionId: IdString, outcome: OutcomeSchema }, { additionalProperties: false }),
  {
    minItems: 1,
    maxItems: 50,
  },
);

const SettlementPreview = Type.Object({
  eventId: IdString,
  holders: Type.Integer({ minimum: 0, description: 'How many accounts hold shares of any option' }),
  payoutCents: Type.Integer({ minimum: 0, description: 'Paid to those holders in all' }),
  housePayoutCents: Type.Integer({
    minimum: 0,
    description: 'Paid to the house: its market maker and, in an exclusive event, its conversion pool',
  }),
  disputePending: Type.Boolean({ description: 'Settling is refused (409 DISPUTE_PENDING) while true' }),
  options: Type.Array(
    Type.Object({
      optionId: IdString,
      label: Type.String(),
      outcome: OutcomeSchema,
      holders: Type.Integer({ minimum: 0 }),
      payoutCents: Type.Integer({ minimum: 0 }),
      housePayoutCents: Type.Integer({ minimum: 0 }),
    }),
  ),
});

const AuditResult = Type.Object({
  ok: Type.Boolean({ description: 'Every invariant holds' }),
  checkedAt: Type.String({ format: 'date-time' }),
  invariants: Type.Array(
    Type.Object({
      invariant: Type.String(),
      ok: Type.Boolean(),
      violations: Type.Array(Type.String(), { description: 'At most 20 offending rows per check' }),
    }),
  ),
});

export const adminRoutes: FastifyPluginAsyncTypebox<{
  markets: Markets;
  audit: () => Promise<InvariantResult[]>;
}> = async (app, { markets, audit }) => {
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
    markets.lifecycle.openEvent(id),
  );
  transition(
    'close',
    'Close trading',
    'No new orders; every open order is cancelled and its reservation released. Events also close by themselves at closesAt.',
    (id) => markets.lifecycle.closeEvent(id),
  );
  transition(
    'settle',
    'Settle now',
    'Pays every holder from escrow: 100 per winning share, 50 per share of either side for VOID. Normally a job ' +
      'settles after the dispute window; this skips the rest of the window. 409 DISPUTE_PENDING while a dispute is pending.',
    (id) => markets.lifecycle.settleEvent(id),
  );

  app.get(
    '/api/admin/events/:id/settlement-preview',
    {
      schema: {
        tags,
        security,
        summary: 'What settling a resolved event would pay',
        description:
          'Per option and in all: how much would be paid to how many holders, and to the house maker, by the ' +
          'same rule as settlement. Nothing is paid. 409 INVALID_TRANSITION unless the event is resolved.',
        params: IdParams,
        response: { 200: SettlementPreview, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => markets.lifecycle.settlementPreview(Number(request.params.id)),
  );

  app.get(
    '/api/admin/audit',
    {
      schema: {
        tags,
        security,
        summary: 'Check the ledger invariants now',
        description:
          'Runs the checks of `npm run audit` on the live database: postings balance, no negative user balance, ' +
          'shares match escrow, reservations match open orders. Read-only.',
        response: { 200: AuditResult, ...errors(401, 403) },
      },
    },
    async () => {
      const invariants = await audit();
      return { ok: invariants.every((i) => i.ok), checkedAt: new Date().toISOString(), invariants };
    },
  );

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
