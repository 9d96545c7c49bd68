import { createHmac } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { ApiError } from '../../../protocol/errors.js';
import { one, type Queryable } from '../../../db/types.js';
import type { LimitCtx } from '../../core/handler.js';

/*
 * pairing.request needs no credential, so what one anonymous caller can cost is bounded here, in PostgreSQL,
 * which every server process shares (with or without Redis): a fixed-window counter per source address (every
 * call) and per org slug (first calls). The slug is counted whether or not an org has it, else the limit itself
 * would tell which slugs exist. Buckets are HMACs under the instance key, so the table holds no address or slug,
 * and a hash of an IPv4 address cannot be reversed by trying all 2^32.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/**
 * How long a pairing waits for an admin. The per-org window is as long, so the pairings pending at any moment
 * were asked for in at most two windows: a cap of twice the hourly limit is never reached first.
 */
export const PAIRING_TTL_MS = HOUR;

export interface Bucket {
  bucket: string;
  windowMs: number;
  max: number;
  refusal: string;
}

/**
 * The bucket of an address: IPv4 as is (an IPv4-mapped IPv6 address is its IPv4 one), IPv6 by its /64, since
 * one host commonly holds a whole /64 and could otherwise rotate addresses within it.
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export const hmac = (key: string, what: string, value: string) => createHmac('sha256', key).update(`${what}\u0000${value}`).digest('hex');

// One statement for every bucket of the call: drop ended windows, count this call, return the counts. Ended
// rows another statement is deleting are skipped, not waited for: two callers never wait on each other there.
const COUNT_SQL = `
WITH ended AS (
  DELETE FROM pairing_limits WHERE (bucket, window_no) IN (
    SELECT bucket, window_no FROM pairing_limits WHERE until < now() LIMIT 100 FOR UPDATE SKIP LOCKED)),
b AS (SELECT bucket, ms, floor(extract(epoch FROM now()) * 1000 / ms)::bigint AS n
        FROM unnest($1::text[], $2::bigint[]) AS t(bucket, ms))
INSERT INTO pairing_limits (bucket, window_no, hits, until)
SELECT bucket, n, 1, to_timestamp((n + 1) * ms / 1000.0) FROM b
ON CONFLICT (bucket, window_no) DO UPDATE SET hits = pairing_limits.hits + 1
RETURNING bucket, hits, ceil(extract(epoch FROM until - now()))::int AS retry_after`;

/** Count one call in each bucket (shared by every process); RATE_LIMITED naming the first bucket over its max. */
export async function count(db: Queryable, buckets: Bucket[]): Promise<void> {
  if (buckets.length === 0) return;
  const rows = await db.query<{ bucket: string; hits: number; retry_after: number }>(COUNT_SQL, [buckets.map((b) => b.bucket), buckets.map((b) => b.windowMs)]);
  for (const b of buckets) {
    const row = rows.find((r) => r.bucket === b.bucket);
    if (row && row.hits > b.max) {
      const seconds = Math.max(1, row.retry_after);
      throw new ApiError('RATE_LIMITED', `rate limited: ${b.refusal}; retry in ${seconds} seconds`, { retryAfterSeconds: seconds });
    }
  }
}

/** pairing.request's limit (before its transaction): one per source address, and one per org slug on first calls. */
export async function limitPairingCall(ctx: LimitCtx, p: { orgSlug: string; pairingId?: string }): Promise<void> {
  const cfg = ctx.deps.config.pairing;
  const key = ctx.deps.signingKey;
  const buckets: Bucket[] = [];
  if (cfg.perAddressPerMinute > 0 && ctx.source) {
    buckets.push({
      bucket: `addr:${hmac(key, 'pairing-address', addressBucket(ctx.source))}`,
      windowMs: MINUTE,
      max: cfg.perAddressPerMinute,
      refusal: `at most ${cfg.perAddressPerMinute} pairing.request calls a minute from one address`,
    });
  }
  if (cfg.perOrgPerHour > 0 && p.pairingId === undefined) {
    buckets.push({
      bucket: `org:${hmac(key, 'pairing-org', p.orgSlug)}`,
      windowMs: PAIRING_TTL_MS,
      max: cfg.perOrgPerHour,
      refusal: `at most ${cfg.perOrgPerHour} new pairings an hour for org ${p.orgSlug}`,
    });
  }
  await count(ctx.db, buckets);
}

/**
 * The pending cap, inside the first call's transaction: the org's pairings are counted under a per-org
 * transaction lock, so concurrent requests in any process cannot overshoot it.
 */
export async function checkPendingCap(q: Queryable, org: { orgId: string; slug: string }, pendingMax: number): Promise<void> {
  if (pendingMax <= 0) return;
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('pairings:' || $1, 0))`, [org.orgId]);
  const row = one(
    await q.query<{ pending: number; first_free: number | null }>(
      `SELECT count(*)::int AS pending, ceil(extract(epoch FROM min(expires_at) - now()))::int AS first_free
       FROM pairings WHERE org_id = $1 AND status = 'pending' AND expires_at > now()`,
      [org.orgId],
    ),
  );
  if (row.pending >= pendingMax) {
    const seconds = Math.max(1, row.first_free ?? 1);
    throw new ApiError(
      'RATE_LIMITED',
      `rate limited: org ${org.slug} already has ${pendingMax} pairings waiting for an admin; retry in ${seconds} seconds, when the oldest expires`,
      { retryAfterSeconds: seconds },
    );
  }
}
