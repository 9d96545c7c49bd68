import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openDb, type OpenDbOptions } from '../db/index.js';
import { openNotifier } from '../db/notifier.js';
import type { Db } from '../db/types.js';
import { DEFAULT_DOMAIN_CONFIG, silentLogger, systemClock, type Clock, type Deps, type DomainConfig, type Logger } from './deps.js';
import type { MethodHandler, ReadHandler } from './handler.js';
import { Pipeline } from './pipeline.js';
import { METHOD_HANDLERS, READ_HANDLERS } from './deployed.js';
import { DEFAULT_AI_CONFIG, type AiConfig } from '../ai-gateway/config.js';
import { createProvider } from '../ai-gateway/providers.js';
import type { Provider } from '../ai-gateway/types.js';
import type { MailConfig } from '../mail/config.js';
import { createMailService } from '../mail/service.js';

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
  /** Extra handlers, for tests that exercise the pipeline with a method of their own. */
  extraHandlers?: ReadonlyMap<string, MethodHandler>;
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
  const deps: Deps = {
    db,
    config: { ...DEFAULT_DOMAIN_CONFIG, ...opts.config },
    clock: opts.clock ?? systemClock,
    signingKey: opts.signingKey ?? (await instanceSecret(db, 'signature_hmac')),
    notifier,
    log,
    ai,
    mail: createMailService(opts.mail ?? { outboxDir: join(opts.dataDir ?? './.data', 'outbox') }),
  };
  const handlers = new Map<string, MethodHandler>([...METHOD_HANDLERS, ...(opts.extraHandlers ?? [])]);
  const pipeline = new Pipeline(deps, handlers, READ_HANDLERS as ReadonlyMap<string, ReadHandler>);
  const close = async () => {
    await deps.mail.close();
    await notifier.close();
    await db.close();
  };
  return { db, deps, pipeline, close };
}

async function aiDeps(opts: RuntimeOptions): Promise<Deps['ai']> {
  const config: AiConfig = { ...DEFAULT_AI_CONFIG, ...opts.ai };
  return { config, provider: opts.aiProvider ?? (await createProvider(config)), now: opts.aiNow };
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
