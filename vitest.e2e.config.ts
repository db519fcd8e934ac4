import { defineConfig } from 'vitest/config';

/** Browser tests: one server and one headless Chromium, files one after another (`npm run test:e2e`). */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    fileParallelism: false,
    testTimeout: 60_000,
    // A browser on a busy machine: give each awaited page state a few seconds, not vitest's default second.
    expect: { poll: { timeout: 10_000, interval: 100 } },
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
