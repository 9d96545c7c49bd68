import { generateImage as generateVia } from '../../ai-gateway/media.js';
import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { branding as c, MAX_IMAGES, MAX_SEED } from '../../protocol/methods/branding/index.js';
import { handler, type HandlerCtx, type PrepareCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { activeCount, assetByInput, currentAssets, gatewayCall, stateOfAsset, storeBytes, toAsset, type AssetRow } from './assets.js';
import { designHead, designLog } from './design-log.js';
import { processImage } from './image-process.js';
import { addImage, fullLibrary } from './images.js';
import { foundationAt, heads } from './model.js';
import { localImage, paletteOf, type LocalStyle } from './pattern.js';
import { checkTokens } from './tokens.js';
import { lockHeads, writeLibrary, type AssetChange } from './templates.js';

/*
 * Generated images: generateImage (M) adds one to the library through the AI gateway (budgeted and audited before
 * the transaction: a spent budget is RATE_LIMITED and writes nothing); regenerateImages (R, writes) makes generated
 * images again from their prompt and seed, as one library version. Offline the generator is pattern.ts, in the live
 * foundation's colours. The prompt stays in the asset's row; events and records hold ids, hashes and the audit seq.
 */

type Style = 'pattern' | 'typographic' | 'photo' | 'illustration';
interface Recipe {
  prompt: string;
  style: Style;
  size: { width: number; height: number };
  seed: number;
}

/** A seed that follows from the other inputs: the same prompt, style and size make the same image by default. */
const seedOf = (r: Omit<Recipe, 'seed'>) => parseInt(sha256Hex(canonicalJson(r)).slice(0, 8), 16) % (MAX_SEED + 1);
const inputHashOf = (r: Recipe) => sha256Hex(canonicalJson({ prompt: r.prompt, style: r.style, size: r.size, seed: r.seed }));

interface Made {
  sha256: string;
  size: number;
  contentType: string;
  width: number;
  height: number;
  provider: string;
  auditSeq: number;
}

/** One image of a recipe through the gateway, stored as a blob (held by nothing until the caller's call commits). */
async function make(ctx: PrepareCtx, r: Recipe): Promise<Made> {
  if (r.style === 'photo' && !ctx.deps.ai.config.images)
    throw badRequest('style', 'photo needs an image model (AI_IMAGE_MODEL) and none is configured: use pattern, typographic or illustration');
  const { doc } = await foundationAt(ctx.db, ctx.orgId, (await heads(ctx.db, ctx.orgId)).foundationVersion);
  const palette = paletteOf(checkTokens(doc.tokens));
  const out = await generateVia(
    { db: ctx.deps.db, ...ctx.deps.ai },
    {
      ...gatewayCall(ctx),
      prompt: r.prompt,
      size: r.size,
      inputs: { style: r.style, size: r.size, seed: r.seed, prompt: r.prompt, palette },
      local: () => localImage(r.style as LocalStyle, r.size, r.seed, r.prompt, palette),
    },
  );
  if (!out.ok)
    throw new ApiError('RATE_LIMITED', `the image model failed (${out.reason}; AI audit seq ${out.audit.seq}): retry later`, { retryAfterSeconds: 30 });
  // A model's image is processed as an upload is (metadata dropped), at the size asked; ours is PNG already.
  const img = out.provider === 'local' ? { bytes: out.bytes, contentType: 'image/png', ...r.size } : await processImage(out.bytes, 'style', r.size);
  const sha256 = await storeBytes(ctx, img.bytes, img.contentType);
  return {
    sha256,
    size: img.bytes.length,
    contentType: img.contentType,
    width: img.width,
    height: img.height,
    provider: out.provider,
    auditSeq: out.audit.seq,
  };
}

interface PreparedGenerate {
  recipe: Recipe;
  inputHash: string;
  existing: AssetRow | null;
  made: Made | null;
}

export const generateImage = handler(
  c.generateImage,
  async (ctx, p, prepared: PreparedGenerate) => {
    const h = await lockHeads(ctx);
    const head = await designHead(ctx.q, ctx.orgId);
    const existing = await assetByInput(ctx.q, ctx.orgId, 'image', prepared.inputHash);
    const auditSeq = prepared.made?.auditSeq ?? Number(existing?.meta.auditSeq ?? 0);
    const event =
      (imageId: string, sha256: string, provider: string, status: 'generated' | 'existing') =>
      (w: { version: number }): [string, string, Record<string, unknown>] => [
        'branding.image.generate',
        imageId,
        { imageId, status, provider, sha256, auditSeq, version: w.version, designHead: head },
      ];
    if (existing) {
      const meta = existing.meta as { provider?: string };
      const done = await writeLibrary(ctx, h, {
        kind: 'image.generate',
        entityId: existing.asset_id,
        changes: [],
        assets: [{ itemId: existing.asset_id, kind: 'image', from: existing, to: stateOfAsset(existing) }],
        payload: {},
        event: event(existing.asset_id, existing.sha256, meta.provider ?? 'local', 'existing'),
      });
      return { image: toAsset(existing), status: 'existing' as const, provider: meta.provider ?? 'local', auditSeq, version: done.version, changed: false };
    }
    const m = prepared.made;
    if (!m) throw conflict('the image was archived or changed while it was made: retry with a new idempotency key');
    const imageId = newId('img');
    const r = prepared.recipe;
    const done = await addImage(
      ctx,
      h,
      {
        kind: 'image.generate',
        inputHash: prepared.inputHash,
        state: {
          status: 'active',
          sha256: m.sha256,
          size_bytes: m.size,
          content_type: m.contentType,
          width: m.width,
          height: m.height,
          origin: 'generated',
          alt_text: p.altText ?? r.prompt.slice(0, 500),
          tags: [],
          crop: null,
          retain_until: null,
          meta: { generated: { style: r.style, size: r.size, seed: r.seed }, prompt: r.prompt, provider: m.provider, auditSeq: m.auditSeq },
        },
        payload: {},
        event: event(imageId, m.sha256, m.provider, 'generated'),
      },
      imageId,
    );
    return { image: toAsset(done.assets[0]), status: 'generated' as const, provider: m.provider, auditSeq: m.auditSeq, version: done.version, changed: true };
  },
  {
    prepare: async (ctx, p): Promise<PreparedGenerate> => {
      const base = { prompt: p.prompt, style: p.style, size: p.size };
      const recipe: Recipe = { ...base, seed: p.seed ?? seedOf(base) };
      const inputHash = inputHashOf(recipe);
      const existing = await assetByInput(ctx.db, ctx.orgId, 'image', inputHash);
      if (existing) return { recipe, inputHash, existing, made: null };
      const n = await activeCount(ctx.db, ctx.orgId, 'image');
      if (n >= MAX_IMAGES) throw fullLibrary(n);
      return { recipe, inputHash, existing: null, made: await make(ctx, recipe) };
    },
  },
);

/** What regenerating made, per image: for regenerateImagesIn in the call's transaction. */
export interface PreparedImages {
  made: { imageId: string; made: Made }[];
}

/**
 * The generation step of a regeneration, before the transaction: each generated image (those named, or the active
 * ones oldest first) made again from its prompt and seed through the gateway. branding.regenerate calls it from its
 * own prepare, then regenerateImagesIn in its transaction.
 */
export async function prepareImageRegeneration(ctx: PrepareCtx, sel: { imageIds?: readonly string[]; max: number }): Promise<PreparedImages> {
  const rows = await currentAssets(ctx.db, ctx.orgId, sel.imageIds ? { ids: sel.imageIds } : { kinds: ['image'] });
  if (sel.imageIds) {
    for (const [i, id] of sel.imageIds.entries()) {
      const row = rows.get(id);
      if (!row) throw new ApiError('NOT_FOUND', `image ${id} not found`);
      if (row.origin !== 'generated') throw badRequest(`imageIds.${i}`, `${id} was uploaded, not generated: only a generated image is made again`);
    }
  }
  const chosen = [...rows.values()]
    .filter((r) => r.origin === 'generated' && (sel.imageIds !== undefined || r.status === 'active'))
    .sort((a, b) => a.at.localeCompare(b.at) || a.asset_id.localeCompare(b.asset_id))
    .slice(0, sel.max);
  const made: PreparedImages['made'] = [];
  for (const row of chosen) {
    const g = row.meta.generated as { style: Style; size: { width: number; height: number }; seed: number };
    made.push({ imageId: row.asset_id, made: await make(ctx, { prompt: String(row.meta.prompt ?? ''), ...g }) });
  }
  return { made };
}

/** The asset changes of a prepared regeneration (new bytes as a new revision; the same bytes: none), for writeLibrary. */
export async function regenerateImagesIn(ctx: HandlerCtx, prepared: PreparedImages): Promise<{ assets: AssetChange[]; auditSeqs: number[] }> {
  const current = await currentAssets(ctx.q, ctx.orgId, { ids: prepared.made.map((m) => m.imageId) });
  const assets = prepared.made.flatMap(({ imageId, made: m }): AssetChange[] => {
    const cur = current.get(imageId);
    if (!cur) return [];
    const to = { ...stateOfAsset(cur), sha256: m.sha256, size_bytes: m.size, content_type: m.contentType, width: m.width, height: m.height };
    return [{ itemId: imageId, kind: 'image', from: cur, to: { ...to, meta: { ...cur.meta, provider: m.provider, auditSeq: m.auditSeq } } }];
  });
  return { assets, auditSeqs: prepared.made.map((m) => m.made.auditSeq) };
}

export const regenerateImages = handler(
  c.regenerateImages,
  async (ctx, p, prepared: PreparedImages) => {
    const h = await lockHeads(ctx);
    const { assets, auditSeqs } = await regenerateImagesIn(ctx, prepared);
    const done = await writeLibrary(ctx, h, {
      kind: 'image.regenerate',
      entityId: `brand_v${h.version + 1}`,
      changes: [],
      assets,
      payload: { asked: p.imageIds?.length ?? null, made: prepared.made.length, auditSeqs },
    });
    const rows = done.changed ? done.assets : [];
    const unchanged = [...(await currentAssets(ctx.q, ctx.orgId, { ids: prepared.made.map((m) => m.imageId) })).values()].filter(
      (r) => !rows.some((x) => x.asset_id === r.asset_id),
    );
    const images = [...rows, ...unchanged].sort((a, b) => a.asset_id.localeCompare(b.asset_id)).map(toAsset);
    return { version: done.version, images, auditSeqs, changed: done.changed };
  },
  { writeLog: designLog, prepare: (ctx, p) => prepareImageRegeneration(ctx, { imageIds: p.imageIds, max: p.max }) },
);
