import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors, IdParams, IdString } from '../../platform/http.js';
import type { Markets } from '../markets/module.js';
import { EventDetail, OutcomeSchema } from '../markets/schemas.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

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

/** An event's life by hand: opened, closed, settled now, and what settling it would pay. */
export const adminLifecycleRoutes: FastifyPluginAsyncTypebox<{ markets: Markets }> = async (
  app,
  { markets },
) => {
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
};
