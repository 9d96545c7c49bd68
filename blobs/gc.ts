import type { BlobService } from './service.js';

/*
 * Collecting unreferenced blobs. Each blob goes in its own transaction:
 *   1. lock its row FOR UPDATE SKIP LOCKED, still idle past the grace period (a reference being added holds
 *      FOR KEY SHARE, an upload of the same bytes holds the row: both are skipped, never waited for);
 *   2. with the lock held, look for references again in a fresh statement (one committed meanwhile is seen);
 *   3. move the bytes aside (trash), delete the row (the blob_refs foreign key refuses it if a reference slipped
 *      in after all: the bytes are then put back), commit, and only then purge the trash.
 * An upload re-creating the same blob waits on the row lock and puts its bytes in place after our commit, so
 * trashing never removes bytes a committed row names. Trash left by a crash is settled at the next run: restored
 * if its row is still there, purged otherwise.
 */

/** The part of a pino-style logger GC uses (domain's Logger fits). */
export interface GcLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface GcReport {
  dryRun: boolean;
  /** Unreferenced blobs past the grace period when the run started. */
  candidates: number;
  deleted: number;
  bytesFreed: number;
  /** Candidates left alone: referenced, re-uploaded or busy by the time their turn came. */
  kept: number;
  /** Trash of an earlier, interrupted run: put back (row still there) or purged. */
  trashRestored: number;
  trashPurged: number;
  /** Temporary uploads of crashed processes removed (older than a day). */
  temporaryRemoved: number;
  /** In a dry run: what would go. */
  wouldDelete?: { orgId: string; sha256: string; size: number; idleSince: string }[];
}

/** A temporary upload older than this belongs to no live request (REQUEST_TIMEOUT_MS is far shorter). */
const TEMPORARY_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const BATCH = 500;

interface Candidate {
  org_id: string;
  sha256: string;
  size_bytes: number | string;
  idle_since: Date | string;
}

/** What GC needs of the blob service (the CLI builds it without signing keys). */
export type GcTarget = Pick<BlobService, 'db' | 'store' | 'config'>;

export async function collectBlobs(blobs: GcTarget, opts: { dryRun?: boolean; graceMs?: number; log?: GcLogger } = {}): Promise<GcReport> {
  const { db, store } = blobs;
  const graceMs = opts.graceMs ?? blobs.config.gcGraceMs;
  const dryRun = opts.dryRun === true;
  const report: GcReport = { dryRun, candidates: 0, deleted: 0, bytesFreed: 0, kept: 0, trashRestored: 0, trashPurged: 0, temporaryRemoved: 0 };

  if (!dryRun) await settleTrash(blobs, report);

  const idleSql = `b.idle_since < now() - ($1::bigint * interval '1 millisecond')
                   AND NOT EXISTS (SELECT 1 FROM blob_refs r WHERE r.org_id = b.org_id AND r.sha256 = b.sha256)`;
  const seen = new Set<string>();
  for (;;) {
    const batch = (
      await db.query<Candidate>(`SELECT b.org_id, b.sha256, b.size_bytes, b.idle_since FROM blobs b WHERE ${idleSql} ORDER BY b.idle_since LIMIT ${BATCH}`, [
        graceMs,
      ])
    ).filter((c) => !seen.has(`${c.org_id}/${c.sha256}`));
    if (!batch.length) break;
    report.candidates += batch.length;
    if (dryRun) {
      report.wouldDelete = batch.map((c) => ({
        orgId: c.org_id,
        sha256: c.sha256,
        size: Number(c.size_bytes),
        idleSince: new Date(c.idle_since).toISOString(),
      }));
      break;
    }
    for (const c of batch) {
      seen.add(`${c.org_id}/${c.sha256}`);
      const freed = await collectOne(blobs, c, idleSql, graceMs, opts.log);
      if (freed === null) report.kept++;
      else {
        report.deleted++;
        report.bytesFreed += freed;
      }
    }
    if (batch.length < BATCH) break;
  }

  if (!dryRun) report.temporaryRemoved = await store.sweepTemporary(new Date(Date.now() - TEMPORARY_MAX_AGE_MS));
  return report;
}

/** Delete one blob if it is still collectable; its size, or null when it was kept. */
async function collectOne(blobs: GcTarget, c: Candidate, idleSql: string, graceMs: number, log?: GcLogger): Promise<number | null> {
  let trashId: string | null = null;
  let committed = false;
  try {
    const freed = await blobs.db.tx(async (q) => {
      const [locked] = await q.query<{ size_bytes: number | string }>(
        `SELECT b.size_bytes FROM blobs b WHERE b.org_id = $2 AND b.sha256 = $3 AND b.idle_since < now() - ($1::bigint * interval '1 millisecond')
            FOR UPDATE SKIP LOCKED`,
        [graceMs, c.org_id, c.sha256],
      );
      if (!locked) return null;
      // A fresh statement after the lock: sees every reference committed before we got it.
      const [still] = await q.query(`SELECT 1 AS idle FROM blobs b WHERE b.org_id = $2 AND b.sha256 = $3 AND ${idleSql}`, [graceMs, c.org_id, c.sha256]);
      if (!still) return null;
      trashId = await blobs.store.trash(c.org_id, c.sha256);
      await q.query(`DELETE FROM blobs WHERE org_id = $1 AND sha256 = $2`, [c.org_id, c.sha256]);
      return Number(locked.size_bytes);
    });
    committed = true;
    if (trashId !== null) await blobs.store.purge(trashId);
    return freed;
  } catch (err) {
    // Rolled back (or purge failed after commit): bytes of a surviving row go back; a purge is retried next run.
    if (!committed && trashId !== null) await blobs.store.restore(trashId);
    log?.warn({ err, orgId: c.org_id, sha256: c.sha256 }, committed ? 'blob GC: trash not purged (next run retries)' : 'blob GC: blob kept');
    return committed ? 0 : null;
  }
}

/** Trash an interrupted run left behind: back in place if its row still exists (and lacks bytes), else purged. */
async function settleTrash(blobs: GcTarget, report: GcReport): Promise<void> {
  for (const entry of await blobs.store.listTrash()) {
    await blobs.db.tx(async (q) => {
      const key = [entry.orgId, entry.sha256];
      const [row] = await q.query(`SELECT 1 AS present FROM blobs WHERE org_id = $1 AND sha256 = $2 FOR UPDATE SKIP LOCKED`, key);
      // Locked: a collector (or an upload) is at work on it right now and settles its own trash.
      if (!row && (await q.query(`SELECT 1 AS present FROM blobs WHERE org_id = $1 AND sha256 = $2`, key)).length) return;
      if (row && !(await blobs.store.exists(entry.orgId, entry.sha256))) {
        await blobs.store.restore(entry.trashId);
        report.trashRestored++;
      } else {
        await blobs.store.purge(entry.trashId);
        report.trashPurged++;
      }
    });
  }
}

/** Collect every intervalMs in this process (an unref'd timer: it never keeps the process alive). Returns stop. */
export function startBlobGc(blobs: GcTarget, opts: { intervalMs: number; log: GcLogger }): () => void {
  if (opts.intervalMs <= 0) return () => {};
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    collectBlobs(blobs, { log: opts.log })
      .then((r) => {
        if (r.deleted || r.trashRestored || r.temporaryRemoved) opts.log.info({ ...r }, `blob GC: ${r.deleted} deleted (${r.bytesFreed} bytes)`);
      })
      .catch((err: Error) => opts.log.warn({ err }, 'blob GC failed; next run retries'))
      .finally(() => (running = false));
  }, opts.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
