import { releaseHolder } from '../../blobs/index.js';
import type { Queryable, TxQueryable } from '../../db/types.js';
import { nextSeq } from '../../ledger/append.js';
import type { HandlerCtx } from '../core/handler.js';
import type { StartupStep } from '../core/startup.js';
import { defineJob, type JobData, type ScheduleOptions } from '../jobs/define.js';
import { insertAssetRevision, loadAsset, type AssetKind } from './assets.js';
import { designHead } from './design-log.js';
import { heads } from './model.js';

/*
 * Retention of renders and exports (decision 0083): their bytes are kept until retain_until (90 days); after it the
 * branding.expireOutputs job writes each a revision with status expired (by '', at the brand version of then, as the
 * output itself was made) and drops the asset's blob references, so the blob store's GC collects the bytes once
 * nothing else holds them (a drive file saved from a render keeps its own). One ledger event per run names the batch.
 *
 * Runs: a render or an export schedules one at its retain_until, at most one waiting per org and hour (pg-boss's
 * short policy on a singleton key), so a burst of renders is one run. A run expires what of the org is due (at most
 * BATCH), then schedules the next at the org's next retain_until (at once when the batch was full): a retainUntil
 * amended later is found by that run; one amended sooner gets a run at its new date from the amend itself. At each
 * start, orgs with outputs already overdue (made before this job existed, or a run lost) get a run.
 */

export const EXPIRE_OUTPUTS_JOB = 'branding.expireOutputs';
export const EXPIRE_EVENT = 'branding.output.expire';
const OUTPUT_KINDS: readonly AssetKind[] = ['render', 'export'];
const BATCH = 200;
/** A run finding what is due still locked or not yet due waits this long at least (the app's and the database's clocks may differ). */
const MIN_GAP_MS = 60_000;

/** At most one waiting run per org and hour of its start. */
const runOptions = (orgId: string, at: Date): ScheduleOptions => ({ startAfter: at, singletonKey: `${orgId}:${at.toISOString().slice(0, 13)}` });
/** Kept until retain_until itself: the run is a second after it. */
const after = (retainUntil: string | Date) => new Date(new Date(retainUntil).getTime() + 1000);

/** In a render's or export's call (before its event): a run when its bytes are due. */
export function scheduleExpiry(ctx: { orgId: string; schedule(name: string, data: JobData, opts?: ScheduleOptions): void }, retainUntil: string): void {
  const at = after(retainUntil);
  ctx.schedule(EXPIRE_OUTPUTS_JOB, { due: at.toISOString() }, runOptions(ctx.orgId, at));
}

/**
 * In an R write with no ledger event to cause a job (amendArtifact moving a retainUntil sooner, with its design
 * record): the run at the new date, enqueued in the call's transaction and caused by no event (causeSeq 0, as the
 * start-up's runs are), so a rolled-back call leaves none.
 */
export async function scheduleExpiryFromWrite(ctx: Pick<HandlerCtx, 'q' | 'orgId' | 'deps' | 'afterCommit'>, retainUntil: string): Promise<void> {
  const at = after(retainUntil);
  await ctx.deps.jobs.enqueue(ctx.q, ctx.orgId, 0, [ctx.deps.jobs.check(EXPIRE_OUTPUTS_JOB, { due: at.toISOString() }, runOptions(ctx.orgId, at))]);
  ctx.afterCommit(() => ctx.deps.jobs.wake([EXPIRE_OUTPUTS_JOB]));
}

const CURRENT = `brand_assets a JOIN brand_asset_revisions r USING (org_id, asset_id, revision)
  WHERE a.kind = ANY($1::text[]) AND a.status <> 'expired' AND r.retain_until IS NOT NULL`;

export interface ExpiredOutput {
  assetId: string;
  kind: AssetKind;
  sha256: string;
  /** Blobs whose reference by this asset was dropped. */
  released: number;
}

/**
 * Expire the org's outputs whose retain_until is before `now`, at most `limit`, in q's transaction: a revision with
 * status expired and the asset's blob references dropped. Rows another run holds are skipped.
 */
