import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type OpenDbOptions } from '../../db/index.js';
import { openNotifier } from '../../db/notifier.js';
import { one, type Db } from '../../db/types.js';
import { DEFAULT_CORE_CONFIG, silentLogger, systemClock, type Clock, type Deps, type DomainConfig, type Logger } from './deps.js';
import type { MethodHandler } from './handler.js';
import { Pipeline } from './pipeline.js';
import { KeyCache } from './key-cache.js';
import type { Background, FamilySet, Family } from './family.js';
import { runStartupSteps } from './startup.js';
import type { JobDefinition } from '../jobs/define.js';
import { openJobs, type WorkerOptions } from '../jobs/scheduler.js';
import { DEFAULT_AI_CONFIG, type AiConfig } from '../../ai-gateway/config.js';
import { createProvider } from '../../ai-gateway/providers.js';
import type { Provider } from '../../ai-gateway/types.js';
import { AnswererRegistry, type Answerer } from '../../ai-gateway/answerer.js';
import type { MailConfig } from '../../mail/config.js';
import { createMailService } from '../../mail/service.js';
import { createBlobService } from '../../blobs/index.js';
import { defaultBlobConfig, type BlobConfig } from '../../blobs/config.js';
import { StreamHub } from '../stream/hub.js';
import { EventAccess } from '../stream/visibility.js';

export interface RuntimeOptions extends OpenDbOptions {
  /**
   * An open, migrated database (openDb) to use instead of opening one; the runtime does not close it. Tests on
   * PGlite share one per worker, as the PostgreSQL run shares one database.
   */
  db?: Db;
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
  /** Families beside the deployed ones, for tests that bring a method, a job, an answerer or a contribution of their own. */
  extraFamilies?: readonly Family[];
  /** Extra AI answerers beside the families' (tests of the gateway's registry). */
  extraAnswerers?: readonly Answerer[];
  /** Extra handlers, for tests that exercise the pipeline with a method of their own (replacing a deployed one of the name). */
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

/**
 * Open the database, migrate, load the instance secret, and assemble the pipeline over these families (and a test's
 * extras): every registry is built here, for this runtime alone.
 */
export async function openRuntime(deployed: FamilySet, opts: RuntimeOptions = {}): Promise<Runtime> {
  const families = deployed.with([...(opts.extraFamilies ?? []), ...testExtras(opts)]);
  const ai = await aiDeps(families, opts); // a provider misconfigured fails here, before the database is opened
  const log = opts.log ?? silentLogger;
  const onError = (err: Error, what: string) => log.warn({ err }, what);
  const vectors = opts.vectors ?? Boolean(ai.config.embed); // pgvector is loaded into PGlite only when embeddings are configured
  const db = opts.db ?? (await openDb({ notice: (message) => opts.log?.info({}, message), onListenError: onError, ...opts, vectors }));
  const closeDb = () => (opts.db ? Promise.resolve() : db.close());
  let notifier: Deps['notifier'];
  try {
    notifier = await openNotifier(db, { onError });
  } catch (err) {
    await closeDb();
    throw err;
  }
  // The families' settings are declared and defaulted by them (FamilyConfig); a setting none declares stays unset.
  const config = { ...DEFAULT_CORE_CONFIG, ...families.config, ...opts.config } as DomainConfig;
  const signingKey = opts.signingKey ?? (await instanceSecret(db, 'signature_hmac'));
  const blobs = blobConfig(opts);
  // Undelivered mail: under the data dir, or an in-memory runtime's temp dir.
  const outboxTemp = opts.mail ? undefined : memoryTemp(opts, 'outbox');
  // Assembled below, over these deps: deps.readAs reaches it once it is.
  let pipeline: Pipeline | undefined;
  const deps: Deps = {
    db,
    config,
    clock: opts.clock ?? systemClock,
    signingKey,
    notifier,
    log,
    ai,
    mail: createMailService(opts.mail ?? { outboxDir: outboxTemp ?? join(opts.dataDir ?? './.data', 'outbox') }),
    blobs: createBlobService(db, blobs.config, signingKey),
    stream: new StreamHub(db, notifier, { pollMs: config.streamPollMs, onError }),
    events: new EventAccess(families),
    jobs: await openJobs(db, families.jobs, () => deps, log),
    families,
    // Reads reuse recently authenticated keys; every process drops them as access changes (core/key-cache.ts).
    keys: new KeyCache({ ttlMs: config.keyCacheTtlMs, size: config.keyCacheSize }),
    readAs: (principal, method, params, requestId) =>
      pipeline ? pipeline.readAs(principal, method, params, requestId) : Promise.reject(new Error(`readAs ${method}: the pipeline is not assembled yet`)),
  };
  deps.keys.watch(notifier);
  // Each serve asks the record's check at business time (a retention date, a grant's expiry), not the machine's.
  for (const [kind, check] of families.signedRecords)
    deps.blobs.bindRecord(kind, (q, orgId, record, sha256) => check(q, orgId, record, sha256, deps.clock.now()));
  try {
    // What the migrations left for the application (its normalisers, its ledger events), before any call.
    await runStartupSteps(deps, families.startup);
  } catch (err) {
    await deps.jobs.close();
    await deps.mail.close();
    await deps.blobs.close();
    await deps.stream.close();
    await notifier.close();
    await closeDb();
    throw err;
  }
  // A test's extra handler may stand in for a deployed method of the same name.
  const methods = opts.extraHandlers ? new Map([...families.methods, ...opts.extraHandlers]) : families.methods;
  pipeline = new Pipeline(deps, methods, families.reads);
  if (opts.workers) await deps.jobs.startWorkers(opts.workers === true ? {} : opts.workers);
  // Families' background work (notification delivery) runs in the processes that run workers.
  const background: Background[] = opts.workers ? families.list.flatMap((f) => (f.background ? [f.background(deps)] : [])) : [];
  const close = async () => {
    for (const b of background) await b.stop(); // before the mail service and the database they use
    await deps.jobs.close(); // first: a running job may still use the mail and the database
    await deps.mail.close();
    await deps.blobs.close();
    // Temp dirs of an in-memory runtime: a file still being written as they go is retried (ENOTEMPTY).
    for (const dir of [blobs.tempDir, outboxTemp]) if (dir) await rm(dir, TEMP_RM);
    await deps.stream.close();
    await notifier.close();
    await closeDb();
  };
  return { db, deps, pipeline, close };
}

const TEMP_RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 50 } as const;

