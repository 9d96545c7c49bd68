import { buffer } from 'node:stream/consumers';
import type { BlobService } from '../../blobs/service.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { createHash } from 'node:crypto';
import { branding as c, MAX_IMAGE_BYTES, MAX_IMAGES } from '../../protocol/methods/branding/index.js';
import { callerOf, canReadFile, filesForGuest } from '../files/index.js';
import { handler, type HandlerCtx, type PrepareCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { activeCount, assetByInput, loadAsset, stateOfAsset, storeBytes, toAsset, type AssetRow, type AssetState } from './assets.js';
import { designLog } from './design-log.js';
import { processImage } from './image-process.js';
import { expiredOutput, madeAt, retainFrom } from './outputs.js';
import { foundationAt, type Heads } from './model.js';
import { scheduleExpiryFromWrite } from './retention.js';
import { lockHeads, writeLibrary } from './templates.js';

/*
 * The library's images: uploadImage (bytes inline, a blob, or a drive file; processed before the transaction, in
 * prepare: decoding and re-encoding never hold it) and amendArtifact (alt text, tags, crop, status, retention of an
 * image, a render or an export). Both are library changes: a new brand version, one design record, no ledger event.
 * Records hold ids, revisions, sizes and hashes; never an alt text or a tag.
 */

const writes = { writeLog: designLog };
const bytesHash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const tooBig = (field: string, size: number) => badRequest(field, `is ${size} bytes; an image may be at most ${MAX_IMAGE_BYTES} bytes (20 MiB)`);

/** The original bytes of the one source given, and the field that names it. */
async function sourceBytes(ctx: PrepareCtx, p: { contentBase64?: string; sha256?: string; fileId?: string }): Promise<{ bytes: Buffer; field: string }> {
  const given = (['contentBase64', 'sha256', 'fileId'] as const).filter((k) => p[k] !== undefined);
  if (given.length !== 1) throw badRequest('contentBase64', 'give exactly one of contentBase64, sha256 or fileId');
  const blobs: BlobService = ctx.deps.blobs;
  if (p.contentBase64 !== undefined) return { bytes: Buffer.from(p.contentBase64, 'base64'), field: 'contentBase64' };
  if (p.sha256 !== undefined) {
    const meta = await blobs.authorize(p.sha256, { kind: 'principal', orgId: ctx.orgId, principalId: ctx.principal.id }).catch(() => {
      throw badRequest('sha256', `no blob ${p.sha256} uploaded by you (or a record already holds it); PUT /api/v1/blobs first`);
    });
    if (meta.size > MAX_IMAGE_BYTES) throw tooBig('sha256', meta.size);
    return { bytes: await buffer(await blobs.open(meta)), field: 'sha256' };
  }
  const fileId = p.fileId!;
  if (!(await canReadFile(ctx.db, ctx.orgId, fileId, callerOf(ctx.principal)))) throw notFound(`file ${fileId}`);
  const [file] = await filesForGuest(ctx.db, ctx.orgId, [fileId]);
  if (!file) throw conflict(`file ${fileId} is in the trash: recover it (files.recover) first`);
  if (file.kind !== 'upload' || !file.sha256) throw badRequest('fileId', `is a ${file.kind}, not an uploaded image`);
  if (file.sizeBytes > MAX_IMAGE_BYTES) throw tooBig('fileId', file.sizeBytes);
  const bytes = await buffer(await blobs.open({ orgId: ctx.orgId, sha256: file.sha256, size: file.sizeBytes, contentType: file.contentType ?? '' }));
  return { bytes, field: 'fileId' };
}

interface PreparedUpload {
  inputHash: string;
  field: string;
  /** Null when the library holds these bytes already (no work done). */
  image: { sha256: string; size: number; contentType: string; width: number; height: number; format: string } | null;
}

export const fullLibrary = (n: number) =>
  conflict(`the library holds ${n} active images, the most it may (${MAX_IMAGES}): archive one (branding.amendArtifact) before adding another`);

/** The same inputs made an image already: that image, changed:false, the record saying noop. */
export async function existingImage(ctx: HandlerCtx, h: Heads, kind: string, row: AssetRow, payload: Record<string, unknown>) {
  const done = await writeLibrary(ctx, h, {
    kind,
    entityId: row.asset_id,
    changes: [],
    assets: [{ itemId: row.asset_id, kind: 'image', from: row, to: stateOfAsset(row) }],
    payload,
  });
  return { asset: toAsset(row), version: done.version, changed: false };
}

/** A new image in the library as the next brand version (the caller holds the heads lock). */
export async function addImage(
  ctx: HandlerCtx,
  h: Heads,
  a: { kind: string; inputHash: string; state: AssetState; payload: Record<string, unknown>; event?: Parameters<typeof writeLibrary>[2]['event'] },
  assetId = newId('img'),
) {
  const n = await activeCount(ctx.q, ctx.orgId, 'image');
  if (n >= MAX_IMAGES) throw fullLibrary(n);
  return writeLibrary(ctx, h, {
    kind: a.kind,
    entityId: assetId,
    changes: [],
    assets: [{ itemId: assetId, kind: 'image', from: null, to: a.state, inputHash: a.inputHash }],
    payload: { imageId: assetId, ...a.payload },
    event: a.event,
  });
}

export const uploadImage = handler(
  c.uploadImage,
  async (ctx, p, prepared: PreparedUpload) => {
    const h = await lockHeads(ctx);
    const same = await assetByInput(ctx.q, ctx.orgId, 'image', prepared.inputHash);
    if (same) return existingImage(ctx, h, 'image.upload', same, { imageId: same.asset_id, source: prepared.field });
    // Another call added these bytes between prepare and the lock: process again next time (rare, and safe).
    if (!prepared.image) throw conflict('the library changed while the image was read: retry with another idempotencyId');
    const img = prepared.image;
    const done = await addImage(ctx, h, {
      kind: 'image.upload',
      inputHash: prepared.inputHash,
      state: {
        status: 'active',
        sha256: img.sha256,
        size_bytes: img.size,
        content_type: img.contentType,
        width: img.width,
        height: img.height,
        origin: 'upload',
        alt_text: p.altText ?? null,
        tags: [...new Set(p.tags ?? [])],
        crop: null,
        retain_until: null,
        meta: { source: prepared.field, format: img.format, ...(p.fileId ? { fileId: p.fileId } : {}) },
      },
      payload: { source: prepared.field, format: img.format, width: img.width, height: img.height, bytes: img.size },
    });
    return { asset: toAsset(done.assets[0]), version: done.version, changed: true };
  },
  {
    ...writes,
    prepare: async (ctx, p): Promise<PreparedUpload> => {
      const { bytes, field } = await sourceBytes(ctx, p);
      const inputHash = bytesHash(bytes);
      if (await assetByInput(ctx.db, ctx.orgId, 'image', inputHash)) return { inputHash, field, image: null };
      const out = await processImage(bytes, field);
      const sha256 = await storeBytes(ctx, out.bytes, out.contentType);
      return {
        inputHash,
        field,
        image: { sha256, size: out.bytes.length, contentType: out.contentType, width: out.width, height: out.height, format: out.format },
      };
    },
  },
);

/** Where an image is in use: the live foundation's logo roles, and the live templates that show it. */
async function usesOf(ctx: HandlerCtx, h: Heads, imageId: string): Promise<string | null> {
  const { doc } = await foundationAt(ctx.q, ctx.orgId, h.foundationVersion);
  const roles = Object.entries(doc.logos)
    .filter(([, id]) => id === imageId)
    .map(([role]) => role);
  if (roles.length) return `the live foundation's ${roles.join(', ')} logo: set another (branding.saveFoundation)`;
  const tpls = await ctx.q.query<{ template_id: string }>(
    `SELECT t.template_id FROM brand_templates t JOIN brand_template_revisions r USING (org_id, template_id, revision)
      WHERE t.org_id = $1 AND t.status = 'active' AND strpos(r.body::text, $2) > 0 ORDER BY t.template_id LIMIT 5`,
    [ctx.orgId, `"${imageId}"`],
  );
  if (tpls.length) return `shown by live template${tpls.length > 1 ? 's' : ''} ${tpls.map((t) => t.template_id).join(', ')}: amend or delete them`;
  return null;
}

const AMENDABLE = ['altText', 'tags', 'crop', 'status', 'retainUntil'] as const;

export const amendArtifact = handler(
  c.amendArtifact,
  async (ctx, p) => {
    const given = AMENDABLE.filter((k) => p[k] !== undefined);
    if (given.length === 0) throw badRequest('altText', `give at least one of ${AMENDABLE.join(', ')}`);
    const h = await lockHeads(ctx);
    const cur = await loadAsset(ctx.q, ctx.orgId, p.artifactId);
    if (p.crop !== undefined && cur.kind !== 'image') throw badRequest('crop', `only an image has a crop; ${cur.asset_id} is a ${cur.kind}`);
    if (p.retainUntil !== undefined && cur.kind === 'image') throw badRequest('retainUntil', 'only a render or an export has a retainUntil');
    if (p.baseRevision !== cur.revision)
      throw conflict(`${cur.kind} ${cur.asset_id} is at revision ${cur.revision}, not ${p.baseRevision}: read it and retry with baseRevision ${cur.revision}`);
    if (cur.status === 'expired') throw expiredOutput(cur);
    if (p.status === 'archived' && cur.status === 'active' && cur.kind === 'image' && !p.force) {
      const used = await usesOf(ctx, h, cur.asset_id);
      if (used) throw conflict(`image ${cur.asset_id} is in use, as ${used}; or archive it anyway with force: true`);
    }
    if (p.status === 'active' && cur.status === 'archived' && cur.kind === 'image') {
      const n = await activeCount(ctx.q, ctx.orgId, 'image');
      if (n >= MAX_IMAGES) throw fullLibrary(n);
    }
    const was = stateOfAsset(cur);
    const next: AssetState = {
      ...was,
      alt_text: p.altText !== undefined ? p.altText : was.alt_text,
      tags: p.tags !== undefined ? [...new Set(p.tags)] : was.tags,
      crop: p.crop !== undefined ? p.crop : was.crop,
      status: p.status ?? was.status,
      retain_until:
        p.retainUntil === undefined
          ? was.retain_until
          : p.retainUntil === null
            ? retainFrom(await madeAt(ctx.q, ctx.orgId, cur))
            : new Date(p.retainUntil).toISOString(),
    };
    // A date moved sooner gets its own run (the org's next may be months later; decision 0083); a later one is found by that next run.
    if (next.retain_until !== null && (was.retain_until === null || next.retain_until < new Date(was.retain_until).toISOString()))
      await scheduleExpiryFromWrite(ctx, next.retain_until);
    const done = await writeLibrary(ctx, h, {
      kind: 'artifact.amend',
      entityId: cur.asset_id,
      changes: [],
      assets: [{ itemId: cur.asset_id, kind: cur.kind, from: cur, to: next }],
      payload: { artifactId: cur.asset_id, baseRevision: p.baseRevision, status: next.status, fields: given, forced: p.force },
    });
    return { asset: toAsset(done.assets[0]), version: done.version, changed: done.changed };
  },
  writes,
);
