import ipaddr from 'ipaddr.js';
import type { KeyLimits } from '../exchange/key-limits.js';
import { AppError } from './errors.js';

/**
 * What an API key may do. `read`: every read; `trade`: place and amend orders, convert shares, the automations that
 * trade; `cancel`: cancel orders one by one or all at once (a watchdog key that can pull quotes but never place);
 * `account`: the account itself: keys, webhooks, sessions, the security log, settings and every other change.
 * Sessions, and keys made before scopes existed, have them all.
 */
export const SCOPES = ['read', 'trade', 'cancel', 'account'] as const;
export type Scope = (typeof SCOPES)[number];

/** What an API key carries beyond its user: its scopes, the addresses it may be used from, its risk limits. */
export interface KeyPermissions {
  scopes: readonly Scope[];
  /** CIDRs; null: any address. */
  allowedCidrs: readonly string[] | null;
  limits: KeyLimits | null;
}

/**
 * The scope each route needs, by method and route path, where it is not the rule: a read (GET, HEAD) needs `read`,
 * any other request `account`. One of the listed scopes is enough.
 */
const ROUTE_SCOPES: Record<string, readonly Scope[]> = {
  'POST /api/trades': ['trade'],
  'POST /api/limit-orders': ['trade'],
  'POST /api/limit-orders/batch': ['trade'],
  'POST /api/limit-orders/:id/amend': ['trade'],
  'POST /api/events/:id/conversions': ['trade'],
  'POST /api/positions/:id/protections': ['trade'],
  'DELETE /api/limit-orders/:id': ['cancel', 'trade'],
  'POST /api/limit-orders/cancel': ['cancel', 'trade'],
  'POST /api/limit-orders/cancel-all': ['cancel', 'trade'],
  // The dead man's switch cancels; a watchdog may arm it as well as the bot it watches.
  'POST /api/heartbeat': ['cancel', 'trade'],
  'DELETE /api/heartbeat': ['cancel', 'trade'],
  'POST /api/auth/logout': [...SCOPES],
  'GET /api/me/api-keys': ['account'],
  'GET /api/me/api-keys/:id': ['account'],
  'GET /api/me/sessions': ['account'],
  'GET /api/me/webhooks': ['account'],
  'GET /api/me/webhooks/:id/deliveries': ['account'],
  'GET /api/me/security-log': ['account'],
  'GET /api/me/second-factors': ['account'],
  'GET /api/me/passkeys': ['account'],
};

/** The scopes of which a request to this route needs one. */
export function scopesFor(method: string, routeUrl: string): readonly Scope[] {
  const named = ROUTE_SCOPES[`${method} ${routeUrl}`];
  if (named) return named;
  return method === 'GET' || method === 'HEAD' ? ['read'] : ['account'];
}

export class KeyScopeMissingError extends AppError {
  constructor(needs: readonly Scope[], has: readonly Scope[]) {
    super(403, 'KEY_SCOPE_MISSING', `This API key lacks the scope this needs (${needs.join(' or ')})`, {
      needs,
      has,
    });
  }
}

export class KeyAddressNotAllowedError extends AppError {
  constructor(address: string) {
    super(403, 'KEY_ADDRESS_NOT_ALLOWED', `This API key may not be used from ${address}`, { address });
  }
}

/** Refuses a key's request from an address outside its allow-list, or to a route none of its scopes covers. */
export function checkKeyPermissions(
  permissions: KeyPermissions,
  request: { method: string; routeUrl: string; address: string },
): void {
  if (permissions.allowedCidrs && !addressAllowed(request.address, permissions.allowedCidrs))
    throw new KeyAddressNotAllowedError(request.address);
  const needs = scopesFor(request.method, request.routeUrl);
  if (!needs.some((scope) => permissions.scopes.includes(scope)))
    throw new KeyScopeMissingError(needs, permissions.scopes);
}

/** Whether an address is inside one of the CIDRs (an IPv4 address mapped into IPv6 counts as IPv4). */
export function addressAllowed(address: string, cidrs: readonly string[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return cidrs.some((cidr) => {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return range.kind() === parsed.kind() && parsed.match([range, bits]);
  });
}

/** A CIDR as stored (a lone address becomes a /32 or /128), or null when it is not one. */
export function normaliseCidr(value: string): string | null {
  try {
    if (value.includes('/')) {
      const [range, bits] = ipaddr.parseCIDR(value);
      return `${range.toString()}/${bits}`;
    }
    const address = ipaddr.process(value);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return null;
  }
}
