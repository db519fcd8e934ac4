import { ValidationError } from '../../platform/errors.js';
import type { OrderRequest, TimeInForce } from './types.js';

/** How far ahead a good-till-date order may expire: as far as `expiresInHours` reaches. */
export const MAX_EXPIRY_HOURS = 720;

/**
 * The rules of an order's terms that no schema states: a quantity within the configured bound, an expiry only with
 * GTD (and GTD only with an expiry, given one way, in the future and at most 720 hours ahead), post-only only on an
 * order that may rest. Throws a 400 naming the field.
 */
export function checkOrderTerms(order: OrderRequest, maxQuantity: number, now: Date): void {
  if (order.quantity > maxQuantity) refuse('quantity', `must be <= ${maxQuantity}`);
  if (order.kind === 'market') return;
  const { timeInForce, expiresAt, expiresInHours } = order;
  if (expiresAt !== undefined && expiresInHours !== undefined)
    refuse('expiresAt', 'send either expiresAt or expiresInHours, not both');
  const expiring = expiresAt !== undefined || expiresInHours !== undefined;
  if (expiring && timeInForce !== undefined && timeInForce !== 'GTD')
    refuse('timeInForce', 'an expiry needs timeInForce GTD (or no timeInForce)');
  if (timeInForce === 'GTD' && !expiring) refuse('expiresAt', 'GTD needs expiresAt or expiresInHours');
  if (expiresAt !== undefined) {
    if (Number.isNaN(expiresAt.getTime())) refuse('expiresAt', 'must be a date-time');
    if (expiresAt.getTime() <= now.getTime()) refuse('expiresAt', 'must be in the future');
    if (expiresAt.getTime() > now.getTime() + MAX_EXPIRY_HOURS * 3_600_000)
      refuse('expiresAt', `must be at most ${MAX_EXPIRY_HOURS} hours ahead`);
  }
  if (order.postOnly && !restsWith(timeInForce))
    refuse('postOnly', 'a post-only order must be able to rest: timeInForce GTC or GTD');
}

function restsWith(timeInForce: TimeInForce | undefined): boolean {
  return timeInForce === undefined || timeInForce === 'GTC' || timeInForce === 'GTD';
}

function refuse(field: string, message: string): never {
  throw new ValidationError(`${field} ${message}`, [{ field: `body.${field}`, message }]);
}
