import { createHash } from 'node:crypto';
import { orderWorstCase } from '../../exchange/collateral.js';
import type { MarketNeed } from './collateral.js';
import type { BookRequest, OrderRequest } from './types.js';

/** An order's request to the pipeline, with its idempotency key (only a keyed request is ever compared). */
export function placeRequest(userId: number, request: OrderRequest, key: string | null): BookRequest {
  return { type: 'place', userId, request, key, requestHash: key ? hashRequest(request) : '' };
}

/** What an order may spend at worst, set aside before it queues (nothing for a sale). */
export function orderNeed(request: OrderRequest, feeBps: number): MarketNeed {
  return { market: `option:${request.optionId}`, cents: orderWorstCase(request, feeBps) };
}

/** The key an order is idempotent under without an Idempotency-Key: its clientOrderId, if any. */
export function clientOrderKey(request: OrderRequest): string | null {
  return request.clientOrderId ? `clientOrderId:${request.clientOrderId}` : null;
}

export function hashRequest(request: OrderRequest): string {
  return hashOf([
    request.optionId,
    request.kind,
    request.side,
    request.action,
    request.quantity,
    request.priceCents,
    request.expiresInHours ?? null,
    request.clientOrderId ?? null,
    // Absent on the requests keyed before they existed, so that their stored fingerprints still match.
    ...(request.timeInForce || request.postOnly || request.expiresAt
      ? [request.timeInForce ?? null, request.postOnly ?? false, request.expiresAt?.getTime() ?? null]
      : []),
  ]);
}

/** The fingerprint of a request an idempotency key is compared by. */
export function hashOf(canonical: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
