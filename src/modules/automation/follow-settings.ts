import { ValidationError } from '../../platform/errors.js';
import type { FollowRow, FollowSettings } from './copy-repository.js';

export const COPY_RULES = {
  maxFollows: 20,
  defaultMaxQuantityPerTrade: 100,
  defaultDailyLimitCents: 10_000,
  /** A mirror not placed this long after the leader's trade is skipped: the market has moved on. */
  staleAfterMinutes: 15,
} as const;

export type SizingInput =
  | { mode: 'fixed'; quantity: number }
  | { mode: 'fraction'; fraction?: number | undefined; fractionBps?: number | undefined };

export interface FollowInput {
  leaderId?: string | undefined;
  leaderUsername?: string | undefined;
  sizing?: SizingInput | undefined;
  maxQuantityPerTrade?: number | undefined;
  dailyLimitCents?: number | undefined;
  enabled?: boolean | undefined;
}

/** A follow's settings from what was asked, over what it had (a new follow must name its sizing). */
export function settingsFrom(input: FollowInput, existing: FollowRow | undefined): FollowSettings {
  let sizingMode = existing?.sizing_mode;
  let fixedQuantity = existing?.fixed_quantity ?? null;
  let fractionBps = existing?.fraction_bps ?? null;
  if (input.sizing) {
    sizingMode = input.sizing.mode;
    if (input.sizing.mode === 'fixed') {
      fixedQuantity = input.sizing.quantity;
      fractionBps = null;
    } else {
      fractionBps = fractionToBps(input.sizing);
      fixedQuantity = null;
    }
  }
  if (sizingMode === undefined) {
    throw new ValidationError('sizing is required when you start copying a trader', [
      { field: 'body.sizing', message: 'is required' },
    ]);
  }
  return {
    sizingMode,
    fixedQuantity,
    fractionBps,
    maxQuantityPerTrade:
      input.maxQuantityPerTrade ?? existing?.max_quantity_per_trade ?? COPY_RULES.defaultMaxQuantityPerTrade,
    dailyLimitCents:
      input.dailyLimitCents ?? existing?.daily_limit_cents ?? COPY_RULES.defaultDailyLimitCents,
    enabled: input.enabled ?? existing?.enabled ?? true,
  };
}

function fractionToBps(sizing: { fraction?: number | undefined; fractionBps?: number | undefined }): number {
  if ((sizing.fraction === undefined) === (sizing.fractionBps === undefined)) {
    throw new ValidationError(
      'A fraction sizing takes fraction (0 < f ≤ 1) or fractionBps (1..10000), one of them',
      [{ field: 'body.sizing.fraction', message: 'or fractionBps is required (not both)' }],
    );
  }
  const bps = sizing.fractionBps ?? Math.round((sizing.fraction as number) * 10_000);
  if (bps < 1) {
    throw new ValidationError('fraction must be at least 0.0001', [
      { field: 'body.sizing.fraction', message: 'is below 0.0001' },
    ]);
  }
  return bps;
}

export function startOfUtcDay(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function toFollowView(row: FollowRow, leaderUsername: string, usedTodayCents: number) {
  return {
    leaderId: String(row.leader_id),
    leaderUsername,
    sizing:
      row.sizing_mode === 'fixed'
        ? { mode: 'fixed' as const, quantity: row.fixed_quantity as number }
        : {
            mode: 'fraction' as const,
            fractionBps: row.fraction_bps as number,
            fraction: (row.fraction_bps as number) / 10_000,
          },
    maxQuantityPerTrade: row.max_quantity_per_trade,
    dailyLimitCents: row.daily_limit_cents,
    usedTodayCents,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
