import type { KeyLimits } from '../../exchange/key-limits.js';
import type { AuthUser } from '../../platform/auth.js';
import { ValidationError } from '../../platform/errors.js';
import { normaliseCidr, SCOPES, type Scope } from '../../platform/scopes.js';
import type { KeySettings } from './repository.js';

/** The most CIDRs one key's allow-list holds. */
export const MAX_ALLOWED_CIDRS = 20;

/** A key's settings as a client sends them (every field optional: a new key has every scope and no limits). */
export interface KeySettingsInput {
  scopes?: string[] | undefined;
  allowedCidrs?: string[] | null | undefined;
  expiresAt?: string | null | undefined;
  limits?: Partial<KeyLimits> | null | undefined;
}

/**
 * Checks and settles a key's settings over what it has now (`current`; a new key: every scope, nothing else). A key
 * may only be given scopes the credential making the change has: an API key cannot mint a stronger one.
 */
export function settleKeySettings(
  input: KeySettingsInput,
  current: KeySettings,
  by: AuthUser,
  now: Date,
): KeySettings {
  const scopes = input.scopes === undefined ? current.scopes : uniqueScopes(input.scopes);
  const granted = by.credential.permissions?.scopes ?? SCOPES;
  const beyond = scopes.filter((scope) => !granted.includes(scope));
  if (beyond.length > 0)
    throw problem('scopes', `may not include ${beyond.join(', ')}: the credential making it lacks them`);
  return {
    scopes,
    allowedCidrs: input.allowedCidrs === undefined ? current.allowedCidrs : cidrsOf(input.allowedCidrs),
    expiresAt: input.expiresAt === undefined ? current.expiresAt : expiryOf(input.expiresAt, now),
    limits: input.limits === undefined ? current.limits : limitsOf(input.limits),
  };
}

function uniqueScopes(values: string[]): Scope[] {
  const known = values.filter((value): value is Scope => (SCOPES as readonly string[]).includes(value));
  if (known.length !== values.length) throw problem('scopes', `must name only ${SCOPES.join(', ')}`);
  if (known.length === 0) throw problem('scopes', 'must name at least one scope');
  return SCOPES.filter((scope) => known.includes(scope));
}

function cidrsOf(values: string[] | null): string[] | null {
  if (values === null || values.length === 0) return null;
  if (values.length > MAX_ALLOWED_CIDRS)
    throw problem('allowedCidrs', `may hold at most ${MAX_ALLOWED_CIDRS}`);
  return values.map((value) => {
    const cidr = normaliseCidr(value.trim());
    if (!cidr) throw problem('allowedCidrs', `${value} is not an address or a CIDR`);
    return cidr;
  });
}

function expiryOf(value: string | null, now: Date): Date | null {
  if (value === null) return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || at <= now) throw problem('expiresAt', 'must be a time in the future');
  return at;
}

function limitsOf(value: Partial<KeyLimits> | null): KeyLimits | null {
  if (value === null) return null;
  const limits: KeyLimits = {
    maxOrderCents: value.maxOrderCents ?? null,
    maxOpenOrders: value.maxOpenOrders ?? null,
    maxPositionShares: value.maxPositionShares ?? null,
    maxDailyLossCents: value.maxDailyLossCents ?? null,
  };
  return Object.values(limits).every((limit) => limit === null) ? null : limits;
}

function problem(field: string, message: string): ValidationError {
  return new ValidationError(`${field} ${message}`, [{ field: `body.${field}`, message }]);
}

/** What a key made before scopes existed, or made without any setting, has. */
export const FULL_ACCESS: KeySettings = {
  scopes: [...SCOPES],
  allowedCidrs: null,
  expiresAt: null,
  limits: null,
};
