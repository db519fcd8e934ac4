import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InvariantResult } from '../ledger/audit.js';
import type { Markets } from '../markets/module.js';
import { adminAuditRoutes } from './audit-routes.js';
import { adminEventRoutes } from './event-routes.js';
import { adminLifecycleRoutes } from './lifecycle-routes.js';
import { adminResolutionRoutes } from './resolution-routes.js';
import { adminStatusRoutes } from './status-routes.js';

/**
 * The operators' routes over markets, for admins only, one plugin per resource: events (event-routes.ts), their
 * lifecycle (lifecycle-routes.ts), the ledger audit (audit-routes.ts), resolutions and disputes
 * (resolution-routes.ts) and trading status (status-routes.ts). Registered in this order, which is the API
 * document's.
 */
export const adminRoutes: FastifyPluginAsyncTypebox<{
  markets: Markets;
  audit: () => Promise<InvariantResult[]>;
}> = async (app, { markets, audit }) => {
  app.addHook('onRequest', app.authorizeAdmin);
  await app.register(adminEventRoutes, { markets });
  await app.register(adminLifecycleRoutes, { markets });
  await app.register(adminAuditRoutes, { audit });
  await app.register(adminResolutionRoutes, { markets });
  await app.register(adminStatusRoutes, { markets });
};
