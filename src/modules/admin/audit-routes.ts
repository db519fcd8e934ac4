import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../platform/http.js';
import type { InvariantResult } from '../ledger/audit.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

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

/** The ledger's invariants, checked on the live database. */
export const adminAuditRoutes: FastifyPluginAsyncTypebox<{
  audit: () => Promise<InvariantResult[]>;
}> = async (app, { audit }) => {
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
};
