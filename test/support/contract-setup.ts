import { afterAll, afterEach } from 'vitest';
import { contractViolations } from './contract.js';

/** Fails the test (or the file, for what its set-up and tear-down received) that got a response off the contract. */
function failOnViolations(): void {
  if (contractViolations.length === 0) return;
  const seen = [...new Set(contractViolations.splice(0))];
  throw new Error(`responses that break the OpenAPI contract:\n  ${seen.join('\n  ')}`);
}

afterEach(failOnViolations);
afterAll(failOnViolations);
