import type { FastifyInstance } from 'fastify';
import type { OperatorsService } from './operators.js';

/**
 * At start, while no account is admin: a one-time bootstrap token in the log (unless the operator configured one),
 * with the two ways to become the first operator.
 */
export async function offerBootstrap(
  app: FastifyInstance,
  operators: OperatorsService,
  configured: string | null,
  adminEmailIgnored: boolean,
): Promise<void> {
  if (adminEmailIgnored) {
    app.log.warn(
      'ADMIN_EMAIL grants nothing: make an operator with `npm run admin -- grant EMAIL` or the bootstrap token',
    );
  }
  const token = await operators.offerBootstrap(configured);
  if (token === null) return;
  app.log.warn(
    { bootstrapToken: configured === null ? token : '(ADMIN_BOOTSTRAP_TOKEN)' },
    'no account has the admin role: sign in, then POST the bootstrap token to /api/auth/admin-bootstrap as ' +
      '{"token": …} (docs/operators.md); or run `npm run admin -- grant EMAIL` with the service stopped',
  );
}
