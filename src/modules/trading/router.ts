import type { Tx } from '../../platform/db/types.js';
import type { MarketDirectory } from './directory.js';
import { IdempotencyRaceError } from './idempotency.js';
import type { OrderPipeline } from './pipeline/index.js';
import type { MarketRef } from './repository.js';
import type { BookOutcome, BookRequest } from './types.js';

/**
 * The path a request takes to its decision: the market its option trades in (remembered by the directory), that
 * market's queue in the pipeline, and back; a request handed back by its batch runs alone, one sent to the wrong
 * market (an event's kind changed) looks again. Each method answers the request's result, or throws its refusal.
 */
export class RequestRouter {
  constructor(
    private readonly pipeline: OrderPipeline,
    private readonly markets: MarketDirectory,
  ) {}

  /** Takes no more requests; resolves once every request taken has its answer. */
  drain(): Promise<void> {
    return this.pipeline.drain();
  }

  /** Requests run in a transaction the caller holds, under the lock of the option's market. */
  async inTransaction(trx: Tx, optionId: number, requests: BookRequest[]): Promise<unknown[]> {
    const outcomes = await this.pipeline.runInTransaction(
      trx,
      await this.markets.of(optionId, trx),
      requests,
    );
    return outcomes.map(resultOf);
  }

  /** A request about an option, through its market's queue: its answer, or its refusal thrown. */
  async toOption(optionId: number, request: BookRequest): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.run(await this.markets.of(optionId), request);
      if (!('reroute' in outcome) || attempt >= 2) return resultOf(outcome);
      // Its event's kind changed since this instance last looked (a draft made exclusive, or not).
      this.markets.forget(optionId);
    }
  }

  /**
   * Requests about options, each with its own answer or refusal (an entry that is already an error stays one), all
   * sent at once: each market's requests queue in the order given, and the markets go side by side (what a request
   * may spend was set aside beforehand, in order, so no market's decision depends on another's).
   */
  async all(
    entries: ({ optionId: number; request: BookRequest } | { error: unknown })[],
  ): Promise<({ result: unknown } | { error: unknown })[]> {
    const refs = await Promise.all(
      entries.map((entry) => ('request' in entry ? this.markets.of(entry.optionId) : null)),
    );
    return Promise.all(
      entries.map((entry, index) => {
        const ref = refs[index];
        if (!('request' in entry) || !ref) return entry as { error: unknown };
        return this.via(ref, entry.optionId, entry.request).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
      }),
    );
  }

  /** A request about an option, through the market it was found in: its answer, or its refusal thrown. */
  private async via(ref: MarketRef, optionId: number, request: BookRequest): Promise<unknown> {
    const outcome = await this.run(ref, request);
    if ('reroute' in outcome) return this.toOption(optionId, request);
    return resultOf(outcome);
  }

  /** A request about a market, through its queue: its answer, or its refusal thrown. */
  async toMarket(ref: MarketRef, request: BookRequest): Promise<unknown> {
    return resultOf(await this.run(ref, request));
  }

  private async run(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    let outcome = await this.pipeline.submit(ref, request);
    // Handed back by its batch: run it on its own (a second try replays an answer stored meanwhile).
    for (let attempt = 0; 'alone' in outcome; attempt++) {
      outcome = await this.pipeline.alone(ref, request).catch((error: unknown) => {
        if (error instanceof IdempotencyRaceError && attempt === 0) return { alone: true as const };
        throw error;
      });
    }
    return outcome;
  }
}

export function resultOf(outcome: BookOutcome | undefined): unknown {
  if (!outcome || 'alone' in outcome || 'reroute' in outcome)
    throw new Error('a book request was left without an answer');
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}
