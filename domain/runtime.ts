import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type OpenDbOptions } from '../db/index.js';
import { openNotifier } from '../db/notifier.js';
import type { Db } from '../db/types.js';
import { DEFAULT_DOMAIN_CONFIG, silentLogger, systemClock, type Clock, type Deps, type DomainConfig, type Logger } from './deps.js';
import type { MethodHandler, ReadHandler } from './handler.js';
import { Pipeline } from './pipeline.js';
import { JOB_DEFINITIONS, METHOD_HANDLERS, READ_HANDLERS, STARTUP_STEPS } from './deployed.js';
import { runStartupSteps } from './startup.js';
import type { JobDefinition } from './jobs/define.js';
import { openJobs, type WorkerOptions } from './jobs/scheduler.js';
import { DEFAULT_AI_CONFIG, type AiConfig } from '../ai-gateway/config.js';
import { createProvider } from '../ai-gateway/providers.js';
import type { Provider } from '../ai-gateway/types.js';
import { AnswererRegistry, type Answerer } from '../ai-gateway/answerer.js';
import { ANSWERERS } from './answerers.js';
import type { MailConfig } from '../mail/config.js';
import { createMailService } from '../mail/service.js';
import { createBlobService } from '../blobs/index.js';
import { defaultBlobConfig, type BlobConfig } from '../blobs/config.js';
import { StreamHub } from './stream/hub.js';
import { startDelivery } from './notification/delivery.js';

export interface RuntimeOptions extends OpenDbOptions {
  config?: Partial<DomainConfig>;
  log?: Logger;
  /** Business time for the books (default: the system clock). */
  clock?: Clock;
  /** Overrides the stored instance signing key (SIGNATURE_SECRET). */
  signingKey?: string;
  /** AI gateway settings (cli/config.ts reads them from AI_*; default: the local provider). */
  ai?: Partial<AiConfig>;
  /** A provider to use instead of the configured one (tests). */
  aiProvider?: Provider;
  /** Wall-clock time of the AI audit and budget (tests; default the system clock). */
  aiNow?: () => Date;
  /** Outbound mail (cli/config.ts reads SMTP_*, DKIM_*, MAIL_OUTBOX_DIR; default: no relay, outbox under dataDir). */
  mail?: MailConfig;
  /** Blob store (cli/config.ts reads BLOBS_*, BLOB_*; default: disk under dataDir/blobs, a temp dir in memory). */
  blobs?: Partial<BlobConfig>;
  /** Extra AI answerers beside the families' (tests of the gateway's registry). */
  extraAnswerers?: readonly Answerer[];
  /** Extra handlers, for tests that exercise the pipeline with a method of their own. */
  extraHandlers?: ReadonlyMap<string, MethodHandler>;
  /** Extra job definitions beside the families' (tests of the scheduler). */
  extraJobs?: readonly JobDefinition<any>[];
  /** Run job workers in this process (the server does); tests and CLI commands leave it off unless they ask. */
  workers?: boolean | WorkerOptions;
}

export interface Runtime {
  db: Db;
  deps: Deps;
  pipeline: Pipeline;
  close(): Promise<void>;
}

/** Open the database, migrate, load the instance secret, and assemble the pipeline. */
export async function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const ai = await aiDeps(opts); // a provider misconfigured fails here, before the database is opened
  const log = opts.log ?? silentLogger;
  const onError = (err: Error, what: string) => log.warn({ err }, what);
  const db = await openDb({ notice: (message) => opts.log?.info({}, message), onListenError: onError, ...opts });
  let notifier: Deps['notifier'];
  try {
    notifier = await openNotifier(db, { onError });
  } catch (err) {
    await db.close();
    throw err;
  }
  const config = { ...DEFAULT_DOMAIN_CONFIG, ...opts.config };
  const signingKey = opts.signingKey ?? (await instanceSecret(db, 'signature_hmac'));
  const blobs = blobConfig(opts);
  const deps: Deps = {
    db,
    config,
    clock: opts.clock ?? systemClock,
    signingKey,
    notifier,
    log,
    ai,
    mail: createMailService(opts.mail ?? { outboxDir: join(opts.dataDir ?? './.data', 'outbox') }),
    blobs: createBlobService(db, blobs.config, signingKey),
    stream: new StreamHub(db, notifier, { pollMs: config.streamPollMs, onError }),
    jobs: await openJobs(db, [...JOB_DEFINITIONS, ...(opts.extraJobs ?? [])], () => deps, log),
  };
  try {
    // What the migrations left for the application (its normalisers, its ledger events), before any call.
    await runStartupSteps(deps, STARTUP_STEPS);
  } catch (err) {
    await deps.jobs.close();
    await deps.mail.close();
    await deps.blobs.close();
    await deps.stream.close();
    await notifier.close();
    await db.close();
    throw err;
  }
  const handlers = new Map<string, MethodHandler>([...METHOD_HANDLERS, ...(opts.extraHandlers ?? [])]);
  const pipeline = new Pipeline(deps, handlers, READ_HANDLERS as ReadonlyMap<string, ReadHandler>);
  if (opts.workers) await deps.jobs.startWorkers(opts.workers === true ? {} : opts.workers);
  // Notifications are mailed by the processes that run workers (domain/notification/delivery.ts).
  const delivery = opts.workers ? startDelivery(deps, { pollMs: config.notifyPollMs }) : undefined;
  const close = async () => {
    await delivery?.stop(); // before the mail service and the database it uses
    await deps.jobs.close(); // first: a running job may still use the mail and the database
    await deps.mail.close();
    await deps.blobs.close();
    if (blobs.tempDir) await rm(blobs.tempDir, { recursive: true, force: true });
    await deps.stream.close();
    await notifier.close();
    await db.close();
  };
  return { db, deps, pipeline, close };
}

/** In-memory databases (tests) keep their blobs in a temp dir of their own (made on first upload), removed at close. */
function blobConfig(opts: RuntimeOptions): { config: BlobConfig; tempDir?: string } {
  const inMemory = opts.inMemory || opts.dataDir === 'memory';
  const tempDir = inMemory && !opts.blobs?.dir && !opts.blobs?.s3 ? join(tmpdir(), `wops-blobs-${randomUUID()}`) : undefined;
  const base = defaultBlobConfig(tempDir ? tempDir : (opts.dataDir ?? './.data'));
  return { config: { ...base, ...(tempDir ? { dir: tempDir } : {}), ...opts.blobs }, tempDir };
}

async function aiDeps(opts: RuntimeOptions): Promise<Deps['ai']> {
  const config: AiConfig = { ...DEFAULT_AI_CONFIG, ...opts.ai };
  const answerers = new AnswererRegistry([...ANSWERERS, ...(opts.extraAnswerers ?? [])]);
  return { config, provider: opts.aiProvider ?? (await createProvider(config)), answerers, now: opts.aiNow };
}

/** A random secret created once per installation and shared by every process on the database. */
async function instanceSecret(db: Db, name: string): Promise<string> {
  await db.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    randomBytes(32).toString('hex'),
  ]);
  const [row] = await db.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [name]);
  return row.value;
}
