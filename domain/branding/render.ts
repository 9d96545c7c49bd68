import { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Queryable } from '../../db/types.js';
import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { branding as c } from '../../protocol/methods/branding/index.js';
import type { Deps } from '../core/deps.js';
import { handler, type PrepareCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { describeHeldBlob, fileFromBlob, type HeldBlobText } from '../files/index.js';
import { assetByInput } from './assets.js';
import { designHead } from './design-log.js';
import { foundationAt, heads } from './model.js';
import { imageForRender, insertOutput, lockOutput, outputUrl, renewOutput, servableAt } from './outputs.js';
import { scheduleExpiry } from './retention.js';
import { scaleSvg, svgToPdf, svgToPng, toSvg } from './render/engine.js';
import { imagesIn, toElement, type RenderImage } from './render/tree.js';
import type { Field } from './template-body.js';
import { loadTemplate, type RevisionRow } from './templates.js';
import { checkTokens } from './tokens.js';

/*
 * branding.renderTemplate: a template with values, on the live foundation's tokens, to PNG, SVG or PDF. The render
 * runs before the call's transaction (prepare) and its bytes go to the blob store; the transaction inserts the
 * render (rnd_) holding them and its one event. Inputs that were rendered before (same template revision, tokens,
 * images, values, format and scale: brand_assets.input_hash) answer that render, changed:false, rendering nothing;
 * unless it no longer serves (archived, expired, past its retention): then it is renewed, a new revision with the
 * bytes drawn again, changed:true. A new or renewed render schedules its expiry (retention.ts).
 */

type Params = z.output<typeof c.renderTemplate.params>;
const CONTENT_TYPES = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' } as const;
const IMAGE_ID = /^img_[A-Za-z0-9]{1,60}$/;
/** The largest PNG a render makes (a 1920×1080 slide at 4 is 33.2 MP): resvg holds it whole, 4 bytes a pixel. */
export const MAX_PIXELS = 36_000_000;

export interface Rendered {
  bytes: Buffer;
  width: number;
  height: number;
  missing: string[];
}

/** The values checked against the template's fields: BAD_REQUEST naming `values.<field>`. */
function checkValues(values: Readonly<Record<string, string>>, fields: readonly Field[]): void {
  for (const [name, value] of Object.entries(values)) {
    const f = fields.find((x) => x.name === name);
    if (!f) throw badRequest(`values.${name}`, `unknown field (fields: ${fields.map((x) => x.name).join(', ') || 'none'})`);
    if (f.type === 'text' && f.maxLength !== null && value.length > f.maxLength) throw badRequest(`values.${name}`, `at most ${f.maxLength} characters`);
    if (f.type === 'image' && !IMAGE_ID.test(value)) throw badRequest(`values.${name}`, 'must be an image id of the library (img_…)');
  }
  const missing = fields.find((f) => f.type === 'image' && values[f.name] === undefined);
  if (missing) throw badRequest(`values.${missing.name}`, 'missing image: give an img_ id of the library');
}

/** Bytes satori draws: PNG and JPEG as they are, other raster types through sharp as PNG. */
async function drawable(img: { bytes: Buffer; contentType: string; width: number | null; height: number | null }): Promise<RenderImage> {
  let { bytes, contentType } = img;
  let [width, height] = [img.width, img.height];
  if (!['image/png', 'image/jpeg', 'image/svg+xml'].includes(contentType) || width === null || height === null) {
    const sharp = (await import('sharp')).default;
    const out = await sharp(bytes).png().toBuffer({ resolveWithObject: true });
    [bytes, contentType, width, height] = [out.data, 'image/png', out.info.width, out.info.height];
  }
  return { dataUri: `data:${contentType};base64,${bytes.toString('base64')}`, width: width, height: height };
}

export interface RenderInput {
  tpl: RevisionRow;
  values: Readonly<Record<string, string>>;
  format: Params['format'];
  scale: number;
}

/**
 * What a render of these inputs is made of, and their hash; `draw` renders it. Images the values name must be in
 * the library (BAD_REQUEST naming the field); ones the body names itself that are gone draw as empty boxes.
 */
export async function renderPlan(db: Queryable, deps: Pick<Deps, 'blobs'>, orgId: string, r: RenderInput, opts: { lenient?: boolean } = {}) {
  // lenient (a thumbnail): values are the caller's own, and an image field left out draws as an empty box.
  if (!opts.lenient) checkValues(r.values, r.tpl.fields);
  const h = await heads(db, orgId);
  const foundation = await foundationAt(db, orgId, h.foundationVersion);
  const images = new Map<string, RenderImage>();
  const shown: [string, string | null][] = [];
  const fromValues = new Set(Object.values(r.values));
  for (const id of [...imagesIn(r.tpl.body, r.values)].sort()) {
    const got = IMAGE_ID.test(id) ? await imageForRender({ deps: deps as Deps, orgId }, db, id) : null;
    if (!got && fromValues.has(id)) {
      const field = r.tpl.fields.find((f) => r.values[f.name] === id)!.name;
      throw badRequest(`values.${field}`, `${id} is no active image of the library`);
    }
    shown.push([id, got?.sha256 ?? null]);
    if (got) images.set(id, await drawable(got));
  }
  const inputHash = sha256Hex(
    canonicalJson({
      templateId: r.tpl.template_id,
      revision: r.tpl.revision,
      template: r.tpl.sha256,
      foundation: foundation.sha256,
      images: shown,
      values: r.values,
      format: r.format,
      scale: r.scale,
    }),
  );
  const missing = shown.filter(([, sha]) => sha === null).map(([id]) => id);
  const draw = async (fit?: { fitWidth: number }): Promise<Rendered> => {
    const el = toElement({ body: r.tpl.body, size: r.tpl.size, tokens: checkTokens(foundation.doc.tokens), values: r.values, images });
    const svg = await toSvg(el, r.tpl.size);
    if (r.format === 'png') {
      const out = await svgToPng(svg, fit ?? { scale: r.scale });
      return { bytes: out.png, width: out.width, height: out.height, missing };
    }
    if (r.format === 'svg')
      return { bytes: Buffer.from(scaleSvg(svg, r.tpl.size, r.scale)), width: r.tpl.size.width * r.scale, height: r.tpl.size.height * r.scale, missing };
    return { bytes: await svgToPdf(svg, r.tpl.size), width: r.tpl.size.width, height: r.tpl.size.height, missing };
  };
  return { inputHash, version: h.version, draw, missing };
}

interface Prepared {
  tpl: RevisionRow;
  inputHash: string;
  version: number;
  missing: string[];
  made?: { sha256: string; size: number; width: number; height: number };
  blob?: HeldBlobText;
}

async function uploadRendered(ctx: PrepareCtx, bytes: Buffer, contentType: string) {
  return ctx.deps.blobs.upload({ orgId: ctx.orgId, principalId: ctx.principal.id, body: Readable.from([bytes]), contentType, madeHere: true });
}

async function prepare(ctx: PrepareCtx, p: Params): Promise<Prepared> {
  const tpl = await loadTemplate(ctx.db, ctx.orgId, p.templateId, p.revision);
  const cur = p.revision === undefined ? tpl : await loadTemplate(ctx.db, ctx.orgId, p.templateId);
  if (cur.status === 'deleted')
    throw conflict(`template ${cur.template_id} is deleted (revision ${cur.revision}): bring it back (branding.undo or branding.restoreVersion) to render it`);
  const px = tpl.size.width * tpl.size.height * p.scale ** 2;
  if (p.format === 'png' && px > MAX_PIXELS)
    throw badRequest(
      'scale',
      `${tpl.size.width}×${tpl.size.height} at ${p.scale} is ${(px / 1e6).toFixed(1)} MP, above ${MAX_PIXELS / 1e6} MP: use a smaller scale`,
    );
  const plan = await renderPlan(ctx.db, ctx.deps, ctx.orgId, { tpl, values: p.values, format: p.format, scale: p.scale });
  const contentType = CONTENT_TYPES[p.format];
  const before = await assetByInput(ctx.db, ctx.orgId, 'render', plan.inputHash);
  let made: Prepared['made'];
  let sha256 = before?.sha256;
  // None yet, or one whose URL no longer serves (archived, expired, past retention): render the bytes (again).
  if (!before || !servableAt(before, ctx.deps.clock.now())) {
    const out = await plan.draw();
    const up = await uploadRendered(ctx, out.bytes, contentType);
    made = { sha256: up.sha256, size: up.size, width: out.width, height: out.height };
    sha256 = up.sha256;
  }
  const blob = p.saveToFolderId
    ? await describeHeldBlob(ctx.deps, ctx.orgId, { sha256: sha256!, size: made?.size ?? before!.size_bytes, contentType })
    : undefined;
  return { tpl, inputHash: plan.inputHash, version: plan.version, missing: plan.missing, made, blob };
}

export const renderTemplate = handler(
  c.renderTemplate,
  async (ctx, p, prep: Prepared) => {
    const { tpl } = prep;
    const now = ctx.deps.clock.now();
    let row = await assetByInput(ctx.q, ctx.orgId, 'render', prep.inputHash);
    // A renewal takes the row (against another renewal and the retention sweep), then reads it again.
    if (row && !servableAt(row, now)) row = await lockOutput(ctx, row.asset_id);
    const renewed = row !== null && !servableAt(row, now);
    const changed = row === null || renewed;
    const meta = { templateId: tpl.template_id, templateRevision: tpl.revision, format: p.format, scale: p.scale, missingImages: prep.missing };
    if (row && renewed && !prep.made)
      throw conflict(`render ${row.asset_id} was archived or expired while this call was under way: call again to render it anew`);
    if (!row && !prep.made) throw new Error('renderTemplate: a render stored before is gone');
    if (row && renewed) {
      row = await renewOutput(ctx, row, { version: prep.version, ...prep.made!, meta });
    } else if (!row) {
      const made = prep.made!;
      row = await insertOutput(ctx, {
        assetId: newId('rnd'),
        kind: 'render',
        version: prep.version,
        sha256: made.sha256,
        size: made.size,
        contentType: CONTENT_TYPES[p.format],
        width: made.width,
        height: made.height,
        origin: tpl.template_id,
        inputHash: prep.inputHash,
        meta,
      });
    }
    if (changed) scheduleExpiry(ctx, row.retain_until!);
    let fileId: string | null = null;
    if (p.saveToFolderId !== undefined && prep.blob) {
      const name = `${tpl.name.replace(/[/\\\u0000-\u001f]/g, ' ').trim() || 'render'}.${p.format}`;
      try {
        fileId = (await fileFromBlob(ctx.q, ctx.orgId, { principal: ctx.principal, name, parentId: p.saveToFolderId, blob: prep.blob, now })).fileId;
      } catch (err) {
        if (err instanceof ApiError && err.message.startsWith('folderId:'))
          throw new ApiError(err.code, `saveToFolderId:${err.message.slice('folderId:'.length)}`);
        throw err;
      }
    }
    const { url, expiresAt } = outputUrl(ctx, row.asset_id, row.sha256);
    const stored = row.meta as { templateRevision: number; missingImages?: string[] };
    await ctx.emit('branding.template.render', row.asset_id, {
      renderId: row.asset_id,
      templateId: tpl.template_id,
      revision: stored.templateRevision,
      version: row.version,
      sha256: row.sha256,
      format: p.format,
      fileId,
      designHead: await designHead(ctx.q, ctx.orgId),
      ...(renewed ? { renewed: true, assetRevision: row.revision } : {}),
      ...(changed ? {} : { noop: true }),
    });
    return {
      renderId: row.asset_id,
      templateId: tpl.template_id,
      revision: stored.templateRevision,
      version: row.version,
      format: p.format,
      contentType: row.content_type,
      sha256: row.sha256,
      sizeBytes: row.size_bytes,
      width: Number(row.width),
      height: Number(row.height),
      missingImages: stored.missingImages ?? [],
      url,
      expiresAt,
      retainUntil: row.retain_until!,
      fileId,
      changed,
    };
  },
  { prepare },
);
