import type { Tx } from '../../platform/db/types.js';
import { AppError, toErrorResponse } from '../../platform/errors.js';
import { IdempotencyMismatchError, ReplayedRefusalError } from './errors.js';
import type { IdempotencyRepository } from './idempotency-repository.js';
import type { BookOutcome, BookRequest, KeyedRequest } from './types.js';

/** Whether a request is replayed by an idempotency key. */
export function isKeyed(request: BookRequest): request is KeyedRequest {
  return request.type === 'place' || request.type === 'convert' || request.type === 'amend';
}

/** The clientOrderId a request gives a new order: a placed order's, an amend's replacement's. */
function clientOrderIdOf(request: BookRequest): string | null {
  if (request.type === 'place') return request.request.clientOrderId ?? null;
  if (request.type === 'amend') return request.request.clientOrderId;
  return null;
}

/** Another transaction stored an answer under the same idempotency key first: run the request again to replay it. */
export class IdempotencyRaceError extends Error {
  constructor() {
    super('an idempotency key was used by two requests at once');
  }
}

/**
 * The idempotency of a market's batch, in its transaction: before the decision, a request whose key was used
 * before gets its stored answer again (or is refused when the request differs), a key or clientOrderId used twice
 * in one batch is handed back to run alone after it, and a clientOrderId already given to an order is refused; after
 * it, every keyed request's answer is stored with it, a decided refusal included, so a retry is never decided twice.
 */
export class BatchIdempotency {
  constructor(private readonly keys: IdempotencyRepository) {}

  /** What the batch's requests already have as their outcome; `outcomes` holds what is known before (reroutes). */
  async admit(trx: Tx, requests: BookRequest[], outcomes: (BookOutcome | undefined)[]): Promise<void> {
    const seen = new Set<string>();
    requests.forEach((request, index) => {
      if (!isKeyed(request) || outcomes[index]) return;
      const clientOrderId = clientOrderIdOf(request);
      const names = [
        request.key && `key:${request.userId}:${request.key}`,
        clientOrderId && `client:${request.userId}:${clientOrderId}`,
      ].filter((name): name is string => Boolean(name));
      if (names.some((name) => seen.has(name))) outcomes[index] = { alone: true };
      for (const name of names) seen.add(name);
    });
    await this.replayKnownKeys(trx, requests, outcomes);
    await this.refuseUsedClientOrderIds(trx, requests, outcomes);
  }

  /** Stores each keyed request's answer with its key; another transaction's answer under a key stored first is a race. */
  async record(trx: Tx, requests: BookRequest[], outcomes: BookOutcome[]): Promise<void> {
    const stored = requests.flatMap((request, index) => {
      const answer = answerOf(outcomes[index] as BookOutcome);
      if (!isKeyed(request) || !request.key || !answer) return [];
      const { userId, key, requestHash } = request;
      return [{ userId, key, requestHash, statusCode: answer.status, response: answer.body }];
    });
    if ((await this.keys.insertIdempotencyResults(trx, stored)) !== stored.length)
      throw new IdempotencyRaceError();
  }

  private async replayKnownKeys(trx: Tx, requests: BookRequest[], outcomes: (BookOutcome | undefined)[]) {
    const keyed = requests.flatMap((request, index) =>
      isKeyed(request) && request.key && !outcomes[index] ? [{ request, index }] : [],
    );
    if (keyed.length === 0) return;
    const stored = await this.keys.findIdempotencyKeys(
      trx,
      keyed.map(({ request }) => ({ userId: request.userId, key: request.key as string })),
    );
    const byKey = new Map(stored.map((row) => [`${row.user_id}:${row.key}`, row]));
    for (const { request, index } of keyed) {
      const row = byKey.get(`${request.userId}:${request.key}`);
      if (!row) continue;
      const status = row.status_code ?? 201;
      if (row.request_hash !== request.requestHash)
        outcomes[index] = { error: new IdempotencyMismatchError() };
      else if (status >= 400) outcomes[index] = { error: new ReplayedRefusalError(status, row.response) };
      else outcomes[index] = { result: { status, body: row.response, replayed: true } };
    }
  }

  /** A clientOrderId names one order of its user: a new request under another key cannot take it again. */
  private async refuseUsedClientOrderIds(
    trx: Tx,
    requests: BookRequest[],
    outcomes: (BookOutcome | undefined)[],
  ) {
    const named = requests.flatMap((request, index) => {
      const clientOrderId = clientOrderIdOf(request);
      return clientOrderId && isKeyed(request) && !outcomes[index]
        ? [{ userId: request.userId, clientOrderId, index }]
        : [];
    });
    if (named.length === 0) return;
    const used = new Set(
      (await this.keys.usedClientOrderIds(trx, named)).map((row) => `${row.user_id}:${row.client_order_id}`),
    );
    for (const { userId, clientOrderId, index } of named)
      if (used.has(`${userId}:${clientOrderId}`)) outcomes[index] = { error: new IdempotencyMismatchError() };
  }
}

/**
 * What a request's key keeps of its outcome: a result, or a refusal the decision made (its status and error body:
 * a retry under the same key is refused the same way, whatever changed since). Nothing for a failure to serve.
 */
function answerOf(outcome: BookOutcome): { status: number; body: unknown } | null {
  if ('result' in outcome) return outcome.result as { status: number; body: unknown };
  if (!('error' in outcome)) return null;
  const { error } = outcome;
  if (!(error instanceof AppError) || error.statusCode >= 500) return null;
  return { status: error.statusCode, body: toErrorResponse(error).body };
}
