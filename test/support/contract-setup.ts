import { afterAll, afterEach } from 'vitest';
import { guardTransactions, takeTransactionViolations } from '../../src/platform/db/transaction-guard.js';
import { contractViolations } from './contract.js';

// A statement through the pool inside a transaction's callback fails at once, on either database.
guardTransactions(true);

/** Fails the test (or the file, for what its set-up and tear-down received) that got a response off the contract. */
function failOnViolations(): void {
  if (contractViolations.length === 0) return;
  const seen = [...new Set(contractViolations.splice(0))];
  throw new Error(`responses that break the OpenAPI contract:\n  ${seen.join('\n  ')}`);
}

/** Fails the test that sent a statement through the pool from inside a transaction, even when the error was caught. */
function failOnPoolInsideTransaction(): void {
  const [first, ...rest] = takeTransactionViolations();
  if (!first) return;
  first.message += rest.length > 0 ? ` (and ${rest.length} more)` : '';
  throw first;
}

afterEach(failOnViolations);
afterAll(failOnViolations);
afterEach(failOnPoolInsideTransaction);
afterAll(failOnPoolInsideTransaction);
