import type { Db } from '../../db/types.js';
import type { Notifier } from '../../db/notifier.js';
import type { AiDeps } from '../../ai-gateway/providers.js';
import type { MailService } from '../../mail/types.js';
import type { BlobService } from '../../blobs/service.js';
import type { Jobs } from '../jobs/scheduler.js';
import type { StreamHub } from '../stream/hub.js';
import type { EventAccess } from '../stream/visibility.js';
import type { Principal } from './auth.js';
import type { FamilySet } from './family.js';
import type { KeyCache } from './key-cache.js';

/**
 * A family's own settings, declared by the family augmenting this interface from its module
 * (`declare module '../core/deps.js' { interface FamilyConfig { livekit: LivekitConfig | null } }`) with its
 * defaults in its descriptor (`config`): the core names no family.
 */
// An interface (not a type) so that families can augment it.
export interface FamilyConfig {}

export interface DomainConfig extends FamilyConfig {
  /** Lifetime of a signature hold and of the approval filed for it. */
  holdTtlMs: number;
  /** Where a human opens an approval (the approval inbox); quoted in hold messages. */
  publicUrl: string;
  /**
   * approval.wait re-reads this often even without a notification: only a safety net, since a decision in any
   * process wakes it through the live stream (domain/stream).
   */
  approvalWaitPollMs: number;
  /** The live stream (domain/stream) polls the heads of orgs with open streams this often: lost notifications only delay. */
  streamPollMs: number;
  /** Notification delivery (domain/notification) runs at least this often in a process with workers (NOTIFY_POLL_MS). */
  notifyPollMs: number;
  /** Reads reuse a key's principal this long (KEY_CACHE_TTL_MS; 0: every read authenticates): core/key-cache.ts. */
  keyCacheTtlMs: number;
  /** At most this many keys' principals are kept (KEY_CACHE_SIZE). */
  keyCacheSize: number;
}

/** The core's defaults; each family's come from its descriptor (Family.config). */
export const DEFAULT_CORE_CONFIG: Omit<DomainConfig, keyof FamilyConfig> = {
  holdTtlMs: 24 * 60 * 60 * 1000,
  publicUrl: 'http://localhost:8080',
  approvalWaitPollMs: 5000,
  streamPollMs: 1000,
  notifyPollMs: 2000,
  // Off unless set: a change made in SQL outside this process is seen only when its notification arrives.
  keyCacheTtlMs: 0,
  keyCacheSize: 1000,
};

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** Business time: the books' "today" (due dates, overdue, promises, pay dates). Tests and the demo seed set it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What every handler may reach besides its transaction. */
export interface Deps {
  db: Db;
  config: DomainConfig;
  clock: Clock;
  /** HMAC key for signature tokens (instance secret). */
  signingKey: string;
  /** Notifications across every process on the database (db/notifier.ts), e.g. `approval.decided` for long-polls. */
  notifier: Notifier;
  log: Logger;
  /** The AI gateway behind every AI method: its configuration, provider and registered answerers (ai-gateway/). */
  ai: AiDeps;
  /** Outbound mail for every family (mail/): it appends no events, so the caller records ids and statuses. */
  mail: MailService;
  /** Blobs (blobs/): uploads, signed download URLs; families hold them with blobs/refs.ts referenceBlob. */
  blobs: BlobService;
  /** Scheduled work (domain/jobs): handlers schedule through HandlerCtx.schedule, which enqueues at emit. */
  jobs: Jobs;
  /** The org's ledger live, one reader per org in this process (domain/stream): GET /org/stream, approval.wait, the inbox. */
  stream: StreamHub;
  /** Which ledger events each reader may see (domain/stream/visibility.ts): GET /events, the stream, MCP's ledger. */
  events: EventAccess;
  /** The deployed families of this runtime and their registries: extension points are read from here (core/family.ts). */
  families: FamilySet;
  /**
   * Reads' cache of API keys (core/key-cache.ts). A handler that ends access in an org other than its caller's (an
   * org deleted by its parent) drops that org here after commit; the caller's own org is dropped by the pipeline.
   */
  keys: KeyCache;
  /**
   * Run an R method as `principal`, as a call's readAs does (scope, deployment, params, org): for work outside a
   * call that reads as a member, such as a job's prepare (email's background triage reads as an agent seat).
   */
  readAs(principal: Principal, method: string, params: unknown, requestId?: string): Promise<unknown>;
}
