import type { ConversionKind } from '../../lib/conversions';
import { listInWords } from '../../lib/conversions';
import { formatCredits, formatNumber } from '../../lib/format';

export const KIND_LABELS: Record<ConversionKind, string> = {
  convert: 'Convert No',
  merge: 'Merge',
  split: 'Split',
};

interface Leg {
  optionLabel: string;
  side: 'YES' | 'NO';
  quantity: number;
}

/** Shares in words: "10 No India and 10 No Australia", or "10 Yes of every option" for a whole set. */
function sharesInWords(legs: Leg[], optionCount: number): string {
  const first = legs[0];
  const wholeSet =
    first !== undefined &&
    optionCount > 1 &&
    legs.length === optionCount &&
    legs.every((leg) => leg.side === first.side && leg.quantity === first.quantity);
  if (first && wholeSet)
    return `${formatNumber(Math.abs(first.quantity))} ${first.side === 'YES' ? 'Yes' : 'No'} of every option`;
  return listInWords(
    legs.map(
      (leg) =>
        `${formatNumber(Math.abs(leg.quantity))} ${leg.side === 'YES' ? 'Yes' : 'No'} ${leg.optionLabel}`,
    ),
  );
}

/** What a conversion gives and gets, in words, from its legs and cash (negative: paid). */
export function describeConversion(legs: Leg[], cashCents: number, optionCount: number) {
  const given = legs.filter((leg) => leg.quantity < 0);
  const got = legs.filter((leg) => leg.quantity > 0);
  const give = [
    ...(given.length > 0 ? [sharesInWords(given, optionCount)] : []),
    ...(cashCents < 0 ? [formatCredits(-cashCents)] : []),
  ];
  const get = [
    ...(got.length > 0 ? [sharesInWords(got, optionCount)] : []),
    ...(cashCents > 0 ? [formatCredits(cashCents)] : []),
  ];
  return { give: give.join(' and '), get: get.join(' and ') };
}

/** The line that says what a conversion does, in a trader's words. */
export function headline(
  conversion: {
    kind: ConversionKind | undefined;
    quantity: number;
    cashCents: number;
    givenIds: string[];
    givenLabels: string[];
  },
  optionCount: number,
): string {
  const { kind, cashCents } = conversion;
  const shares = formatNumber(conversion.quantity);
  if (kind === 'split') return `Pay ${formatCredits(-cashCents)} for ${shares} Yes of every option`;
  if (kind === 'merge') return `Turn ${shares} Yes of every option into ${formatCredits(cashCents)}`;
  const your = `Turn your ${shares} No ${listInWords(conversion.givenLabels)}`;
  if (conversion.givenIds.length === optionCount) return `${your} into ${formatCredits(cashCents)}`;
  const cash = cashCents > 0 ? ` and ${formatCredits(cashCents)}` : '';
  return `${your} into ${shares} Yes on every other option${cash}`;
}
