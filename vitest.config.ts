import { defineConfig } from 'vitest/config';

// CI sets VITEST_JSON_REPORT to collect counts from both database runs; people get the default reporter.
const jsonReport = process.env.VITEST_JSON_REPORT;

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    // Each file opens its own database (about 0.5–1 s on PGlite from the template); PostgreSQL concurrency tests run long.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: jsonReport ? ['default', 'json'] : ['default'],
    outputFile: jsonReport ? { json: jsonReport } : undefined,
  },
});
