import { useState } from 'react';
import type { MarketDetail, Position } from '../../api/types';
import { type ConversionKind, conversionsOffered, previewConversion } from '../../lib/conversions';
import { formatCredits, formatNumber } from '../../lib/format';

/**
 * The conversion being drafted, from what the holder can use now: the kinds offered (No to convert, whole Yes
 * sets to merge, credits to split), the options whose No is given, the number of shares, and what is wrong with
 * it, if anything.
 */
export function useConversionDraft(market: MarketDetail, positions: Position[], cashCents: number) {
  const [chosenKind, setKind] = useState<ConversionKind | null>(null);
  const [chosenGiven, setGiven] = useState<string[] | null>(null);
  const [typedQuantity, setTyped] = useState<{ kind: ConversionKind; value: string } | null>(null);
  const options = market.options;
  const { convertible, mergeable } = conversionsOffered(options, positions);
  const splittable = Math.floor(cashCents / 100);
  const offered: ConversionKind[] = [
    ...(convertible.length > 0 ? (['convert'] as const) : []),
    ...(mergeable > 0 ? (['merge'] as const) : []),
    ...(splittable > 0 ? (['split'] as const) : []),
  ];
  const kind = chosenKind && offered.includes(chosenKind) ? chosenKind : offered[0];
  // The options picked while they still have free No shares; at first (or once those are gone) the first that has.
  const given = (chosenGiven ?? []).filter((id) => convertible.some((o) => o.optionId === id));
  const unpicked = chosenGiven === null || (given.length === 0 && chosenGiven.length > 0);
  const givenIds = unpicked ? convertible.slice(0, 1).map((o) => o.optionId) : given;
  const givenFree = convertible.filter((o) => givenIds.includes(o.optionId)).map((o) => o.free);
  const max =
    kind === 'convert'
      ? givenFree.length
        ? Math.min(...givenFree)
        : 0
      : kind === 'merge'
        ? mergeable
        : splittable;
  const fallback = kind === 'split' ? Math.min(10, splittable) : max;
  const quantityText = kind && typedQuantity?.kind === kind ? typedQuantity.value : String(fallback);
  const quantity = Number(quantityText);
  const givenLabels = options.filter((o) => givenIds.includes(o.id)).map((o) => o.label);
  const problem = !(Number.isInteger(quantity) && quantity >= 1)
    ? 'Enter a whole number of shares, at least 1.'
    : kind === 'convert' && givenIds.length === 0
      ? 'Pick at least one option whose No shares you give.'
      : quantity <= max
        ? null
        : kind === 'convert'
          ? `You have ${formatNumber(max)} free No shares of ${givenIds.length > 1 ? 'each of those options' : givenLabels[0]}.`
          : kind === 'merge'
            ? `You have ${formatNumber(mergeable)} free Yes shares of every option.`
            : `A split of ${formatNumber(quantity)} costs ${formatCredits(quantity * 100)}, more than the ${formatCredits(cashCents)} you have available.`;
  return {
    offered,
    kind,
    convertible,
    holdsConvertible: convertible.length > 0 || mergeable > 0,
    givenIds,
    givenLabels,
    max,
    quantity,
    quantityText,
    problem,
    preview: previewConversion(kind ?? 'split', problem ? 0 : quantity, options, givenIds),
    setKind,
    setGiven,
    setQuantity: (value: string) => {
      if (kind) setTyped({ kind, value });
    },
    forgetQuantity: () => setTyped(null),
  };
}
export type ConversionDraft = ReturnType<typeof useConversionDraft>;
