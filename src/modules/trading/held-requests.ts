import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { CollateralDesk, Held, MarketNeed } from './collateral.js';
import type { IdempotencyRepository } from './idempotency-repository.js';
import type { BookRequest, RequestHold } from './types.js';

/** A request's answer, or the error it met. */
export type Outcome = { result: unknown } | { error: unknown };

/** A request on its way to its market, with what it may spend at worst (null: nothing, or answered before). */
export interface HeldEntry {
  request: BookRequest;
  need: MarketNeed | null;
}

/** An order on its way to its option's market. */
export interface OrderEntry extends HeldEntry {
  optionId: number;
}

/** A request's result, or its error thrown. */
export function answerOf(outcome: Outcome | undefined): unknown {
  if (!outcome) throw new Error('a request was left without an answer');
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

/**
 * A user's requests on their way to their markets, with what each may spend set aside first (the collateral step,
 * collateral.ts), and what no market spent given back once they are answered; retries answered from their
 * idempotency keys need nothing set aside.
 */
export class HeldRequests {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly keys: IdempotencyRepository,
    private readonly desk: CollateralDesk,
  ) {}

  /**
   * Sets aside what each request may spend, in order, in one collateral step (collateral.ts): a request its user's
   * cash cannot cover is refused there (402); the others carry their holds to their markets. Once they are
   * answered, whatever no market spent (a request answered from its key, refused before its decision, past its
   * deadline) is given back.
   */
  async withCollateral<E extends HeldEntry>(
    userId: number,
    entries: (E | { error: unknown })[],
    run: (ready: (E | { error: unknown })[]) => Promise<Outcome[]>,
  ): Promise<Outcome[]> {
    const parts = entries.flatMap((entry) => ('request' in entry && entry.need ? [entry] : []));
    const held = await this.desk.hold({ userId, needs: parts.map((part) => part.need as MarketNeed) });
    const holds: RequestHold[] = [];
    const refused = new Map<E, unknown>();
    parts.forEach((part, index) => {
      const outcome = held[index] as Held;
      if ('refused' in outcome) refused.set(part, outcome.refused);
      else if ('holdId' in outcome) {
        const hold = { id: outcome.holdId, cents: outcome.cents, spent: false };
        (part.request as { hold?: RequestHold }).hold = hold;
        holds.push(hold);
      }
    });
    const ready = entries.map((entry) => {
      if ('error' in entry || !refused.has(entry)) return entry;
      return { error: refused.get(entry) };
    });
    try {
      return await run(ready);
    } finally {
      await this.desk.release(holds.filter((hold) => !hold.spent).map((hold) => hold.id));
    }
  }

  /**
   * Which of a request's idempotency keys (null: none) have a stored answer: their orders are retries, answered from
   * the key, which cost nothing of the order budget and need no collateral.
   */
  async answeredKeys(userId: number, keys: (string | null)[]): Promise<Set<string>> {
    const named = keys.filter((key): key is string => key !== null);
    if (named.length === 0) return new Set();
    const stored = await this.keys.findIdempotencyKeys(
      this.db,
      named.map((key) => ({ userId, key })),
    );
    return new Set(stored.map((row) => row.key));
  }
}
