import { ApiError } from '../protocol/errors.js';
import type { Queryable, TxQueryable } from '../db/types.js';
import { SHA256_HEX } from './store.js';

/*
 * How a record holds a blob. A family calls referenceBlob in the transaction that writes the record, and
 * releaseBlob / releaseHolder in the one that drops it. Why a call and not a declared { table, column } list that GC
 * scans: the reference is a row with a foreign key to the blob, so PostgreSQL itself guarantees GC safety. Inserting
 * it locks the blob row (FOR KEY SHARE) until the family's commit, GC needs FOR UPDATE on that row to delete it, and a
 * delete under a committed reference fails outright. A scan of family columns would race with a family's
 * uncommitted insert (nothing locks the blob) and would have to understand jsonb arrays, versions and trash.
 */

export interface HeldBlob {
  sha256: string;
  size: number;
  contentType: string;
}

/**
 * Record that `holder` (the record's id: fil_…, a version id, eml_…#2) holds the blob. Refused with BAD_REQUEST
 * naming `field` when the org has no such blob, or when `uploadedBy` is given and that principal never uploaded
 * it: a caller cannot claim bytes it only knows the hash of. Holding it twice under one holder is a no-op.
 * Leave `uploadedBy` out only when the caller already checked access to a record holding the same blob (a copy).
 */
export async function referenceBlob(
  q: TxQueryable,
  ref: { orgId: string; sha256: string; holder: string; by: string; uploadedBy?: string; field?: string },
): Promise<HeldBlob> {
  const field = ref.field ?? 'sha256';
  const missing = () =>
    new ApiError(
      'BAD_REQUEST',
      `${field}: no blob ${ref.sha256} uploaded by this caller; PUT /api/v1/blobs first (an upload no record holds is collected after BLOB_GC_GRACE_MS)`,
    );
  if (!SHA256_HEX.test(ref.sha256)) throw new ApiError('BAD_REQUEST', `${field}: a SHA-256 is 64 lowercase hex digits`);
  const [blob] = await q.query<{ size_bytes: number | string; content_type: string; uploader: boolean }>(
    `SELECT b.size_bytes, b.content_type,
            EXISTS (SELECT 1 FROM blob_uploaders u WHERE u.org_id = b.org_id AND u.sha256 = b.sha256 AND u.principal_id = $3) AS uploader
       FROM blobs b WHERE b.org_id = $1 AND b.sha256 = $2
        FOR KEY SHARE OF b`,
    [ref.orgId, ref.sha256, ref.uploadedBy ?? ''],
  );
  if (!blob || (ref.uploadedBy !== undefined && !blob.uploader)) throw missing();
  await q.query(`INSERT INTO blob_refs (org_id, sha256, holder, created_by) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [
    ref.orgId,
    ref.sha256,
    ref.holder,
    ref.by,
  ]);
  return { sha256: ref.sha256, size: Number(blob.size_bytes), contentType: blob.content_type };
}

/**
 * The blob `holder` holds (its size and stored type), or null when that holder holds no such blob: how a record's
 * own code reads what it holds without a signed URL (an export embedding a deck's images).
 */
export async function heldBlob(q: Queryable, ref: { orgId: string; sha256: string; holder: string }): Promise<HeldBlob | null> {
  return blobWith(q, ref.orgId, ref.sha256, 'SELECT 1 FROM blob_refs r WHERE r.org_id = b.org_id AND r.sha256 = b.sha256 AND r.holder = $3', ref.holder);
}

/**
 * The blob `principalId` uploaded (its size and stored type), or null when the org has no such blob or that principal
 * never uploaded it: how a family checks a hash its caller names before describing or holding the bytes.
 */
export async function uploadedBlob(q: Queryable, ref: { orgId: string; sha256: string; principalId: string }): Promise<HeldBlob | null> {
  return blobWith(
    q,
    ref.orgId,
    ref.sha256,
    'SELECT 1 FROM blob_uploaders u WHERE u.org_id = b.org_id AND u.sha256 = b.sha256 AND u.principal_id = $3',
    ref.principalId,
  );
}

/** The org's blob of this hash when `link` (a subquery over b, its third parameter `who`) finds a row; else null. */
async function blobWith(q: Queryable, orgId: string, sha256: string, link: string, who: string): Promise<HeldBlob | null> {
  if (!SHA256_HEX.test(sha256)) return null;
  const [row] = await q.query<{ size_bytes: number | string; content_type: string }>(
    `SELECT b.size_bytes, b.content_type FROM blobs b WHERE b.org_id = $1 AND b.sha256 = $2 AND EXISTS (${link})`,
    [orgId, sha256, who],
  );
  return row ? { sha256, size: Number(row.size_bytes), contentType: row.content_type } : null;
}

/** The blob's grace period starts again when a reference goes, so an undo within it finds the bytes. */
const TOUCH_SQL = `UPDATE blobs SET idle_since = now() WHERE org_id = $1 AND sha256 = ANY($2::text[])`;

/** `holder` no longer holds the blob; once nothing does, GC may collect it after the grace period. */
export async function releaseBlob(q: TxQueryable, ref: { orgId: string; sha256: string; holder: string }): Promise<boolean> {
  const gone = await q.query(`DELETE FROM blob_refs WHERE org_id = $1 AND sha256 = $2 AND holder = $3 RETURNING 1 AS gone`, [
    ref.orgId,
    ref.sha256,
    ref.holder,
  ]);
  if (gone.length) await q.query(TOUCH_SQL, [ref.orgId, [ref.sha256]]);
  return gone.length > 0;
}

/** Release every blob `holder` holds (a record purged); returns their hashes. */
export async function releaseHolder(q: TxQueryable, ref: { orgId: string; holder: string }): Promise<string[]> {
  const rows = await q.query<{ sha256: string }>(`DELETE FROM blob_refs WHERE org_id = $1 AND holder = $2 RETURNING sha256`, [ref.orgId, ref.holder]);
  const hashes = [...new Set(rows.map((r) => r.sha256))].sort();
  if (hashes.length) await q.query(TOUCH_SQL, [ref.orgId, hashes]);
  return hashes;
}
