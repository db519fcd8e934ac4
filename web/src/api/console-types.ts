/**
 * Shapes of the operators' console and of the trader screens for reports, suggestions and copy trading: aliases of
 * the generated client's types, like `types.ts`, never hand-copied.
 */
import type { components, operations } from '../../../clients/typescript/src/index.js';

type Schemas = components['schemas'];
/** The JSON body an operation answers with on 200. */
type Answer<Operation extends keyof operations> = operations[Operation] extends {
  responses: Record<200, { content: { 'application/json': infer Body } }>;
}
  ? Body
  : never;

export type SignedInSession = Answer<'listSessions'>['data'][number];
export type SettlementPreview = Answer<'adminPreviewSettlement'>;
export type Outcome = SettlementPreview['options'][number]['outcome'];
export type Dispute = Schemas['Dispute'];
export type AdminReport = Schemas['AdminReport'];
export type ReportTarget = AdminReport['targetType'];
export type Suggestion = Schemas['MarketSuggestion'];
export type Flag = Schemas['Flag'];
export type CopyFollow = Schemas['CopyLeader'];
export type Delivery = Schemas['WebhookDelivery'];
export type AdminDelivery = Schemas['AdminWebhookDelivery'];
export type CreateEventRequest = operations['adminCreateEvent']['requestBody']['content']['application/json'];
export type Operator = Answer<'adminListOperators'>['data'][number];
export type AdminAction = Answer<'adminListActions'>['data'][number];
