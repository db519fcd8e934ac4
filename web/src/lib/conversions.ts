import type { Side } from '../api/types';

/**
 * Conversions between the options of an exclusive event, as the service makes them (POST
 * /api/events/{id}/conversions). Exactly one option wins, so NO on an option pays what YES on every other option
 * pays together:
 * - convert: NO on k options → YES on each other option, plus (k − 1) × 100 cents a unit;
 * - split: 100 cents a unit → YES on every option;
 * - merge: YES on every option → 100 cents a unit.
 */
export type ConversionKind = 'convert' | 'split' | 'merge';

export interface ConversionLeg {
  optionId: string;
  optionLabel: string;
  side: Side;
  /** Shares received (positive) or given (negative). */
  quantity: number;
}

export interface ConversionPreview {
  legs: ConversionLeg[];
  /** Cash received (negative: paid), in cents. */
  cashCents: number;
}

interface Holding {
  optionId: string;
  side: Side;
  quantity: number;
  reservedQuantity: number;
}

/** Shares of one option and side that may be given: those not held by open SELL orders. */
export function freeShares(holdings: Holding[], optionId: string, side: Side): number {
  const holding = holdings.find((h) => h.optionId === optionId && h.side === side);
  return holding ? Math.max(0, holding.quantity - holding.reservedQuantity) : 0;
}

/** What a conversion gives and takes, leg by leg, before it is sent. */
export function previewConversion(
  kind: ConversionKind,
  quantity: number,
  options: { id: string; label: string }[],
  givenIds: string[] = [],
): ConversionPreview {
  if (kind === 'merge') {
    return {
      legs: options.map((o) => ({ optionId: o.id, optionLabel: o.label, side: 'YES', quantity: -quantity })),
      cashCents: 100 * quantity,
    };
  }
  const given = new Set(kind === 'convert' ? givenIds : []);
  return {
    legs: options.map((o) =>
      given.has(o.id)
        ? { optionId: o.id, optionLabel: o.label, side: 'NO', quantity: -quantity }
        : { optionId: o.id, optionLabel: o.label, side: 'YES', quantity },
    ),
    cashCents: (given.size - 1) * 100 * quantity,
  };
}

/**
 * The conversions a holder can use now: NO to convert (per option, the free shares), and how many complete YES
 * sets could be merged (the fewest free YES of any option).
 */
export function conversionsOffered(
  options: { id: string; label: string }[],
  holdings: Holding[],
): { convertible: { optionId: string; label: string; free: number }[]; mergeable: number } {
  const convertible = options
    .map((o) => ({ optionId: o.id, label: o.label, free: freeShares(holdings, o.id, 'NO') }))
    .filter((o) => o.free > 0);
  const mergeable = options.length ? Math.min(...options.map((o) => freeShares(holdings, o.id, 'YES'))) : 0;
  return { convertible, mergeable };
}

/** A list in words: "A", "A and B", "A, B and C". */
export function listInWords(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
