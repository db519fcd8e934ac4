import { ApiError } from '../api/client';

const PLAIN: Record<string, string> = {
  INSUFFICIENT_FUNDS: 'You do not have enough credits for this. Lower the quantity or the price.',
  INSUFFICIENT_SHARES: 'You do not hold enough shares to sell that many.',
  NO_LIQUIDITY: 'Nothing could be traded at that price. Try a better price or place a limit order.',
  MARKET_CLOSED: 'This market is closed to new orders.',
  EVENT_NOT_OPEN: 'This market is not open for trading.',
  ORDER_NOT_OPEN: 'This order is no longer open.',
  INVALID_CREDENTIALS: 'That email and password do not match an account.',
  EMAIL_TAKEN: 'An account with this email already exists. Try logging in.',
  USERNAME_TAKEN: 'That username is taken. Pick another one.',
  USERNAME_RESERVED:
    'That username is kept for the exchange itself, or looks like one that is. Pick another one.',
  WEAK_PASSWORD: 'That password is too easy to guess. Try a few unrelated words together.',
  LINK_INVALID: 'This link no longer works: it was used already, it expired, or a newer one replaced it.',
  EMAIL_NOT_VERIFIED: 'Confirm your email address first: open the link we sent you, or ask for a new one.',
  EMAIL_ALREADY_VERIFIED: 'Your email address is confirmed already.',
  TOO_MANY_API_KEYS: 'You have reached the limit of API keys. Revoke one you no longer use first.',
  ACCOUNT_SUSPENDED: 'This account is suspended.',
  UNAUTHENTICATED: 'Please log in to do this.',
  FORBIDDEN: 'You are not allowed to do this.',
  PAYLOAD_TOO_LARGE: 'That file is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'That file type is not supported.',
  FEATURE_DISABLED: 'This feature is switched off for now.',
  PROVIDER_NOT_CONFIGURED: 'This feature is not set up on this server.',
};

/** Amounts the forms take in credits (100 cents each): their limits are said in credits too. */
const CREDIT_FIELDS: Record<string, string> = {
  liquidityCents: 'The house liquidity',
  stakeCents: 'The stake',
  dailyLimitCents: 'The daily limit',
  amountCents: 'The amount',
  prizes: 'Each prize',
};

function inCredits(cents: number): string {
  return `${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} credits`;
}

/** Fields as the forms name them; anything else is spelled out from its camelCase name. */
const FIELD_NAMES: Record<string, string> = {
  stopLossProbBps: 'The stop-loss',
  takeProfitProbBps: 'The take-profit',
  priceCents: 'The price',
  limitPriceCents: 'The limit price',
  quantity: 'The number of shares',
  url: 'The URL',
  evidenceUrl: 'The evidence link',
  expiresInHours: 'The expiry',
};

/** The field a problem is about: the last name of its path that is not an array index. */
function lastName(name: string): string {
  return (
    name
      .split(/[./]/)
      .filter((part) => part !== '' && !/^\d+$/.test(part))
      .pop() ?? name
  );
}

function field(name: string): string {
  const last = lastName(name);
  const known = FIELD_NAMES[last] ?? CREDIT_FIELDS[last];
  if (known) return known;
  const words = last.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const COMPARISONS: [RegExp, string][] = [
  [/<=/g, 'at most'],
  [/>=/g, 'at least'],
  [/</g, 'less than'],
  [/>/g, 'more than'],
];

/**
 * A field's problem in words: comparisons spelled out, and numbers in the unit the forms use (cents; limits on
 * a probability field are basis points on the wire).
 */
function message(name: string, text: string): string {
  let words = text;
  for (const [pattern, replacement] of COMPARISONS) words = words.replace(pattern, replacement);
  if (CREDIT_FIELDS[lastName(name)]) return words.replace(/\b\d+\b/g, (cents) => inCredits(Number(cents)));
  if (name.endsWith('Bps'))
    return words.replace(/\b(\d{3,5})\b(?! ?¢)/g, (_, bps: string) => `${Number(bps) / 100}¢`);
  if (name.endsWith('Cents') && /^must be (at most|at least|less than|more than) \d+$/.test(words))
    return `${words}¢`;
  return words;
}

/** An error from the API (or the network) in words a trader understands. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Please try again.';
  if (error.code === 'RATE_LIMITED') {
    const wait = error.retryAfterSeconds ? ` in ${error.retryAfterSeconds} seconds` : ' in a moment';
    return `Too many requests. Try again${wait}.`;
  }
  if (error.unavailable && error.status === 404) return 'This feature is not available on this server yet.';
  if (error.code === 'INSUFFICIENT_FUNDS') {
    const { neededCents, availableCents } = (error.details ?? {}) as Record<string, unknown>;
    if (typeof neededCents === 'number' && typeof availableCents === 'number') {
      return `This order needs ${inCredits(neededCents)}, and you have ${inCredits(availableCents)} available. Lower the quantity or the price.`;
    }
  }
  if (error.code === 'WEAK_PASSWORD' && Array.isArray(error.details)) {
    const why = (error.details as { message?: string }[])[0]?.message;
    if (why) return `That password is too easy to guess. ${why}`;
  }
  if (error.code === 'VALIDATION_FAILED' && Array.isArray(error.details) && error.details.length > 0) {
    return (error.details as { field?: string; message?: string }[])
      .map((problem) => {
        const name = problem.field ?? 'value';
        return `${field(name)} ${message(name, problem.message ?? 'is invalid')}.`;
      })
      .join(' ');
  }
  return PLAIN[error.code] ?? error.message;
}

/** What a refused conversion means: the same codes as an order's, said for shares given rather than sold. */
export function describeConversionError(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.details ?? {}) as Record<string, unknown>;
    switch (error.code) {
      case 'INSUFFICIENT_SHARES':
        return typeof details.needed === 'number' && typeof details.available === 'number'
          ? `This gives ${details.needed} shares of an option where you have ${details.available} free: shares offered in your open sell orders do not convert. Lower the number, or cancel those orders first.`
          : 'You do not hold that many free shares: shares offered in your open sell orders do not convert.';
      case 'INSUFFICIENT_FUNDS':
        return typeof details.neededCents === 'number' && typeof details.availableCents === 'number'
          ? `This split costs ${inCredits(details.neededCents)}, and you have ${inCredits(details.availableCents)} available. Lower the number.`
          : 'You do not have enough credits for this split. Lower the number.';
      case 'MARKET_CLOSED':
        return 'This market has been resolved: its shares no longer convert.';
      case 'EVENT_NOT_EXCLUSIVE':
        return 'The options of this market are independent: their shares do not convert.';
    }
  }
  return describeError(error);
}
