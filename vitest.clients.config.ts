import { defineConfig } from 'vitest/config';

/**
 * The client libraries against a live service (`npm run test:clients`): the CCXT class, the Python client's
 * unittest suite and the MCP server, each talking HTTP to the service listening on a real port.
 */
export default defineConfig({
  test: {
    include: ['test/clients/**/*.test.ts'],
    setupFiles: ['test/support/contract-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
