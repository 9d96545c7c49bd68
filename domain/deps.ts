import type { Db } from '../db/types.js';
import type { Notifier } from '../db/notifier.js';
import type { AiDeps } from '../ai-gateway/providers.js';
import type { MailService } from '../mail/types.js';
import type { BlobService } from '../blobs/service.js';
import type { Jobs } from './jobs/scheduler.js';
import type { StreamHub } from './stream/hub.js';
import type { LivekitConfig } from './calling/config.js';

/** What an anonymous caller may cost an org through pairing.request (domain/pairing). 0 turns a limit off. */
export interface PairingLimits {
  /** Pending (unexpired, unapproved) pairings one org may hold; more answer RATE_LIMITED. */
  pendingMax: number;
  /** First pairing.request calls per org slug per hour, known or not, across every process. */
  perOrgPerHour: number;
  /** pairing.request calls (first calls and polls) per source address per minute, across every process. */
  perAddressPerMinute: number;
  /** Every pairing.request answer leaves no sooner than this: known and unknown orgs take the same time. */
  answerFloorMs: number;
}

export const DEFAULT_PAIRING_LIMITS: PairingLimits = { pendingMax: 20, perOrgPerHour: 10, perAddressPerMinute: 30, answerFloorMs: 100 };

export interface DomainConfig {
  /** Anonymous pairing's limits. */
  pairing: PairingLimits;
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
  /** The plan names billing.update accepts (BILLING_PLANS); the first is a new subscription's default. */
  billingPlans: readonly string[];
  /** Call media (domain/calling, LIVEKIT_*); null: calls are control plane and record only. */
  livekit: LivekitConfig | null;
}

export const DEFAULT_BILLING_PLANS: readonly string[] = ['starter', 'team', 'business', 'enterprise'];

export const DEFAULT_DOMAIN_CONFIG: DomainConfig = {
  pairing: DEFAULT_PAIRING_LIMITS,
  holdTtlMs: 24 * 60 * 60 * 1000,
  publicUrl: 'http://localhost:8080',
  approvalWaitPollMs: 5000,
  streamPollMs: 1000,
  notifyPollMs: 2000,
  billingPlans: DEFAULT_BILLING_PLANS,
  livekit: null,
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
}
