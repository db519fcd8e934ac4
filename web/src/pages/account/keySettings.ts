import { useState } from 'react';
import type { ApiKey } from '../../api/types';

export const SCOPES = ['read', 'trade', 'cancel', 'account'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_HELP: Record<Scope, string> = {
  read: 'read markets, orders and the portfolio',
  trade: 'place and amend orders',
  cancel: 'cancel orders (a watchdog key)',
  account: 'keys, webhooks and settings',
};

/** The four limits, as typed: credits for money, whole numbers for counts; empty means none. */
export interface LimitFields {
  maxOrder: string;
  maxOpenOrders: string;
  maxPositionShares: string;
  maxDailyLoss: string;
}

export interface KeySettingsDraft {
  name: string;
  scopes: Scope[];
  /** One address or CIDR per line. */
  allowList: string;
  /** A date (yyyy-mm-dd) the key stops working at the end of, or empty for never. */
  expiresOn: string;
  limits: LimitFields;
}

const credits = (cents: number | null | undefined) => (cents == null ? '' : String(cents / 100));
const count = (value: number | null | undefined) => (value == null ? '' : String(value));

export function draftOf(key: ApiKey | null): KeySettingsDraft {
  return {
    name: key?.name ?? '',
    scopes: key ? (key.scopes as Scope[]) : [...SCOPES],
    allowList: key?.allowedCidrs?.join('\n') ?? '',
    expiresOn: key?.expiresAt ? key.expiresAt.slice(0, 10) : '',
    limits: {
      maxOrder: credits(key?.limits?.maxOrderCents),
      maxOpenOrders: count(key?.limits?.maxOpenOrders),
      maxPositionShares: count(key?.limits?.maxPositionShares),
      maxDailyLoss: credits(key?.limits?.maxDailyLossCents),
    },
  };
}

const centsOf = (text: string) => (text.trim() === '' ? undefined : Math.round(Number(text) * 100));
const integerOf = (text: string) => (text.trim() === '' ? undefined : Math.round(Number(text)));

/** The body the service takes for a key's settings: null clears the allow-list, the expiry and the limits. */
export function settingsBody(draft: KeySettingsDraft) {
  const allowedCidrs = draft.allowList
    .split(/[\s,]+/)
    .map((line) => line.trim())
    .filter(Boolean);
  const limits = {
    maxOrderCents: centsOf(draft.limits.maxOrder),
    maxOpenOrders: integerOf(draft.limits.maxOpenOrders),
    maxPositionShares: integerOf(draft.limits.maxPositionShares),
    maxDailyLossCents: centsOf(draft.limits.maxDailyLoss),
  };
  const anyLimit = Object.values(limits).some((value) => value !== undefined);
  return {
    name: draft.name.trim(),
    scopes: draft.scopes,
    allowedCidrs: allowedCidrs.length > 0 ? allowedCidrs : null,
    expiresAt: draft.expiresOn ? new Date(`${draft.expiresOn}T23:59:59Z`).toISOString() : null,
    limits: anyLimit ? limits : null,
  };
}

/** A key's settings being typed, from a key being edited or the defaults of a new one. */
export function useKeySettings(key: ApiKey | null) {
  const [draft, setDraft] = useState<KeySettingsDraft>(() => draftOf(key));
  return {
    draft,
    set: (change: Partial<KeySettingsDraft>) => setDraft((current) => ({ ...current, ...change })),
    setLimit: (field: keyof LimitFields, value: string) =>
      setDraft((current) => ({ ...current, limits: { ...current.limits, [field]: value } })),
    toggleScope: (scope: Scope) =>
      setDraft((current) => ({
        ...current,
        scopes: current.scopes.includes(scope)
          ? current.scopes.filter((s) => s !== scope)
          : SCOPES.filter((s) => s === scope || current.scopes.includes(s)),
      })),
    reset: () => setDraft(draftOf(key)),
  };
}
export type KeySettings = ReturnType<typeof useKeySettings>;
