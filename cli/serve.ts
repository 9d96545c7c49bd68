import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { buildApp } from '../gateway/app.js';
import { createRuntime } from '../domain/deployed.js';
import { bootstrapIfEmpty } from '../domain/system.js';
import { mcpHttp } from '../mcp/http.js';
import type { ServerConfig } from './config.js';
import { seedAndReport } from './demo-command.js';
import { findOrgBySlug } from '../domain/people/org/service.js';
import { startBlobGc } from '../blobs/gc.js';

/** Start the server: open and migrate the database, bootstrap an empty one, listen, close gracefully. */
export async function serve(config: ServerConfig, opts: { demo?: boolean } = {}): Promise<void> {
  const started = performance.now();
  // One buffered destination for every logger: lines are written asynchronously, off the request's path (several at
  // once under load), and flushed when the process exits, also on an uncaught error; a kill -9 or a crash of node
  // itself loses the lines not yet written (what the last few milliseconds logged).
  const destination = pino.destination({ dest: 1, sync: false });
  const log = pino({ level: config.logLevel, redact: ['req.headers.authorization'] }, destination);
  const runtime = await createRuntime({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplateDir: config.pgliteTemplateDir,
    poolSize: config.poolSize,
    lockTimeoutMs: config.lockTimeoutMs,
    groupCommitWaitMs: config.groupCommitWaitMs,
    config: {
      publicUrl: config.publicUrl,
      holdTtlMs: config.holdTtlMs,
      approvalWaitPollMs: config.approvalWaitPollMs,
      streamPollMs: config.stream.pollMs,
      notifyPollMs: config.notifyPollMs,
      keyCacheTtlMs: config.keyCache.ttlMs,
      keyCacheSize: config.keyCache.size,
      pairing: config.pairing,
      billingPlans: config.billingPlans,
      livekit: config.livekit,
      vault: config.vault,
      emailInbound: config.emailInbound,
      ...config.runtime,
    },
    ai: config.ai,
    mail: config.mail,
    blobs: config.blobs,
    log,
    // The server runs the families' scheduled jobs (domain/jobs); each running effect holds a pool connection.
    workers: { concurrency: Math.max(1, Math.min(config.jobsConcurrency, Math.floor(config.poolSize / 2))) },
  });
  const boot = await bootstrapIfEmpty(runtime.db, config.bootstrapAdminKey);
  if (opts.demo && !(await findOrgBySlug(runtime.db, 'demo'))) {
    // A demo that cannot be seeded (no PAYG schedule for its pay dates) is reported; the server still starts.
    await seedAndReport(runtime, 'demo', (line) => process.stdout.write(`${line}\n`)).catch((err: Error) =>
      log.error({}, `demo company not seeded: ${err.message}`),
    );
  }
  const app = await buildApp({
    runtime,
    logger: { level: config.logLevel, redact: ['req.headers.authorization'], stream: destination },
    requestLog: config.requestLog,
    rateLimitPerMinute: config.rateLimitPerMinute,
    redisUrl: config.redisUrl,
    timeouts: config.timeouts,
    trustProxy: config.trustProxy,
    stream: { heartbeatMs: config.stream.heartbeatMs, maxBufferedFrames: config.stream.maxBufferedFrames },
  });
  // MCP over Streamable HTTP at /mcp, on the same port, keys, rate limits and pipeline.
  await app.register(mcpHttp, {
    pipeline: runtime.pipeline,
    publicUrl: config.publicUrl,
    allowedOrigins: config.mcp.allowedOrigins,
    humanDecisions: config.mcp.allowDecisions,
  });

  // Blob GC on a timer in each server process (safe to run in several: row locks, SKIP LOCKED); a candidate to
  // become a recurring job of the scheduler (domain/jobs) so one process runs it.
  const stopBlobGc = startBlobGc(runtime.deps.blobs, { intervalMs: config.blobs.gcIntervalMs, log });

  closeWithGrace({ delay: 10_000, logger: { error: (m: unknown) => log.error({ err: m }, 'shutdown') } }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'closing after an unexpected error');
    else log.info({ signal }, 'closing');
    stopBlobGc();
    await app.close();
    await runtime.close();
  });

  await app.listen({ port: config.port, host: config.host });
  const where = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  log.info({}, runtime.deps.mail.describe());
  log.info({}, runtime.deps.blobs.describe());
  log.info({ port: config.port, database: runtime.db.kind, startupMs: Math.round(performance.now() - started) }, `serving on ${config.publicUrl} (${where})`);
  if (boot) {
    // Printed once, to the terminal only: the secret is stored hashed and cannot be shown again.
    const lines = [
      `Created org "default" (${boot.orgId}).`,
      boot.generatedKey ? `Admin API key (shown once, store it now): ${boot.admin.apiKey}` : 'Admin API key: the BOOTSTRAP_ADMIN_KEY you set.',
      `Try: curl -s -H "Authorization: Bearer <key>" ${config.publicUrl}/api/v1/org/whoami`,
      opts.demo ? '' : 'To try the books on a demo company, restart with: npm start -- --demo   (or stop the server and run: npm run cli -- demo)',
    ];
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
  }
}
