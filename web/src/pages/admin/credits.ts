/** Credits typed by an operator into whole cents; NaN when it is not a number. */
export function toCents(credits: string): number {
  return Math.round(Number(credits) * 100);
}
