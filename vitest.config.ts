import { defineConfig } from 'vitest/config';

// CI sets VITEST_JSON_REPORT to collect counts from both database runs; people get the default reporter.
const jsonReport = process.env.VITEST_JSON_REPORT;

/**
 * The slow project: tests that build the server, drive a browser, start other processes (the
 * CLI, the stdio MCP server, initdb, kill -9) or seed the whole demo, and the one that measures a process's memory.
 * Everything else is the fast project (`npm run test:fast`), run without isolation.
 */
const SLOW = [
  'tests/browser/**',
  'tests/multiprocess/**',
  'tests/cli/**',
  'tests/mcp/stdio.test.ts',
  'tests/db/pglite-template.test.ts',
  'tests/db/pglite-lock.test.ts',
  'tests/domain/files/scenarios.test.ts',
  'tests/domain/files/decks-pptx-libreoffice.test.ts',
  'tests/domain/books/import.test.ts',
  'tests/jobs/processes.test.ts',
  'tests/bench/smoke.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['tests/global-setup.ts'],
    // Per file: the temporary directories its tests made are removed when it ends (tests/helpers/temp.ts).
    setupFiles: ['tests/setup-file.ts'],
    // Each file opens its own database (about 0.5–1 s on PGlite from the template); PostgreSQL concurrency tests run long.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Memory tests force a collection before each sample, so they measure live bytes and not the collector's timing.
    execArgv: ['--expose-gc'],
    maxWorkers: 2,
    reporters: jsonReport ? ['default', 'json'] : ['default'],
    outputFile: jsonReport ? { json: jsonReport } : undefined,
    projects: [
      // Shared workers: the server's modules load once per worker, not once per file (every registry is built per
      // runtime), and on PGlite the files share the worker's database (tests/helpers/shared-db.ts).
      { extends: true, test: { name: 'fast', include: ['tests/**/*.test.ts'], exclude: SLOW, isolate: false } },
      { extends: true, test: { name: 'slow', include: SLOW.map((p) => (p.endsWith('**') ? `${p}/*.test.ts` : p)) } },
    ],
  },
});
