import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { UrlGuard } from './url-guard.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** What a receiver's answer may be at most; the rest is not read. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one webhook. Only a 2xx answer counts as delivered. Redirects are never followed (a 3xx is a failed
 * attempt), so a receiver cannot bounce a delivery to an address the guard would refuse. The whole exchange
 * is bounded by `timeoutMs`.
 */
export function sendWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; guard: UrlGuard; userAgent: string },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refused = options.guard.literalProblem(url);
  if (refused) return Promise.resolve({ ok: false, statusCode: null, error: refused, durationMs: 0 });

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const lookup = options.guard.connectLookup();
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let req: ClientRequest;
    try {
      req = send(url, {
        method: 'POST',
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': options.userAgent,
        },
        ...(lookup ? { lookup } : {}),
      });
    } catch (error) {
      resolve({ ok: false, statusCode: null, error: describe(error), durationMs: elapsed() });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      drain(res);
      if (status >= 200 && status < 300) return finish({ ok: true, statusCode: status, error: null });
      if (status >= 300 && status < 400) {
        const location = res.headers.location ?? 'nowhere';
        return finish({
          ok: false,
          statusCode: status,
          error: `redirect to ${location.slice(0, 300)} not followed`,
        });
      }
      return finish({ ok: false, statusCode: status, error: `HTTP ${status}` });
    });
    req.on('error', (error) => finish({ ok: false, statusCode: null, error: describe(error) }));
    req.end(body);
  });
}

/** Reads and discards the answer, stopping at the size cap so a huge or endless body cannot hold a worker. */
function drain(res: IncomingMessage): void {
  let received = 0;
  res.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_RESPONSE_BYTES) res.destroy();
  });
  res.on('error', () => undefined);
  setTimeout(() => res.destroy(), 1000).unref();
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return (code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message).slice(
      0,
      500,
    );
  }
  return String(error).slice(0, 500);
}
