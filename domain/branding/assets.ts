import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { z } from 'zod';
import { heldBlob } from '../../blobs/refs.js';
import type { BlobService } from '../../blobs/service.js';
import type { PrepareCtx } from '../core/handler.js';
import type { Queryable } from '../../db/types.js';
import { notFound } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import type { Asset } from '../../protocol/methods/branding/index.js';

/*
 * The library's assets (migration 076): images (img_), renders (rnd_) and export kits (bkx_), a head row each
 * (brand_assets) and one immutable row per revision (brand_asset_revisions). Bytes live in the blob store, held
 * with the asset id as holder. An image's revisions are library changes (templates.ts writeLibrary writes them);
 * renders and exports are inserted by their own methods.
 */

export type AssetKind = 'image' | 'render' | 'export';
export type AssetStatus = 'active' | 'archived' | 'expired';
export const KIND_OF_PREFIX: Readonly<Record<string, AssetKind>> = { img: 'image', rnd: 'render', bkx: 'export' };
export const assetKindOf = (id: string): AssetKind | undefined => KIND_OF_PREFIX[id.split('_')[0]];

export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a revision holds; its state hash is of all of it. */
export interface AssetState {
  status: AssetStatus;
  sha256: string;
  size_bytes: number;
  content_type: string;
  width: number | null;
  height: number | null;
  origin: string;
  alt_text: string | null;
  tags: string[];
  crop: Crop | null;
  retain_until: string | null;
  meta: Record<string, unknown>;
}

export interface AssetRow extends AssetState {
  asset_id: string;
  kind: AssetKind;
  revision: number;
  version: number;
  input_hash: string;
  by_actor: string;
  at: string;
}

const COLUMNS = `a.asset_id, a.kind, a.input_hash, r.revision, r.version, r.status, r.sha256, r.size_bytes, r.content_type, r.width, r.height,
  r.origin, r.alt_text, r.tags, r.crop, r.retain_until, r.meta, r.by_actor, r.at`;
const FROM_CURRENT = 'brand_assets a JOIN brand_asset_revisions r USING (org_id, asset_id, revision)';
const FROM_ANY = 'brand_asset_revisions r JOIN brand_assets a USING (org_id, asset_id)';

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());
const norm = (r: AssetRow): AssetRow => ({
  ...r,
  revision: Number(r.revision),
  version: Number(r.version),
  size_bytes: Number(r.size_bytes),
  retain_until: iso(r.retain_until),
  at: iso(r.at)!,
});

export const assetStateHash = (s: AssetState): string =>
  sha256Hex(
    canonicalJson({
      status: s.status,
      sha256: s.sha256,
      contentType: s.content_type,
      width: s.width,
      height: s.height,
      altText: s.alt_text,
      tags: s.tags,
      crop: s.crop,
      retainUntil: s.retain_until,
    }),
  );

export const stateOfAsset = (r: AssetRow): AssetState => ({
  status: r.status,
  sha256: r.sha256,
  size_bytes: r.size_bytes,
  content_type: r.content_type,
  width: r.width,
  height: r.height,
  origin: r.origin,
  alt_text: r.alt_text,
  tags: r.tags,
  crop: r.crop,
  retain_until: r.retain_until,
  meta: r.meta,
});

const what = (id: string) => (assetKindOf(id) === 'render' ? 'render' : assetKindOf(id) === 'export' ? 'export' : 'image');

/** An asset at its current revision (or a past one). Another org's id is NOT_FOUND, as an unknown one. */
export async function loadAsset(q: Queryable, orgId: string, assetId: string, revision?: number): Promise<AssetRow> {
  const [row] = await q.query<AssetRow>(
    revision === undefined
      ? `SELECT ${COLUMNS} FROM ${FROM_CURRENT} WHERE a.org_id = $1 AND a.asset_id = $2`
      : `SELECT ${COLUMNS} FROM ${FROM_ANY} WHERE r.org_id = $1 AND r.asset_id = $2 AND r.revision = $3`,
    revision === undefined ? [orgId, assetId] : [orgId, assetId, revision],
  );
  if (row) return norm(row);
  throw notFound(revision === undefined ? `${what(assetId)} ${assetId}` : `${what(assetId)} ${assetId} revision ${revision}`);
}

/** Current revisions: of the ids given, or of every asset of `kinds`. */
export async function currentAssets(
  q: Queryable,
  orgId: string,
  sel: { ids?: readonly string[]; kinds?: readonly AssetKind[] },
): Promise<Map<string, AssetRow>> {
  const args: unknown[] = [orgId];
  const where = ['a.org_id = $1'];
  if (sel.ids) where.push(`a.asset_id = ANY($${args.push(sel.ids)}::text[])`);
  if (sel.kinds) where.push(`a.kind = ANY($${args.push(sel.kinds)}::text[])`);
  const rows = await q.query<AssetRow>(`SELECT ${COLUMNS} FROM ${FROM_CURRENT} WHERE ${where.join(' AND ')}`, args);
  return new Map(rows.map((r) => [r.asset_id, norm(r)]));
}

