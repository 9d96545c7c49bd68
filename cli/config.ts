import { AI_ENV_HELP, loadAiConfig, type AiConfig } from '../ai-gateway/config.js';
import { MAIL_ENV_HELP, loadMailConfig, type MailConfig } from '../mail/config.js';
import { BLOBS_ENV_HELP, loadBlobConfig, type BlobConfig } from '../blobs/config.js';
import { MCP_ENV_HELP, loadMcpConfig, type McpConfig } from '../mcp/config.js';
import { DEFAULT_BILLING_PLANS } from '../domain/people/billing/index.js';
import { DEFAULT_PAIRING_LIMITS, type PairingLimits } from '../domain/people/pairing/index.js';
import { DEFAULT_TIMEOUTS, type HttpTimeouts } from '../gateway/timeouts.js';
import { requestLogFrom, type RequestLog } from '../gateway/request-log.js';
import { envInt } from '../config/env.js';
import { DEFAULT_GROUP_COMMIT_WAIT_MS } from '../db/group-commit.js';
import { EMAIL_INBOUND_ENV_HELP, loadEmailInboundConfig, type EmailInboundConfig } from '../domain/email/inbound/config.js';
import { LIVEKIT_ENV_HELP, loadLivekitConfig, type LivekitConfig } from '../domain/messaging/calling/config.js';
import { VAULT_ENV_HELP, loadVaultConfig, type VaultConfig } from '../domain/vault/index.js';
import { RUNTIME_ENV_HELP, loadRuntimeConfig } from '../domain/runtime/index.js';

/** Server settings, from the environment. Every variable is optional; the defaults start a local server. */
export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  /** Where new PGlite databases are copied from; null = PGlite's initdb every time (db/pglite-template.ts). */
  pgliteTemplateDir?: string | null;
  bootstrapAdminKey?: string;
  rateLimitPerMinute: number;
  /** Redis for rate limits shared by every process; unset = per process. */
  redisUrl?: string;
  /** How long a client may take to send a request or hold an idle connection. */
  timeouts: HttpTimeouts;
  /** The proxies whose X-Forwarded-For is believed (TRUST_PROXY); unset = the socket's address is the caller's. */
  trustProxy?: string[];
  /** What anonymous pairing.request callers may cost. */
  pairing: PairingLimits;
  publicUrl: string;
  holdTtlMs: number;
  /** Plan names billing.update accepts (BILLING_PLANS). */
  billingPlans: string[];
  /** approval.wait's safety re-read when no notification came (APPROVAL_WAIT_POLL_MS). */
  approvalWaitPollMs: number;
  /** The live stream (GET /api/v1/org/stream): head poll, heartbeat, how far a client may fall behind (STREAM_*). */
  stream: { pollMs: number; heartbeatMs: number; maxBufferedFrames: number };
  /** Notification delivery's pass interval (NOTIFY_POLL_MS). */
  notifyPollMs: number;
  /** Scheduled jobs' effects one process runs at once (JOBS_CONCURRENCY; serve caps it at half the pool). */
  jobsConcurrency: number;
  logLevel: string;
  requestLog: RequestLog;
  keyCache: { ttlMs: number; size: number };
  poolSize: number;
  lockTimeoutMs: number;
  /** PostgreSQL group commit's window in ms (GROUP_COMMIT_WAIT_MS; 0 off). */
  groupCommitWaitMs: number;
  /** The AI gateway behind books.ask (AI_*). */
  ai: AiConfig;
  /** Outbound mail: the relay, DKIM, the outbox (SMTP_*, DKIM_*, MAIL_OUTBOX_DIR). */
  mail: MailConfig;
  /** Blob store, limits and GC (BLOBS_*, BLOB_*). */
  blobs: BlobConfig;
  /** The MCP face: decisions over MCP, accepted browser origins (MCP_*). */
  mcp: McpConfig;
  /** Call media (LIVEKIT_*); null = calls are control plane and record only. */
  livekit: LivekitConfig | null;
  /** The inbound SMTP listener (EMAIL_SMTP_*). */
  emailInbound: EmailInboundConfig;
  /** The vault's master keys and the hosts integrations may reach although private (VAULT_MASTER_KEYS, INTEGRATION_ALLOW_HOSTS). */
  vault: VaultConfig;
  /** The agent runtime's settings (LEASE_MIN_TTL_SECONDS). */
  runtime: ReturnType<typeof loadRuntimeConfig>;
}

