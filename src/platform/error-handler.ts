import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, toErrorResponse } from './errors.js';

/** How much of a body over the limit is read and thrown away so that its client can read the 413, and for how long. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 10_000;

/**
 * Reads what is left of a request's body and throws it away, up to a bound. A client still sending a body when the
 * server answers and closes the connection gets a reset (Node's fetch: EPIPE) instead of the answer; once the body
 * has been read, the answer reaches it and the connection may even stay open. True when the body was read whole.
 */
function discardBody(request: IncomingMessage): Promise<boolean> {
  if (request.complete || request.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      request.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DISCARD_MAX_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), DISCARD_MAX_MS);
    request.on('data', onData).on('end', onEnd).on('close', onClose);
    request.resume();
  });
}

/**
 * What the router refuses before any route runs (a path that is not valid percent-encoding), in the error shape of
 * every other answer.
 */
export function frameworkErrors(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  reply
    .code(400)
    .send({ error: `Invalid request path: ${error.message}`, code: 'VALIDATION_FAILED', details: [] });
}

/**
 * Expected refusals (a 503 with a code: the database unavailable, read-only or full, a busy option, a full queue, a
 * feature off, the server closing) are warnings without a stack; anything else past 500 is an error with its stack.
 */
function logFailure(request: FastifyRequest, error: unknown, status: number, code: string): void {
  if (status < 500) return;
  if (status === 503) {
    const cause = error instanceof AppError ? undefined : (error as { message?: unknown } | null)?.message;
    request.log.warn({ code, ...(typeof cause === 'string' ? { cause } : {}) }, 'service unavailable');
  } else request.log.error({ err: error }, 'request failed');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error, request, reply) => {
    const { status, body } = toErrorResponse(error);
    if (status === 413 && (await discardBody(request.raw))) reply.removeHeader('connection');
    logFailure(request, error, status, body.code);
    const retryAfter = (body.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    const unset = reply.getHeader('retry-after') === undefined;
    if (status === 503) reply.header('retry-after', typeof retryAfter === 'number' ? retryAfter : 1);
    else if (status === 429 && unset)
      reply.header('retry-after', typeof retryAfter === 'number' ? retryAfter : 60);
    return reply.status(status).send(body);
  });
}
