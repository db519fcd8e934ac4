import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, fetch as undiciFetch } from 'undici';

/**
 * The one way the service talks to outside providers: Node's fetch with a deadline, a size cap and a few
 * retries with back-off for failures that are worth retrying (network errors, 429 and 5xx answers).
 */

export type ProviderFailureKind = 'timeout' | 'error';

/** A provider did not give a usable answer; `kind` tells a client whether it was slow or broken. */
export class ProviderFailure extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

export interface ProviderHttpOptions {
  /**
   * Connections through this dispatcher (one whose lookup refuses forbidden addresses), with redirects refused,
   * for URLs operators type in: the address connected to is the one checked.
   */
  guarded?: Dispatcher | undefined;
  /** Budget for the whole call, retries included. */
  timeoutMs: number;
  /** Extra attempts after a retryable failure. */
  retries: number;
  maxBytes?: number;
}

export interface ProviderRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  accept: string;
}

const USER_AGENT = 'predict-exchange/1.0 (+integrations)';
const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1000;
// A retry with less time than this left cannot get an answer, so the last failure is reported instead.
const MIN_ATTEMPT_MS = 50;

export async function fetchProviderText(
  request: ProviderRequest,
  options: ProviderHttpOptions,
): Promise<string> {
  const deadline = Date.now() + options.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const failure = await attemptOnce(request, options, deadline);
    if (typeof failure === 'string') return failure;
    const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
    if (attempt >= options.retries || Date.now() + backoff + MIN_ATTEMPT_MS > deadline) throw failure;
    await sleep(backoff);
  }
}

export async function fetchProviderJson(
  request: ProviderRequest,
  options: ProviderHttpOptions,
): Promise<unknown> {
  const text = await fetchProviderText(request, options);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformed('the body is not JSON');
  }
}

export function malformed(problem: string): ProviderFailure {
  return new ProviderFailure('error', `malformed response: ${problem}`);
}

/** The body on success; a retryable failure is returned, a final one thrown. */
async function attemptOnce(
  request: ProviderRequest,
  options: ProviderHttpOptions,
  deadline: number,
): Promise<string | ProviderFailure> {
  try {
    const init = {
      method: request.method ?? 'GET',
      headers: { 'user-agent': USER_AGENT, accept: request.accept, ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    };
    const response = options.guarded
      ? ((await undiciFetch(request.url, {
          ...init,
          redirect: 'error',
          dispatcher: options.guarded,
        })) as unknown as Response)
      : await fetch(request.url, { ...init, redirect: 'follow' });
    if (response.ok) return await readLimited(response, options.maxBytes ?? DEFAULT_MAX_BYTES);
    await response.body?.cancel();
    const failure = new ProviderFailure('error', `answered HTTP ${response.status}`);
    if (response.status === 429 || response.status >= 500) return failure;
    throw failure;
  } catch (error) {
    if (error instanceof ProviderFailure) throw error;
    if (isTimeout(error)) {
      throw new ProviderFailure('timeout', `no answer within ${options.timeoutMs} ms`);
    }
    return new ProviderFailure('error', `unreachable (${networkReason(error)})`);
  }
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new ProviderFailure('error', `response larger than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : 'network error';
}
