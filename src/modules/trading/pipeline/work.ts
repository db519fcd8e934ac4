import type { Decision, Holdings, Instruction } from '../../../exchange/decision.js';
import type { LockedMarket } from '../repository.js';
import type { BookOutcome, BookRequest } from '../types.js';

/** One market's part of a transaction: the market under its lock, the requests taken, and what becomes of them. */
export interface MarketWork {
  market: LockedMarket;
  requests: BookRequest[];
  /** Filled as each request's outcome is known (admission, then the decision). */
  outcomes: (BookOutcome | undefined)[];
}

/** The requests of a market that go to its decision, with what their takers hold. */
export interface HeldWork {
  work: MarketWork;
  /** Which of the market's requests are decided, in order. */
  indexes: number[];
  holdings: Holdings;
  instructions: Instruction[];
}

/** A market's decision, with its place in the transaction's shared statements. */
export interface DecidedWork extends HeldWork {
  decision: Decision;
}
