import { ApiError } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import type { AuState } from './calendar.js';

/**
 * The books policy of an org (GET /policy shows it). Rates are fixed by law, the floor and lock are per org; the
 * super guarantee rate depends on the pay date (rates/super.ts), so it is not here.
 */
export interface BooksPolicy {
  /** Above this (strictly greater), bank matches are held and bills flagged ABOVE FLOOR. */
  materialityFloorCents: number;
  /** Journals dated on or before it are refused; null when no period is locked. */
  lockDate: string | null;
  gstRateBasisPoints: number;
  /** Days after a promised date before an unpaid promise counts as BROKEN (per org; policy.publish sets it). */
  promiseGraceDays: number;
  /** Purchases above this (GST-inclusive) need a tax invoice to claim GST credits. */
  taxInvoiceThresholdCents: number;
  /** The org's state: its public holidays (with the national ones) are not the org's business days (Payday Super uses every state's). */
  state: AuState;
}

export const DEFAULT_POLICY: BooksPolicy = {
  materialityFloorCents: 500_000,
  lockDate: null,
  gstRateBasisPoints: 1_000,
  promiseGraceDays: 3,
  taxInvoiceThresholdCents: 8_250,
  state: 'NSW',
};

/**
 * The org's policy. `share` holds the settings row until commit so the lock date cannot move under a posting;
 * `forUpdate` excludes postings (a lodgement that moves the lock date).
 */
export async function booksPolicy(q: Queryable, orgId: string, opts: { forUpdate?: boolean; share?: boolean } = {}): Promise<BooksPolicy> {
  const lock = opts.forUpdate ? ' FOR UPDATE' : opts.share ? ' FOR SHARE' : '';
  const [row] = await q.query<{ materiality_floor_cents: number; lock_date: string | null; state: AuState; promise_grace_days: number }>(
    `SELECT materiality_floor_cents, lock_date::text AS lock_date, state, promise_grace_days FROM books_settings WHERE org_id = $1${lock}`,
    [orgId],
  );
  if (!row) return DEFAULT_POLICY;
  return {
    ...DEFAULT_POLICY,
    materialityFloorCents: Number(row.materiality_floor_cents),
    lockDate: row.lock_date,
    state: row.state,
    promiseGraceDays: Number(row.promise_grace_days),
  };
}

/** Refuse a posting into a locked period. */
export function assertPeriodOpen(policy: BooksPolicy, date: string, what: string): void {
  if (policy.lockDate && date <= policy.lockDate) {
    throw new ApiError('CONFLICT', `${what}: the period is locked through ${policy.lockDate} (a lodged BAS); date ${date} cannot be posted`);
  }
}

/** Move the lock date forward (never back). Call with the settings row already locked FOR UPDATE. */
export async function setLockDate(q: Queryable, orgId: string, lockDate: string): Promise<void> {
  await q.query('UPDATE books_settings SET lock_date = greatest(lock_date, $2::date), updated_at = now() WHERE org_id = $1', [orgId, lockDate]);
}

export async function setMaterialityFloor(q: Queryable, orgId: string, cents: number): Promise<void> {
  await q.query('UPDATE books_settings SET materiality_floor_cents = $2, updated_at = now() WHERE org_id = $1', [orgId, cents]);
}

/** Days after a promised date before an unpaid promise is BROKEN (policy.publish sets it, in its transaction). */
export async function setPromiseGraceDays(q: Queryable, orgId: string, days: number): Promise<void> {
  await q.query('UPDATE books_settings SET promise_grace_days = $2, updated_at = now() WHERE org_id = $1', [orgId, days]);
}
