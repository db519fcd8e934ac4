import type { TimeInForce } from './order-draft';

/** Each time in force in the trader's words: its name in the list, and what it does to what is not filled at once. */
export const TIMES_IN_FORCE: { value: TimeInForce; label: string; meaning: string }[] = [
  {
    value: 'GTC',
    label: 'Good till cancelled (GTC)',
    meaning: 'What does not fill at once waits until you cancel it.',
  },
  {
    value: 'GTD',
    label: 'Good till a time (GTD)',
    meaning: 'What does not fill at once waits until it expires.',
  },
  {
    value: 'IOC',
    label: 'Immediate or cancel (IOC)',
    meaning: 'Fills what it can now; the rest is cancelled.',
  },
  {
    value: 'FOK',
    label: 'Fill or kill (FOK)',
    meaning: 'Fills whole now, or is refused and nothing is charged.',
  },
];

/** The order's terms in a few words for its review: "good till cancelled, post-only". */
export function termsInWords(timeInForce: TimeInForce, expiryHours: string, postOnly: boolean): string {
  const hours = Number(expiryHours);
  const life =
    timeInForce === 'GTC'
      ? 'good till cancelled'
      : timeInForce === 'GTD'
        ? `good for ${hours % 24 === 0 ? `${hours / 24} day${hours === 24 ? '' : 's'}` : `${hours} hour${hours === 1 ? '' : 's'}`}`
        : timeInForce === 'IOC'
          ? 'immediate or cancel'
          : 'fill or kill';
  return postOnly ? `${life}, post-only` : life;
}