export const ENV_HELP = `Environment:
  PORT                  port to serve on (default 8080)
  HOST                  address to bind (default 127.0.0.1; 0.0.0.0 to serve the network)
  DATABASE_URL          PostgreSQL connection string; unset = embedded PGlite
  DATA_DIR              PGlite data directory (default ./.data; locked to one process)
  PGLITE_TEMPLATE_DIR   where the migrated empty PGlite database that new data dirs are copied from is kept
                        (default node_modules/.cache/workspace-ops; built by npm install or on first need;
                        off = run PGlite's initdb and every migration for each new data dir)
  BOOTSTRAP_ADMIN_KEY   on an empty database, use this exact string as the default org's admin key
  RATE_LIMIT_PER_MINUTE requests per minute per key (default 6000; 0 = off); per process unless REDIS_URL is set
  REDIS_URL             redis://host:port shared by every server process for RATE_LIMIT_PER_MINUTE (unset = each
                        process counts alone); while Redis is unreachable requests are not throttled (logged)
  REQUEST_TIMEOUT_MS    a request's headers and body must arrive within this, else 408 and close (default ${DEFAULT_TIMEOUTS.requestMs}; 0 = off)
  HEADERS_TIMEOUT_MS    its headers within this, also for a connection that sends nothing (default ${DEFAULT_TIMEOUTS.headersMs})
  CONNECTION_TIMEOUT_MS close a connection idle this long in both directions (default ${DEFAULT_TIMEOUTS.idleMs}; above the 50 s
                        approval.wait long-poll; 0 = off)
  KEEPALIVE_TIMEOUT_MS  how long a kept-alive connection waits for its next request (default ${DEFAULT_TIMEOUTS.keepAliveMs}; behind a load
                        balancer, set it above the balancer's idle timeout)
  TRUST_PROXY           behind a load balancer: its addresses or CIDRs, comma-separated, whose
                        X-Forwarded-For names the caller for per-address limits (default unset: the socket's address)
  PAIRING_PENDING_MAX   pending pairings one org may hold (default ${DEFAULT_PAIRING_LIMITS.pendingMax}; 0 = no cap)
  PAIRING_ORG_PER_HOUR  new pairings per org slug per hour, known or not (default ${DEFAULT_PAIRING_LIMITS.perOrgPerHour}; keep it at most half of
                        PAIRING_PENDING_MAX so the cap never tells a real org from an unknown slug; 0 = off)
  PAIRING_ADDRESS_PER_MINUTE  pairing.request calls per source address (IPv6: per /64) per minute (default ${DEFAULT_PAIRING_LIMITS.perAddressPerMinute}; 0 = off)
  PAIRING_ANSWER_FLOOR_MS     every pairing.request answer takes at least this long (default ${DEFAULT_PAIRING_LIMITS.answerFloorMs})
  PUBLIC_URL            base URL humans use to reach this server (default http://localhost:PORT)
  HOLD_TTL_MS           lifetime of a signature hold and its approval (default 86400000)
  BILLING_PLANS         plan names billing.update accepts, comma-separated (default ${DEFAULT_BILLING_PLANS.join(',')})
  APPROVAL_WAIT_POLL_MS approval.wait re-reads this often even without a notification (default 5000; a
                        decision in any process wakes it at once through PostgreSQL LISTEN/NOTIFY)
  STREAM_POLL_MS        the live stream polls the ledger heads of orgs with open streams this often (default 1000): a
                        lost notification delays a frame by at most this, never loses it
  STREAM_HEARTBEAT_MS   comment line on open streams this often, keeping proxies open; the key is checked again then
                        (default 15000)
  STREAM_MAX_BUFFERED   frames a stream's client may fall behind by before it is disconnected (default 1000; it resumes
                        with Last-Event-ID)
  NOTIFY_POLL_MS        notification mail (domain/notification): each server process looks for new events and due
                        mail this often (default 2000; at least 100); on PostgreSQL a commit in any process also
                        wakes it at once. Digests and the end of quiet hours are found by this poll
  JOBS_CONCURRENCY      scheduled jobs (domain/jobs) one server process runs at once, each in a transaction of its
                        own (default 4; at most half of PG_POOL_SIZE, so the pool always has connections left)
  PG_POOL_SIZE          PostgreSQL pool size (default 20)
  PG_LOCK_TIMEOUT_MS    longest wait for a row lock, e.g. a duplicate idempotency key in flight (default 5000)
  GROUP_COMMIT_WAIT_MS  PostgreSQL: longest a finished call waits for others to share its COMMIT (default 0: off; try 2 where COMMIT waits on a slow disk or a synchronous replica)
  LOG_LEVEL             pino level (default info)
  LOG_REQUESTS          requests in the log at info: line (default: one line each, when answered), full (fastify's
                        request and reply lines with their detail) or off
  KEY_CACHE_TTL_MS      reads reuse an API key's principal this long (default 0: every read authenticates; e.g.
                        5000). A revoked key stops at once in the process that revoked it and within a
                        notification's delivery in the others
  KEY_CACHE_SIZE        API keys whose principals are kept (default 1000)

${AI_ENV_HELP}

${MAIL_ENV_HELP}

${BLOBS_ENV_HELP}

${MCP_ENV_HELP}

${LIVEKIT_ENV_HELP}

${EMAIL_INBOUND_ENV_HELP}

${VAULT_ENV_HELP}

${RUNTIME_ENV_HELP}`;