export async function expireDue(q: Queryable, orgId: string, now: Date, limit = BATCH): Promise<{ expired: ExpiredOutput[]; more: boolean }> {
  const due = await q.query<{ asset_id: string }>(
    `SELECT a.asset_id FROM ${CURRENT} AND a.org_id = $2 AND r.retain_until < $3
      ORDER BY r.retain_until, a.asset_id LIMIT $4 FOR UPDATE OF a SKIP LOCKED`,
    [OUTPUT_KINDS, orgId, now.toISOString(), limit + 1],
  );
  const expired: ExpiredOutput[] = [];
  if (due.length === 0) return { expired, more: false };
  const { version } = await heads(q, orgId);
  for (const { asset_id } of due.slice(0, limit)) {
    // Read again under the lock: a renewal or an amendment may have committed since the select's snapshot.
    const cur = await loadAsset(q, orgId, asset_id);
    if (cur.status === 'expired' || cur.retain_until === null || new Date(cur.retain_until).getTime() >= now.getTime()) continue;
    await insertAssetRevision(q, orgId, { ...cur, status: 'expired', revision: cur.revision + 1, version, by_actor: '', at: now.toISOString() });
    const released = await releaseHolder(q as TxQueryable, { orgId, holder: asset_id });
    expired.push({ assetId: asset_id, kind: cur.kind, sha256: cur.sha256, released: released.length });
  }
  return { expired, more: due.length > limit };
}

/** When the org's next run is due: its earliest retain_until not expired, not sooner than MIN_GAP_MS from now. */
async function nextRun(q: Queryable, orgId: string, now: Date): Promise<Date | null> {
  const [row] = await q.query<{ at: string | Date | null }>(`SELECT min(r.retain_until) AS at FROM ${CURRENT} AND a.org_id = $2`, [OUTPUT_KINDS, orgId]);
  if (!row?.at) return null;
  return new Date(Math.max(after(row.at).getTime(), now.getTime() + MIN_GAP_MS));
}

export const expireOutputs = defineJob<{ due: string }>({
  name: EXPIRE_OUTPUTS_JOB,
  policy: 'short',
  retryLimit: 5,
  retryDelaySeconds: 60,
  retryBackoff: true,
  expireInSeconds: 300,
  events: [EXPIRE_EVENT],
  async run(ctx) {
    const now = ctx.deps.clock.now();
    const { expired, more } = await expireDue(ctx.q, ctx.orgId, now);
    const next = more ? new Date(now.getTime() + 1000) : await nextRun(ctx.q, ctx.orgId, now);
    if (next) {
      // Caused by this run's event when it appends one (the seq it will get: the head is locked from here), else by what caused this run.
      const cause = expired.length ? await nextSeq(ctx.q, ctx.orgId) : ctx.causeSeq;
      await ctx.deps.jobs.enqueue(ctx.q, ctx.orgId, cause, [ctx.deps.jobs.check(EXPIRE_OUTPUTS_JOB, { due: next.toISOString() }, runOptions(ctx.orgId, next))]);
    }
    if (expired.length === 0) return;
    const count = (kind: AssetKind) => expired.filter((e) => e.kind === kind).length;
    await ctx.emit(EXPIRE_EVENT, expired[0].assetId, {
      assetIds: expired.map((e) => e.assetId),
      renders: count('render'),
      exports: count('export'),
      releasedBlobs: expired.reduce((n, e) => n + e.released, 0),
      more,
      nextRunAt: next?.toISOString() ?? null,
      designHead: await designHead(ctx.q, ctx.orgId),
    });
  },
});

/** The orgs with outputs past their retain_until at $2: read at each start down the partial index of migration 085. */
export const OVERDUE_ORGS_SQL = `SELECT DISTINCT a.org_id FROM ${CURRENT} AND r.retain_until < $2`;
export const overdueParams = (now: Date): unknown[] => [OUTPUT_KINDS, now.toISOString()];

/** At start: a run now for every org with outputs already past their retain_until (made before the job, or a run lost). */
export const scheduleOverdueExpiry: StartupStep = {
  name: 'branding overdue outputs expiry',
  async run(deps) {
    const now = deps.clock.now();
    const orgs = await deps.db.query<{ org_id: string }>(OVERDUE_ORGS_SQL, overdueParams(now));
    for (const { org_id } of orgs) {
      await deps.jobs.enqueue(deps.db, org_id, 0, [deps.jobs.check(EXPIRE_OUTPUTS_JOB, { due: now.toISOString() }, runOptions(org_id, now))]);
    }
    if (orgs.length) deps.jobs.wake([EXPIRE_OUTPUTS_JOB]);
    return orgs.length;
  },
};
