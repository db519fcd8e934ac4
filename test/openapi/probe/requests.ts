/**
 * Requests the service refuses are type errors in the generated client (each `@ts-expect-error` must meet one), and
 * the answers' closed sets of values are types a client can switch over. Compiled by probe.test.ts under --strict.
 */
import type { components, operations } from '../../../clients/typescript/src/index.js';

type Schemas = components['schemas'];
type ConvertBody = operations['convertShares']['requestBody']['content']['application/json'];

export const convert: ConvertBody = { type: 'convert', quantity: 10, optionIds: ['12'] };
export const split: ConvertBody = { type: 'split', quantity: 5 };
export const merge: ConvertBody = { type: 'merge', quantity: 5 };

// @ts-expect-error a convert names the options whose NO it gives
export const convertWithoutOptions: ConvertBody = { type: 'convert', quantity: 10 };
// @ts-expect-error a split takes every option and names none
export const splitWithOptions: ConvertBody = { type: 'split', quantity: 5, optionIds: ['12'] };
// @ts-expect-error a merge takes every option and names none
export const mergeWithOptions: ConvertBody = { type: 'merge', quantity: 5, optionIds: ['12'] };
// @ts-expect-error no such conversion
export const unknownConversion: ConvertBody = { type: 'swap', quantity: 5 };

type CancelReason = NonNullable<Schemas['Order']['cancelReason']>;
export const reasons: CancelReason[] = [
  'cancelled_by_user',
  'self_trade_prevented',
  'unfilled_remainder',
  'market_closed',
  'expired',
  'replaced',
  'heartbeat_lapsed',
];
// @ts-expect-error not a reason the service gives
export const unknownReason: CancelReason = 'cancelled';

/** Every cancel reason handled: a reason added to the contract breaks this switch until it is handled too. */
export function describe(reason: CancelReason): string {
  switch (reason) {
    case 'cancelled_by_user':
    case 'self_trade_prevented':
    case 'unfilled_remainder':
    case 'market_closed':
    case 'expired':
    case 'replaced':
    case 'heartbeat_lapsed':
      return reason;
    default: {
      const unhandled: never = reason;
      return unhandled;
    }
  }
}

type MarketCancel = Schemas['CancelAllResult']['markets'][number];
export const refused: MarketCancel = {
  optionId: '12',
  status: 503,
  cancelledCount: 0,
  refusedCount: 2,
  error: { error: 'busy', code: 'OPTION_BUSY' },
};
// @ts-expect-error a market's result says how many orders it left resting
export const withoutCounts: MarketCancel = { optionId: '12', status: 200, cancelledCount: 1 };

type BatchItem = Schemas['BatchOrderResult'];
export const busy: BatchItem = { status: 503, error: { error: 'busy', code: 'OPTION_BUSY' } };
export const tooPoor: BatchItem = { status: 402, error: { error: 'funds', code: 'INSUFFICIENT_FUNDS' } };
// @ts-expect-error not a code an order of a batch is refused with
export const unknownItemCode: BatchItem = { status: 409, error: { error: 'no', code: 'NOT_A_CODE' } };
// @ts-expect-error a batch's order is refused for itself, never for the whole batch's key
export const itemMismatch: BatchItem = { status: 409, error: { error: 'key', code: 'IDEMPOTENCY_MISMATCH' } };
// @ts-expect-error an order of a batch holds its order or its error
export const emptyItem: BatchItem = { status: 201 };

/** An order of a batch is its order or its error: the type says which, and each code is one of a known set. */
export function placedOrRefused(item: BatchItem): string {
  return 'order' in item ? item.order.id : item.error.code;
}
