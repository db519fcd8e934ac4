/** Display helpers: the API speaks integer cents; prices read as ¢, balances as credits (100 cents each). */

const credits = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat('en-US');

export function formatPrice(cents: number | null | undefined): string {
  return cents === null || cents === undefined ? '—' : `${cents}¢`;
}

export function formatCredits(cents: number): string {
  return `${credits.format(cents / 100)} credits`;
}

/** A profit or loss with its sign, for colour and screen readers alike. */
export function formatSignedCredits(cents: number): string {
  const sign = cents > 0 ? '+' : cents < 0 ? '−' : '';
  return `${sign}${credits.format(Math.abs(cents) / 100)} credits`;
}

export function formatNumber(value: number): string {
  return whole.format(value);
}

/** "1 follower", "2 followers": a count with its noun in the right number. */
export function formatCount(count: number, noun: string, plural = `${noun}s`): string {
  return `${whole.format(count)} ${count === 1 ? noun : plural}`;
}

export function formatPercentBps(bps: number): string {
  return `${(bps / 100).toFixed(bps % 100 === 0 ? 0 : 1)}%`;
}

/**
 * An exclusive event's chances (basis points adding up to 10,000) in tenths of a percent that add up to exactly
 * 1,000, by the largest remainder: rounding each on its own could show 99.9 % or 100.1 % together.
 */
export function chanceTenths(bps: number[]): number[] {
  const whole = bps.map((value) => Math.floor(value / 10));
  const total = Math.round(bps.reduce((sum, value) => sum + value, 0) / 10);
  let left = total - whole.reduce((sum, value) => sum + value, 0);
  const order = bps.map((value, index) => ({ index, rest: value % 10 })).sort((a, b) => b.rest - a.rest);
  for (const { index } of order) {
    if (left <= 0) break;
    whole[index] = (whole[index] ?? 0) + 1;
    left -= 1;
  }
  return whole;
}

/** A chance in tenths of a percent: "38.0%". */
export function formatTenths(tenths: number): string {
  return `${(tenths / 10).toFixed(1)}%`;
}

/** An exclusive event's chances as shown, in the order given: each to a tenth, together exactly 100.0 %. */
export function formatChances(bps: number[]): string[] {
  return chanceTenths(bps).map(formatTenths);
}

export function pnlClass(cents: number): string {
  return cents > 0 ? 'gain' : cents < 0 ? 'loss' : '';
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDay(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

export function timeAgo(iso: string): string {
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return formatDay(iso);
}

export function titleCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1).replace(/[-_]/g, ' ');
}

/** A datetime-local input's value in the browser's time zone: `iso`, or a week from now when there is none. */
export function localDateTime(iso: string | null): string {
  const date = iso ? new Date(iso) : new Date(Date.now() + 7 * 86_400_000);
  date.setMinutes(date.getMinutes() - date.getTimezoneOffset(), 0, 0);
  return date.toISOString().slice(0, 16);
}
