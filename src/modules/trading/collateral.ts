import type { Kysely } from 'kysely';
import { type CollateralNeed, holdCollateral } from '../../exchange/collateral.js';
import type { DB } from '../../platform/db/schema.js';
import { pipelining, sideBySide } from '../../platform/db/side-by-side.js';
import { isRetryable, type Tx } from '../../platform/db/types.js';
import { InsufficientFundsError } from '../../platform/errors.js';
import type { CollateralRepository } from '../ledger/collateral-repository.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { unavailableError } from './pipeline/cycle.js';

/** One part of a request that may cost cash, in the market it goes to. */
export interface MarketNeed extends CollateralNeed {
  market: string;
}

/** What a request asks to have set aside, part by part, in its order. */
export interface HoldClaim {
  userId: number;
  needs: MarketNeed[];
}

/** A part's outcome: its hold (spent by the market that decides it), nothing needed, or refused for want of cash. */
export type Held = { holdId: number; cents: number } | { none: true } | { refused: InsufficientFundsError };

interface Waiting {
  claim: HoldClaim;
  resolve: (held: Held[]) => void;
  reject: (error: unknown) => void;
}

export interface CollateralSettings {
  /** How long a hold lives unspent before the sweeper gives it back: past any request's deadline. */
  holdLifetimeMs: number;
}

/** Attempts of a step that the database ended (a deadlock with a writer outside the lock order, a serialization). */
const RETRIES = 3;

/**
 * The collateral step of the order's life (src/exchange/collateral.ts): before a request queues for its markets,
 * what it may spend at worst is set aside out of its user's cash, in one short transaction shared by the requests
 * that arrive together: their users' cash rows locked in account order, what markets gave back taken in, the
 * holds inserted. The markets never wait for it, nor it for them.
 */
export class CollateralDesk {
  private readonly waiting: Waiting[] = [];
  /** Steps under way: one at a time, so that requests are answered, and queue for their markets, in their order. */
  private running = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly collateral: CollateralRepository,
    private readonly ledger: LedgerRepository,
    private readonly settings: CollateralSettings,
  ) {}

  /**
   * Sets a request's needs aside, in order. Requests are answered in the order they came, those that need nothing
   * included (without a transaction of their own), so that they reach their markets' queues in that order too.
   */
  hold(claim: HoldClaim): Promise<Held[]> {
    if (this.waiting.length === 0 && this.running === 0 && claim.needs.every((need) => need.cents === 0))
      return Promise.resolve(claim.needs.map(() => ({ none: true }) as const));
    return new Promise((resolve, reject) => {
      this.waiting.push({ claim, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => this.next());
    });
  }

  /**
   * Gives back holds whose requests were answered without a market deciding them (a refusal, a deadline). When the
   * database cannot take it now (down, read-only, its disk full), they are left to expire: the sweeper gives them
   * back past their lifetime (`releaseExpired`), and the request keeps the answer it had.
   */
  async release(holdIds: number[]): Promise<void> {
    if (holdIds.length === 0) return;
    try {
      await this.collateral.releaseHolds(this.db, holdIds);
    } catch (error) {
      if (!unavailableError(error)) throw error;
    }
  }

  /** Gives back holds past their expiry (their instance stopped before a market decided them). */
  releaseExpired(): Promise<number> {
    return this.collateral.releaseHolds(this.db, null);
  }

  /** Takes into cash what markets gave back and nobody's step took since `olderThanMs` ago. */
  async takeBackReturns(olderThanMs: number, limit = 200): Promise<number> {
    const users = await this.collateral.usersWithReturns(this.db, olderThanMs, limit);
    if (users.length > 0) await this.inTransaction(users.map((userId) => ({ userId, needs: [] })));
    return users.length;
  }

  private next(): void {
    if (this.waiting.length === 0 || this.running > 0) return;
    const batch = this.waiting.splice(0);
    this.running += 1;
    const claims = batch.map((entry) => entry.claim);
    const step = claims.some((claim) => claim.needs.some((need) => need.cents > 0))
      ? this.inTransaction(claims)
      : Promise.resolve(claims.map((claim) => claim.needs.map(() => ({ none: true }) as const)));
    step
      .then(
        (held) => {
          for (const [index, entry] of batch.entries()) entry.resolve(held[index] as Held[]);
        },
        (error: unknown) => {
          const refusal = unavailableError(error) ?? error;
          for (const entry of batch) entry.reject(refusal);
        },
      )
      .finally(() => {
        this.running -= 1;
        this.next();
      });
  }

  private async inTransaction(claims: HoldClaim[]): Promise<Held[][]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db
          .transaction()
          .execute((transaction) => pipelining(transaction, (trx) => this.step(trx, claims)));
      } catch (error) {
        if (!isRetryable(error) || attempt >= RETRIES) throw error;
      }
    }
  }

  /** One step: cash locked and returns taken (side by side), the needs decided in order, entries and holds written. */
  private async step(trx: Tx, claims: HoldClaim[]): Promise<Held[][]> {
    const users = [...new Set(claims.map((claim) => claim.userId))];
    const [cash, returned] = await sideBySide([
      this.collateral.lockCash(trx, users),
      this.collateral.takeReturns(trx, users),
    ] as const);
    const step = holdCollateral(cash, returned, claims);
    const holds = claims.flatMap((claim, c) =>
      claim.needs.flatMap((need, n) => {
        const verdict = step.verdicts[c]?.[n];
        return verdict && 'held' in verdict && verdict.held > 0
          ? [{ userId: claim.userId, market: need.market, cents: verdict.held }]
          : [];
      }),
    );
    const [, ids] = await sideBySide([
      this.ledger.postMany(trx, step.entries),
      this.collateral.insertHolds(trx, holds, this.settings.holdLifetimeMs),
    ] as const);
    return claims.map((claim, c) =>
      claim.needs.map((_, n): Held => {
        const verdict = step.verdicts[c]?.[n];
        if (!verdict) return { none: true };
        if ('refused' in verdict)
          return {
            refused: new InsufficientFundsError(verdict.refused.neededCents, verdict.refused.availableCents),
          };
        if (verdict.held === 0) return { none: true };
        return { holdId: ids.shift() as number, cents: verdict.held };
      }),
    );
  }
}