/** TRUST_PROXY: addresses and CIDRs. Never `true`: any client could then name its own address. */
function trustProxy(raw: string | undefined): string[] | undefined {
  if (!raw || !raw.trim()) return undefined;
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((s) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s));
  if (bad !== undefined) throw new Error(`TRUST_PROXY: ${JSON.stringify(bad)} is not an address or a CIDR`);
  return list;
}

/** BILLING_PLANS: plan names (letters, digits, dot, dash, underscore), comma-separated. */
function billingPlans(raw: string | undefined): string[] {
  if (!raw || !raw.trim()) return [...DEFAULT_BILLING_PLANS];
  const list = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const bad = list.find((s) => !/^[A-Za-z0-9._-]{1,64}$/.test(s));
  if (bad !== undefined) throw new Error(`BILLING_PLANS: ${JSON.stringify(bad)} is not a plan name (letters, digits, . _ -, at most 64)`);
  return list;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = envInt(env, 'PORT', 8080);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './.data',
    pgliteTemplateDir: env.PGLITE_TEMPLATE_DIR === 'off' ? null : env.PGLITE_TEMPLATE_DIR || undefined,
    bootstrapAdminKey: env.BOOTSTRAP_ADMIN_KEY || undefined,
    rateLimitPerMinute: envInt(env, 'RATE_LIMIT_PER_MINUTE', 6000),
    redisUrl: env.REDIS_URL || undefined,
    timeouts: {
      requestMs: envInt(env, 'REQUEST_TIMEOUT_MS', DEFAULT_TIMEOUTS.requestMs),
      headersMs: envInt(env, 'HEADERS_TIMEOUT_MS', DEFAULT_TIMEOUTS.headersMs),
      idleMs: envInt(env, 'CONNECTION_TIMEOUT_MS', DEFAULT_TIMEOUTS.idleMs),
      keepAliveMs: envInt(env, 'KEEPALIVE_TIMEOUT_MS', DEFAULT_TIMEOUTS.keepAliveMs),
    },
    trustProxy: trustProxy(env.TRUST_PROXY),
    pairing: {
      pendingMax: envInt(env, 'PAIRING_PENDING_MAX', DEFAULT_PAIRING_LIMITS.pendingMax),
      perOrgPerHour: envInt(env, 'PAIRING_ORG_PER_HOUR', DEFAULT_PAIRING_LIMITS.perOrgPerHour),
      perAddressPerMinute: envInt(env, 'PAIRING_ADDRESS_PER_MINUTE', DEFAULT_PAIRING_LIMITS.perAddressPerMinute),
      answerFloorMs: envInt(env, 'PAIRING_ANSWER_FLOOR_MS', DEFAULT_PAIRING_LIMITS.answerFloorMs),
    },
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    holdTtlMs: envInt(env, 'HOLD_TTL_MS', 24 * 60 * 60 * 1000),
    billingPlans: billingPlans(env.BILLING_PLANS),
    approvalWaitPollMs: Math.max(100, envInt(env, 'APPROVAL_WAIT_POLL_MS', 5000)),
    stream: {
      pollMs: Math.max(50, envInt(env, 'STREAM_POLL_MS', 1000)),
      heartbeatMs: Math.max(50, envInt(env, 'STREAM_HEARTBEAT_MS', 15_000)),
      maxBufferedFrames: Math.max(1, envInt(env, 'STREAM_MAX_BUFFERED', 1000)),
    },
    notifyPollMs: Math.max(100, envInt(env, 'NOTIFY_POLL_MS', 2000)),
    jobsConcurrency: Math.max(1, envInt(env, 'JOBS_CONCURRENCY', 4)),
    logLevel: env.LOG_LEVEL || 'info',
    requestLog: requestLogFrom(env.LOG_REQUESTS),
    keyCache: { ttlMs: envInt(env, 'KEY_CACHE_TTL_MS', 0), size: envInt(env, 'KEY_CACHE_SIZE', 1000) },
    poolSize: envInt(env, 'PG_POOL_SIZE', 20),
    lockTimeoutMs: envInt(env, 'PG_LOCK_TIMEOUT_MS', 5000),
    groupCommitWaitMs: envInt(env, 'GROUP_COMMIT_WAIT_MS', DEFAULT_GROUP_COMMIT_WAIT_MS),
    ai: loadAiConfig(env),
    mail: loadMailConfig(env, env.DATA_DIR || './.data'),
    blobs: loadBlobConfig(env, env.DATA_DIR || './.data'),
    mcp: loadMcpConfig(env),
    livekit: loadLivekitConfig(env),
    emailInbound: loadEmailInboundConfig(env),
    vault: loadVaultConfig(env, env.DATA_DIR || './.data', env.DATABASE_URL || undefined),
    runtime: loadRuntimeConfig(env),
  };
}