/** Each asset's revision as at a brand version (the last one made at or before it); none: it did not exist yet. */
export async function assetsAt(q: Queryable, orgId: string, version: number, ids: readonly string[]): Promise<Map<string, AssetRow>> {
  const rows = await q.query<AssetRow>(
    `SELECT DISTINCT ON (r.asset_id) ${COLUMNS} FROM ${FROM_ANY}
      WHERE r.org_id = $1 AND r.version <= $2 AND r.asset_id = ANY($3::text[]) ORDER BY r.asset_id, r.revision DESC`,
    [orgId, version, ids],
  );
  return new Map(rows.map((r) => [r.asset_id, norm(r)]));
}

/** The asset made from these inputs (same bytes, same generation inputs), if any. */
export async function assetByInput(q: Queryable, orgId: string, kind: AssetKind, inputHash: string): Promise<AssetRow | null> {
  const [row] = await q.query<AssetRow>(`SELECT ${COLUMNS} FROM ${FROM_CURRENT} WHERE a.org_id = $1 AND a.kind = $2 AND a.input_hash = $3`, [
    orgId,
    kind,
    inputHash,
  ]);
  return row ? norm(row) : null;
}

/** Whether the org's library has this image (archived ones too): what another family may point at (an artifact's Image). */
export async function libraryHasImage(q: Queryable, orgId: string, imageId: string): Promise<boolean> {
  const rows = await q.query(`SELECT 1 AS one FROM brand_assets WHERE org_id = $1 AND asset_id = $2 AND kind = 'image'`, [orgId, imageId]);
  return rows.length > 0;
}

export async function activeCount(q: Queryable, orgId: string, kind: AssetKind): Promise<number> {
  const [row] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM brand_assets WHERE org_id = $1 AND kind = $2 AND status = 'active'`, [
    orgId,
    kind,
  ]);
  return Number(row?.n ?? 0);
}

/** Write one revision and point the head at it (the head is made with the first). */
export async function insertAssetRevision(q: Queryable, orgId: string, row: AssetRow): Promise<void> {
  await q.query(
    `INSERT INTO brand_asset_revisions (org_id, asset_id, revision, version, status, sha256, size_bytes, content_type, width, height, origin, alt_text,
       tags, crop, retain_until, meta, by_actor, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      orgId,
      row.asset_id,
      row.revision,
      row.version,
      row.status,
      row.sha256,
      row.size_bytes,
      row.content_type,
      row.width,
      row.height,
      row.origin,
      row.alt_text,
      JSON.stringify(row.tags),
      row.crop === null ? null : JSON.stringify(row.crop),
      row.retain_until,
      JSON.stringify(row.meta),
      row.by_actor,
      row.at,
    ],
  );
  await q.query(
    `INSERT INTO brand_assets (org_id, asset_id, kind, revision, status, sha256, input_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (org_id, asset_id) DO UPDATE SET revision = EXCLUDED.revision, status = EXCLUDED.status, sha256 = EXCLUDED.sha256`,
    [orgId, row.asset_id, row.kind, row.revision, row.status, row.sha256, row.input_hash, row.at],
  );
}

export function toAsset(r: AssetRow): z.infer<typeof Asset> {
  const g = r.meta.generated as { style: 'pattern'; size: { width: number; height: number }; seed: number } | undefined;
  return {
    id: r.asset_id,
    kind: r.kind,
    revision: r.revision,
    version: r.version,
    status: r.status,
    sha256: r.sha256,
    sizeBytes: r.size_bytes,
    contentType: r.content_type,
    width: r.width === null ? null : Number(r.width),
    height: r.height === null ? null : Number(r.height),
    origin: r.origin,
    altText: r.alt_text,
    tags: r.tags,
    crop: r.crop,
    retainUntil: r.retain_until,
    generated: g ? { style: g.style, size: g.size, seed: g.seed } : null,
    updatedAt: r.at,
    updatedBy: r.by_actor,
  };
}

/**
 * An image's bytes at its current revision (or a past one), for a render that shows it: what a template's image
 * node draws. Another org's or an unknown id is NOT_FOUND.
 */
export async function assetBytes(
  q: Queryable,
  blobs: BlobService,
  orgId: string,
  assetId: string,
  revision?: number,
): Promise<{ bytes: Buffer; contentType: string; width: number | null; height: number | null; sha256: string; status: AssetStatus }> {
  const row = await loadAsset(q, orgId, assetId, revision);
  const held = await heldBlob(q, { orgId, sha256: row.sha256, holder: row.asset_id });
  if (!held) throw new Error(`${row.asset_id} revision ${row.revision} holds no blob ${row.sha256}`);
  const bytes = await buffer(await blobs.open({ orgId, sha256: row.sha256, size: held.size, contentType: held.contentType }));
  return { bytes, contentType: row.content_type, width: row.width, height: row.height, sha256: row.sha256, status: row.status };
}

/** Bytes this server made (a processed or generated image), stored as a blob held by nothing until the call commits. */
export async function storeBytes(ctx: PrepareCtx, bytes: Buffer, contentType: string): Promise<string> {
  const stored = await ctx.deps.blobs.upload({ orgId: ctx.orgId, principalId: ctx.principal.id, body: Readable.from([bytes]), contentType, madeHere: true });
  return stored.sha256;
}

/** Who an AI gateway call is for (its audit record): the caller of the method. */
export const gatewayCall = (ctx: PrepareCtx) => ({
  method: ctx.method.name,
  orgId: ctx.orgId,
  requestId: ctx.requestId,
  actor: ctx.principal.id,
  keyId: ctx.principal.keyId,
});
