import type { FastifyError } from 'fastify';
import { type DatabaseCondition, databaseCondition } from './db/types.js';
import { type FieldProblem, fieldsOf } from './field-problems.js';

export type { FieldProblem };

/**
 * Every failure the API reports is one of these; status and code are decided here and nowhere else (the handler
 * that answers with them: error-handler.ts).
 */
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

/** An action an account may take only once its address is proven (while the service proves addresses). */
export class EmailNotVerifiedError extends AppError {
  constructor() {
    super(
      403,
      'EMAIL_NOT_VERIFIED',
      'Confirm your email address first: open the link we sent you, or ask for a new one',
    );
  }
}

/** A password that is too easy to guess; `details` says why and how to choose a better one. */
export class WeakPasswordError extends AppError {
  constructor(field: string, feedback: { warning: string | null; suggestions: string[] }) {
    super(
      400,
      'WEAK_PASSWORD',
      `This password is too easy to guess${feedback.warning ? `: ${feedback.warning}` : ''}`,
      [
        {
          field,
          message:
            [feedback.warning, ...feedback.suggestions].filter(Boolean).join(' ') || 'is too easy to guess',
        },
      ],
    );
  }
}

/** A mailed link that was used already, expired, was replaced by a newer one, or never existed. */
export class LinkInvalidError extends AppError {
  constructor() {
    super(
      400,
      'LINK_INVALID',
      'This link is not valid: it was used already, it expired, or a newer one replaced it',
    );
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

/** The stream's messages from a seq are no longer kept: the client starts again from a snapshot. */
export class OutsideStreamWindowError extends AppError {
  constructor(details: { fromSeq: number; latestSeq: number }) {
    super(
      410,
      'SEQ_OUTSIDE_WINDOW',
      'The messages from this seq are no longer kept: start again from GET /api/orderbook/{optionId} (its ' +
        'bookVersion is the seq to follow from)',
      details,
    );
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
