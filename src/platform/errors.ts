import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type DatabaseCondition, databaseCondition } from './db/types.js';

/** Every failure the API reports is one of these; status and code are decided here and nowhere else. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

export class ValidationError extends AppError {
  constructor(message: string, details?: FieldProblem[]) {
    super(400, 'VALIDATION_FAILED', message, details);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication required: send Authorization: Bearer <API key or session token>') {
    super(401, 'UNAUTHENTICATED', message);
  }
}

export class InvalidCredentialsError extends AppError {
  constructor() {
    super(401, 'INVALID_CREDENTIALS', 'Email or password is incorrect');
  }
}

export class InsufficientFundsError extends AppError {
  constructor(neededCents: number, availableCents: number) {
    super(402, 'INSUFFICIENT_FUNDS', 'Not enough cash for this order', { neededCents, availableCents });
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You are not allowed to do this') {
    super(403, 'FORBIDDEN', message);
  }
}

export class AccountSuspendedError extends AppError {
  constructor() {
    super(403, 'ACCOUNT_SUSPENDED', 'This account is suspended');
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super(404, 'NOT_FOUND', `${what} not found`);
  }
}

/** A conflict with the current state of a resource; the code names which one. */
export class ConflictError extends AppError {
  constructor(code: string, message: string, details?: unknown) {
    super(409, code, message, details);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is too large') {
    super(413, 'PAYLOAD_TOO_LARGE', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Unsupported media type') {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', `Too many requests; retry in ${retryAfterSeconds} seconds`, {
      retryAfterSeconds,
    });
  }
}

/** Not available now: the request may be retried after `retryAfterSeconds` (sent as Retry-After). */
export class ServiceUnavailableError extends AppError {
  constructor(
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, code, message, { retryAfterSeconds });
  }
}

/** How long a client waits before asking again for what an operator has switched off or not configured. */
const SWITCHED_OFF_RETRY_SECONDS = 300;

export class FeatureDisabledError extends ServiceUnavailableError {
  constructor(feature: string) {
    super('FEATURE_DISABLED', `${feature} is not available yet`, SWITCHED_OFF_RETRY_SECONDS);
  }
}

export class ProviderNotConfiguredError extends ServiceUnavailableError {
  constructor(provider: string) {
    super('PROVIDER_NOT_CONFIGURED', `No ${provider} provider is configured`, SWITCHED_OFF_RETRY_SECONDS);
  }
}

/** The server is shutting down: another instance (or this one, restarted) answers a retry. */
export class ShuttingDownError extends ServiceUnavailableError {
  constructor() {
    super('SHUTTING_DOWN', 'The server is shutting down; retry', 1);
  }
}

export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor() {
    super('DATABASE_UNAVAILABLE', 'The database is unavailable; retry shortly', 1);
  }
}

export class DatabaseReadOnlyError extends ServiceUnavailableError {
  constructor() {
    super(
      'DATABASE_READ_ONLY',
      'The database takes no writes at the moment (read-only, or failing over); nothing was written, retry shortly',
      2,
    );
  }
}

export class DatabaseDiskFullError extends ServiceUnavailableError {
  constructor() {
    super(
      'DATABASE_DISK_FULL',
      'The database has run out of disk space; nothing was written, retry later',
      5,
    );
  }
}

export class DatabaseOverloadedError extends ServiceUnavailableError {
  constructor() {
    super('DATABASE_OVERLOADED', 'The database has run out of memory or connections; retry shortly', 1);
  }
}

/** The answer to a statement that failed for the database's reasons, by what those reasons are. */
export function databaseConditionError(condition: DatabaseCondition): ServiceUnavailableError {
  switch (condition) {
    case 'read_only':
      return new DatabaseReadOnlyError();
    case 'disk_full':
      return new DatabaseDiskFullError();
    case 'overloaded':
      return new DatabaseOverloadedError();
    default:
      return new DatabaseUnavailableError();
  }
}

/** One address holds as many connections of a kind as it may. */
export class TooManyConnectionsError extends AppError {
  constructor(what: string, limit: number, retryAfterSeconds: number) {
    super(429, 'TOO_MANY_CONNECTIONS', `At most ${limit} ${what} per address`, { limit, retryAfterSeconds });
  }
}

interface ErrorBody {
  error: string;
  code: string;
  details?: unknown;
}

type AjvIssue = { instancePath?: string; params?: Record<string, unknown>; message?: string };

function fieldsOf(error: FastifyError): FieldProblem[] {
  const issues = (error.validation ?? []) as AjvIssue[];
  const where = error.validationContext ?? 'body';
  return issues.map((issue) => {
    const missing = issue.params?.missingProperty;
    const extra = issue.params?.additionalProperty;
    const path = (issue.instancePath ?? '').split('/').filter(Boolean).join('.');
    const name = [where, path, typeof missing === 'string' ? missing : typeof extra === 'string' ? extra : '']
      .filter(Boolean)
      .join('.');
    const message = typeof extra === 'string' ? 'is not an allowed field' : (issue.message ?? 'is invalid');
    return { field: name, message };
  });
}

/** Maps anything thrown in the app to the JSON error model; internals never leave the process. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  const condition = error instanceof AppError ? null : databaseCondition(error);
  if (condition) return toErrorResponse(databaseConditionError(condition));
  if (error instanceof AppError) {
    const body: ErrorBody = { error: error.message, code: error.code };
    if (error.details !== undefined) body.details = error.details;
    return { status: error.statusCode, body };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) {
    const details = fieldsOf(fastifyError);
    const summary = details.map((d) => `${d.field} ${d.message}`).join('; ');
    return {
      status: 400,
      body: { error: `Invalid request: ${summary}`, code: 'VALIDATION_FAILED', details },
    };
  }
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    switch (status) {
      case 413:
        return { status, body: { error: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' } };
      case 415:
        return {
          status,
          body: { error: 'Unsupported Content-Type; send application/json', code: 'UNSUPPORTED_MEDIA_TYPE' },
        };
      case 429:
        return { status, body: { error: 'Too many requests', code: 'RATE_LIMITED' } };
      case 400:
        return {
          status,
          body: {
            error: fastifyError.code?.startsWith('FST_ERR_CTP')
              ? `Malformed request body: ${fastifyError.message}`
              : fastifyError.message,
            code: fastifyError.code?.startsWith('FST_ERR_CTP') ? 'MALFORMED_BODY' : 'BAD_REQUEST',
          },
        };
      default:
        return { status, body: { error: fastifyError.message, code: 'BAD_REQUEST' } };
    }
  }
  if (error instanceof SyntaxError) {
    return {
      status: 400,
      body: { error: `Malformed request body: ${error.message}`, code: 'MALFORMED_BODY' },
    };
  }
  return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' } };
}

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
