import type { TxQueryable } from '../../db/types.js';
import { referenceBlob } from '../../blobs/index.js';
import { conflict } from '../../protocol/errors.js';
import { OUTPUT_RETAIN_DAYS, OUTPUT_URL_TTL_MS } from '../../protocol/methods/branding/index.js';
import type { SignedRecordCheck } from '../core/family.js';
import type { HandlerCtx } from '../core/handler.js';
import { liveScopes } from '../people/index.js';
import { assetBytes, insertAssetRevision, loadAsset, type AssetRow } from './assets.js';

/*
 * Renders (rnd_) and exports (bkx_) as assets: one revision each, made at a brand version without changing it, the
 * bytes held in the blob store with the asset id as holder, kept 90 days (retain_until; then retention.ts expires it
 * and releases them). The answer's URL is signed and bound to the asset and its requester: every download checks
 * again that the asset still holds those bytes, is active and retained, and that the requester is active and still
 * holds design.read. The same inputs again renew an archived or expired render (renewOutput).
 */

export const OUTPUT_RECORD = 'brand-output';

export interface Output {
  assetId: string;
  kind: 'render' | 'export';
  version: number;
  sha256: string;
  size: number;
  contentType: string;
  width: number | null;
  height: number | null;
  origin: string;
  inputHash: string;
  meta: Record<string, unknown>;
}

/** When bytes made at `madeAt` may be released: OUTPUT_RETAIN_DAYS later. */
export const retainFrom = (madeAt: Date): string => new Date(madeAt.getTime() + OUTPUT_RETAIN_DAYS * 86_400_000).toISOString();

/** Whether an output's URL serves at `now`: active, and kept until retain_until (inclusive), as outputServable checks. */
export const servableAt = (row: AssetRow, now: Date): boolean =>
  row.status === 'active' && (row.retain_until === null || new Date(row.retain_until).getTime() >= now.getTime());

/** Insert the asset and hold its blob, in the call's transaction; returns the row. */
export async function insertOutput(ctx: HandlerCtx, o: Output): Promise<AssetRow> {
  const now = ctx.deps.clock.now();
  const row: AssetRow = {
    asset_id: o.assetId,
    kind: o.kind,
    revision: 1,
    version: o.version,
    input_hash: o.inputHash,
    status: 'active',
    sha256: o.sha256,
    size_bytes: o.size,
    content_type: o.contentType,
    width: o.width,
    height: o.height,
    origin: o.origin,
    alt_text: null,
    tags: [],
    crop: null,
    retain_until: retainFrom(now),
    meta: { ...o.meta, madeAt: now.toISOString() },
    by_actor: ctx.principal.id,
    at: now.toISOString(),
  };
  await referenceBlob(ctx.q as TxQueryable, { orgId: ctx.orgId, sha256: o.sha256, holder: o.assetId, by: ctx.principal.id });
  await insertAssetRevision(ctx.q, ctx.orgId, row);
  return row;
}

/** The output locked for this transaction (a renewal and the retention sweep take it in turn), as it is now. */
export async function lockOutput(ctx: HandlerCtx, assetId: string): Promise<AssetRow> {
  await ctx.q.query('SELECT 1 FROM brand_assets WHERE org_id = $1 AND asset_id = $2 FOR UPDATE', [ctx.orgId, assetId]);
  return loadAsset(ctx.q, ctx.orgId, assetId);
}

/**
 * An archived or expired output made again from the same inputs: a new revision of the same asset, active, holding
 * the bytes just made, kept OUTPUT_RETAIN_DAYS from now. Its URL serves again.
 */
export async function renewOutput(
  ctx: HandlerCtx,
  cur: AssetRow,
  made: { version: number; sha256: string; size: number; width: number | null; height: number | null; meta: Record<string, unknown> },
): Promise<AssetRow> {
  const now = ctx.deps.clock.now();
  const row: AssetRow = {
    ...cur,
    revision: cur.revision + 1,
    version: made.version,
    status: 'active',
    sha256: made.sha256,
    size_bytes: made.size,
    width: made.width,
    height: made.height,
    retain_until: retainFrom(now),
    meta: { ...cur.meta, ...made.meta, madeAt: now.toISOString() },
    by_actor: ctx.principal.id,
    at: now.toISOString(),
  };
  await referenceBlob(ctx.q as TxQueryable, { orgId: ctx.orgId, sha256: made.sha256, holder: cur.asset_id, by: ctx.principal.id });
  await insertAssetRevision(ctx.q, ctx.orgId, row);
  return row;
}

/** When the bytes of an output were made (its last renewal, else its first revision): what a null retainUntil counts from. */
export async function madeAt(q: HandlerCtx['q'], orgId: string, cur: AssetRow): Promise<Date> {
  const at = typeof cur.meta.madeAt === 'string' ? cur.meta.madeAt : (await loadAsset(q, orgId, cur.asset_id, 1)).at;
  return new Date(at);
}

/** An expired output changes no more: its bytes are released. What to do instead. */
export const expiredOutput = (row: AssetRow) =>
  conflict(
    `${row.kind} ${row.asset_id} expired (kept until ${row.retain_until}): its bytes are released and it changes no more; ${
      row.kind === 'render' ? 'render the template again with the same values (branding.renderTemplate renews it)' : 'export the kit again (branding.exportKit)'
    }`,
  );

/** A signed download path for the asset's bytes, bound to it and to the caller. */
export function outputUrl(ctx: HandlerCtx, assetId: string, sha256: string): { url: string; expiresAt: string } {
  const signed = ctx.deps.blobs.signedPath(ctx.orgId, sha256, {
    ttlMs: OUTPUT_URL_TTL_MS,
    record: { kind: OUTPUT_RECORD, id: assetId, principalId: ctx.principal.id },
  });
  return { url: `${ctx.deps.config.publicUrl}${signed.path}`, expiresAt: signed.expiresAt };
}

/** Whether a signed URL of an output may still be served at `now` (business time: retain_until is one). */
export const outputServable: SignedRecordCheck = async (q, orgId, record, sha256, now) => {
  if (!record.principalId || !/^(rnd|bkx)_/.test(record.id)) return false;
  const [row] = await q.query<{ sha256: string; status: string; retain_until: string | Date | null }>(
    `SELECT r.sha256, r.status, r.retain_until FROM brand_assets a JOIN brand_asset_revisions r USING (org_id, asset_id, revision)
      WHERE a.org_id = $1 AND a.asset_id = $2`,
    [orgId, record.id],
  );
  if (!row || row.sha256 !== sha256 || row.status !== 'active') return false;
  if (row.retain_until !== null && new Date(row.retain_until).getTime() < now.getTime()) return false;
  const scopes = await liveScopes(q, orgId, record.principalId);
  return Boolean(scopes && (scopes.has('design.read') || scopes.has('admin')));
};

/** An image's bytes for a render, or null when the library has no such active image. */
export async function imageForRender(ctx: { deps: HandlerCtx['deps']; orgId: string }, q: HandlerCtx['q'], imageId: string) {
  try {
    const got = await assetBytes(q, ctx.deps.blobs, ctx.orgId, imageId);
    return got.status === 'active' ? got : null;
  } catch (err) {
    if (err instanceof Error && 'code' in err && (err as { code: unknown }).code === 'NOT_FOUND') return null;
    throw err;
  }
}