/** An in-memory runtime's own temp dir for `name` (made on first write, removed at close); undefined on disk. */
const memoryTemp = (opts: RuntimeOptions, name: string): string | undefined =>
  opts.inMemory || opts.dataDir === 'memory' ? join(tmpdir(), `wops-${name}-${randomUUID()}`) : undefined;

/** In-memory databases (tests) keep their blobs in a temp dir of their own (made on first upload), removed at close. */
function blobConfig(opts: RuntimeOptions): { config: BlobConfig; tempDir?: string } {
  const tempDir = !opts.blobs?.dir && !opts.blobs?.s3 ? memoryTemp(opts, 'blobs') : undefined;
  const base = defaultBlobConfig(tempDir ? tempDir : (opts.dataDir ?? './.data'));
  return { config: { ...base, ...(tempDir ? { dir: tempDir } : {}), ...opts.blobs }, tempDir };
}

/** A test's extra jobs as a family of its own. */
const testExtras = (opts: RuntimeOptions): Family[] => (opts.extraJobs ? [{ name: 'test-jobs', jobs: opts.extraJobs }] : []);

async function aiDeps(families: FamilySet, opts: RuntimeOptions): Promise<Deps['ai']> {
  const config: AiConfig = { ...DEFAULT_AI_CONFIG, ...opts.ai };
  const answerers = new AnswererRegistry([...families.answerers, ...(opts.extraAnswerers ?? [])]);
  return { config, provider: opts.aiProvider ?? (await createProvider(config)), answerers, now: opts.aiNow, spend: families.spend };
}

/** A random secret created once per installation and shared by every process on the database. */
async function instanceSecret(db: Db, name: string): Promise<string> {
  await db.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32).toString('hex')]);
  return one(await db.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [name]), `instance secret ${name}`).value;
}
