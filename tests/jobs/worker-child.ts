import { createRuntime } from '../../domain/deployed.js';
import { EXTRA, control } from './kit.js';

/*
 * A server process's job workers, for tests/jobs/processes.test.ts: a runtime on DATABASE_URL with the test
 * family's job and its workers. Prints "ready", then one line per run ("run <jobId> <taskId> <retryCount>");
 * SIGTERM closes it as the server does.
 */
const errorOf = (o: object) => (o as { err?: Error }).err?.message ?? '';
control.onRun = (line) => process.stdout.write(`${line}\n`);
const runtime = await createRuntime({
  databaseUrl: process.env.DATABASE_URL,
  ...EXTRA,
  workers: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 },
  log: { info() {}, warn: (o, m) => process.stderr.write(`warn ${m}: ${errorOf(o)}\n`), error: (o, m) => process.stderr.write(`error ${m}: ${errorOf(o)}\n`) },
});
process.once('SIGTERM', () => {
  void runtime.close().then(() => process.exit(0));
});
process.stdout.write('ready\n');
