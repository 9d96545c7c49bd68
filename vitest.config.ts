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
    // Test files share each worker's module graph instead of importing the application again per file: the same
    // 4,200 tests took 421 s instead of 637 s (imports 16 s against 359 s). Every file still opens its own database
    // and org, so files share no rows; what they may share is module state, which is why none keeps any.
    isolate: false,
    maxWorkers: 2,
    reporters: jsonReport ? ['default', 'json'] : ['default'],
    outputFile: jsonReport ? { json: jsonReport } : undefined,
  },
});
