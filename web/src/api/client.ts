import { createClient } from '../../../clients/typescript/src/index.js';

/** How the app talks to the service: the typed client, same origin, Bearer session token, `{error, code}` errors. */

const TOKEN_KEY = 'pmx.session';

type TokenListener = (token: string | null) => void;
const listeners = new Set<TokenListener>();

export const sessionToken = {
  get(): string | null {
    try {
      return localStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  },
  set(token: string | null): void {
    try {
      if (token) localStorage.setItem(TOKEN_KEY, token);
      else localStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage can be unavailable (private mode, quota); the session then lasts until the page is closed.
    }
    for (const listener of listeners) listener(token);
  },
  subscribe(listener: TokenListener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The endpoint does not exist on this server (yet), or the feature behind it is switched off. */
  get unavailable(): boolean {
    return (this.status === 404 && this.message.startsWith('No route ')) || this.status === 503;
  }
}

function apiErrorOf(response: Response, body: unknown, hadToken: boolean): ApiError {
  let code = `HTTP_${response.status}`;
  let message = response.statusText || 'Request failed';
  let details: unknown;
  if (body && typeof body === 'object') {
    const fields = body as { error?: unknown; code?: unknown; details?: unknown };
    if (typeof fields.error === 'string') message = fields.error;
    if (typeof fields.code === 'string') code = fields.code;
    details = fields.details;
  }
  // A session that expired or was revoked elsewhere: forget it so the app shows the signed-out state.
  if (response.status === 401 && hadToken && code === 'UNAUTHENTICATED') sessionToken.set(null);
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    code,
    message,
    details,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

/** The longest the app waits out a 429 by itself before it shows the refusal. */
const MAX_RATE_LIMIT_WAIT_S = 65;
const RATE_LIMIT_RETRIES = 2;

type WaitListener = (until: number | null) => void;
const waitListeners = new Set<WaitListener>();
/** The requests waiting out a 429 now, each with the moment it goes out again. */
const waits = new Set<{ until: number }>();

function latestWait(): number | null {
  let latest: number | null = null;
  for (const wait of waits) latest = Math.max(latest ?? 0, wait.until);
  return latest;
}

/** While refused requests wait for the rate limit's Retry-After: when the last of them goes out again. */
export const rateLimitWait = {
  get until(): number | null {
    return latestWait();
  },
  subscribe(listener: WaitListener): () => void {
    waitListeners.add(listener);
    return () => waitListeners.delete(listener);
  },
};

function announceWaits(): void {
  const until = latestWait();
  for (const listener of waitListeners) listener(until);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/**
 * `fetch`, but a 429 is sent again after its Retry-After (twice at most) instead of reaching the page. Safe for
 * every method: the limiter refuses a request before anything of it runs, and an order also carries its
 * Idempotency-Key. The wait is announced (`rateLimitWait`) so the page can say why it is slow.
 */
export async function fetchWithinRateLimit(request: Request): Promise<Response> {
  let current = request;
  for (let attempt = 0; ; attempt++) {
    // A request's body can be read once: keep a copy for the retry before sending it.
    const spare = attempt < RATE_LIMIT_RETRIES ? current.clone() : null;
    const response = await fetch(current);
    const retryAfter = Number(response.headers.get('retry-after'));
    if (response.status !== 429 || !spare || !(retryAfter > 0) || retryAfter > MAX_RATE_LIMIT_WAIT_S) {
      return response;
    }
    const wait = { until: Date.now() + retryAfter * 1000 };
    waits.add(wait);
    announceWaits();
    try {
      await sleep(wait.until - Date.now(), request.signal);
    } finally {
      // Over, or abandoned (the page that asked has gone): either way it no longer waits.
      waits.delete(wait);
      announceWaits();
    }
    current = spare;
  }
}

/**
 * The typed client generated from the API's OpenAPI document (clients/typescript), on the page's own origin with
 * the session token. Paths, parameters, bodies and answers are checked against the contract at compile time.
 */
export const apiClient = createClient({
  baseUrl: '',
  headers: { accept: 'application/json' },
  fetch: fetchWithinRateLimit,
});
apiClient.use({
  onRequest({ request }) {
    const token = sessionToken.get();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
});

/** What a typed-client call resolves to: the answer on success, the error body otherwise. */
type Outcome<T> = { data?: T; error?: unknown; response: Response };

/** openapi-fetch answers `{ data }` exactly when the response is ok (2xx). */
function succeeded<T>(outcome: Outcome<T>): outcome is Outcome<T> & { data: T } {
  return outcome.response.ok;
}

/**
 * The answer of a typed-client call, or an ApiError: the server's `{error, code}`, the network failure, or the
 * session that expired.
 */
export async function typed<T>(call: Promise<Outcome<T>>): Promise<T> {
  const hadToken = sessionToken.get() !== null;
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', 'Cannot reach the server. Check your connection and try again.');
  }
  if (succeeded(outcome)) return outcome.data;
  throw apiErrorOf(outcome.response, outcome.error, hadToken);
}

/** Downloads your trades as CSV (the Bearer header rules out a plain link) and saves them as trades.csv. */
export async function downloadTrades(): Promise<void> {
  const csv = await typed(
    apiClient.GET('/api/me/trades/export', { parseAs: 'blob', headers: { accept: '*/*' } }),
  );
  save(csv, 'trades.csv');
}

function save(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A fresh Idempotency-Key, so that a retried submit never places a second order. */
export function idempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
