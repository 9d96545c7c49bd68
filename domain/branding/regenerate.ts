import { Readable } from 'node:stream';
import type { z } from 'zod';
import { conflict } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { branding as c, RECIPES, type StarterOutcome } from '../../protocol/methods/branding/index.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { assetByInput } from './assets.js';
import { designLog } from './design-log.js';
import { prepareImageRegeneration, regenerateImagesIn } from './generate.js';
import { foundationAt, type Heads } from './model.js';
import { insertOutput } from './outputs.js';
import { renderPlan } from './render.js';
import { paletteOf, recipe, type Recipe } from './starters.js';
import { checkState, currentTemplates, loadTemplate, lockHeads, toTemplate, writeLibrary, type Change, type RevisionRow } from './templates.js';
import { checkTokens } from './tokens.js';

/*
 * Starters and regeneration (R methods that write: one design record each). A starter is a template a recipe made
 * (origin recipe; brand_templates.recipe names it). Regenerating reruns the recipe on the live foundation as a new
 * revision. A starter whose current content is not one its recipe made (amended by hand since: no revision of the
 * same hash was made by a regeneration) is CONFLICT for regenerateTemplate and skipped by regenerateTemplates,
 * unless force. regenerate also remakes the generated images and a thumbnail render of every active template.
 */

const writes = { writeLog: designLog };
/** The version kinds whose revisions are a recipe's own output. */
const RECIPE_KINDS = ['template.regenerate', 'kit.regenerate'];
const THUMB_WIDTH = 320;

type Outcome = z.infer<typeof StarterOutcome>;

async function amendedByHand(ctx: HandlerCtx, cur: RevisionRow): Promise<boolean> {
  const rows = await ctx.q.query(
    `SELECT 1 FROM brand_template_revisions r JOIN brand_versions v ON v.org_id = r.org_id AND v.version = r.version
      WHERE r.org_id = $1 AND r.template_id = $2 AND r.sha256 = $3 AND v.kind = ANY($4::text[]) LIMIT 1`,
    [ctx.orgId, cur.template_id, cur.sha256, RECIPE_KINDS],
  );
  return rows.length === 0;
}

/** Each recipe's template on the live foundation, checked as any body is. */
async function recipesNow(ctx: HandlerCtx, h: Heads) {
  const { doc } = await foundationAt(ctx.q, ctx.orgId, h.foundationVersion);
  const tokens = checkTokens(doc.tokens);
  const palette = await paletteOf(ctx.q, ctx.orgId, doc, tokens);
  return (name: Recipe) => checkState(recipe(name, palette), tokens, 'body').state;
}

async function starters(ctx: HandlerCtx): Promise<Map<Recipe, string>> {
  const rows = await ctx.q.query<{ template_id: string; recipe: Recipe }>(
    'SELECT template_id, recipe FROM brand_templates WHERE org_id = $1 AND recipe IS NOT NULL',
    [ctx.orgId],
  );
  return new Map(rows.map((r) => [r.recipe, r.template_id]));
}

/** The changes that add the missing starters and rerun the rest; what each comes to. */
async function starterChanges(ctx: HandlerCtx, h: Heads, force: boolean) {
  const make = await recipesNow(ctx, h);
  const have = await starters(ctx);
  const current = await currentTemplates(ctx.q, ctx.orgId, [...have.values()]);
  const changes: (Change & { recipe: Recipe })[] = [];
  const skipped: Outcome[] = [];
  for (const name of RECIPES) {
    const cur = current.get(have.get(name) ?? '') ?? null;
    if (cur && !force && (await amendedByHand(ctx, cur))) {
      skipped.push({ templateId: cur.template_id, recipe: name, outcome: 'skipped', revision: cur.revision });
      continue;
    }
    changes.push({ itemId: cur?.template_id ?? newId('tpl'), from: cur, to: { ...make(name), status: 'active', origin: 'recipe' }, recipe: name });
  }
  return { changes, skipped };
}

/** After the write: each change's outcome, and the new starters' recipe names kept. */
async function settle(ctx: HandlerCtx, changes: (Change & { recipe: Recipe })[], rows: RevisionRow[], skipped: Outcome[]): Promise<Outcome[]> {
  const made = new Map(rows.map((r) => [r.template_id, r]));
  const out: Outcome[] = [];
  for (const ch of changes) {
    const row = made.get(ch.itemId);
    if (!ch.from && row) await ctx.q.query('UPDATE brand_templates SET recipe = $3 WHERE org_id = $1 AND template_id = $2', [ctx.orgId, ch.itemId, ch.recipe]);
    const outcome = !row ? 'unchanged' : ch.from ? 'regenerated' : 'added';
    out.push({ templateId: ch.itemId, recipe: ch.recipe, outcome, revision: row?.revision ?? ch.from!.revision });
  }
  return [...out, ...skipped].sort((a, b) => RECIPES.indexOf(a.recipe) - RECIPES.indexOf(b.recipe));
}

export const regenerateTemplate = handler(
  c.regenerateTemplate,
  async (ctx, p) => {
    const h = await lockHeads(ctx);
    const cur = await loadTemplate(ctx.q, ctx.orgId, p.templateId);
    const [row] = await ctx.q.query<{ recipe: Recipe | null }>('SELECT recipe FROM brand_templates WHERE org_id = $1 AND template_id = $2', [
      ctx.orgId,
      cur.template_id,
    ]);
    const name = row?.recipe ?? null;
    if (name === null || !RECIPES.includes(name))
      throw conflict(
        `template ${cur.template_id} has no recipe (origin ${cur.origin}): only a starter regenerates; change it with branding.amendTemplate, or add the starters with branding.regenerateTemplates`,
      );
    if (cur.status === 'deleted')
      throw conflict(
        `template ${cur.template_id} is deleted (revision ${cur.revision}): bring it back (branding.undo or branding.restoreVersion) to regenerate it`,
      );
    if (!p.force && (await amendedByHand(ctx, cur)))
      throw conflict(
        `template ${cur.template_id} was amended by hand since its recipe made it (now revision ${cur.revision}): pass force to replace the amendments (branding.undo brings them back)`,
      );
    const make = await recipesNow(ctx, h);
    const done = await writeLibrary(ctx, h, {
      kind: 'template.regenerate',
      entityId: cur.template_id,
      changes: [{ itemId: cur.template_id, from: cur, to: { ...make(name), status: 'active', origin: 'recipe' } }],
      payload: { templateId: cur.template_id, force: p.force, foundationVersion: h.foundationVersion },
    });
    return { template: toTemplate(done.rows[0]), recipe: name, version: done.version, changed: done.changed };
  },
  writes,
);

export const regenerateTemplates = handler(
  c.regenerateTemplates,
  async (ctx, p) => {
    const h = await lockHeads(ctx);
    const { changes, skipped } = await starterChanges(ctx, h, p.force);
    const done = await writeLibrary(ctx, h, {
      kind: 'template.regenerate',
      entityId: `brand_v${h.version + 1}`,
      changes,
      payload: { recipes: RECIPES.length, skipped: skipped.length, force: p.force, foundationVersion: h.foundationVersion },
    });
    return { version: done.version, changed: done.changed, templates: await settle(ctx, changes, done.changed ? done.rows : [], skipped) };
  },
  writes,
);

/** A thumbnail (a PNG THUMB_WIDTH wide, text fields showing their names) of a template revision: a render asset. */
async function thumbnail(ctx: HandlerCtx, tpl: RevisionRow, version: number) {
  const values = Object.fromEntries(tpl.fields.filter((f) => f.type === 'text').map((f) => [f.name, f.name[0].toUpperCase() + f.name.slice(1)]));
  const plan = await renderPlan(ctx.q, ctx.deps, ctx.orgId, { tpl, values, format: 'png', scale: 1 }, { lenient: true });
  const inputHash = sha256Hex(canonicalJson({ thumbnail: THUMB_WIDTH, render: plan.inputHash }));
  const had = await assetByInput(ctx.q, ctx.orgId, 'render', inputHash);
  if (had) return { templateId: tpl.template_id, renderId: had.asset_id, sha256: had.sha256, width: Number(had.width), height: Number(had.height) };
  const out = await plan.draw({ fitWidth: THUMB_WIDTH });
  const up = await ctx.deps.blobs.uploadIn(ctx.q as never, {
    orgId: ctx.orgId,
    principalId: ctx.principal.id,
    body: Readable.from([out.bytes]),
    contentType: 'image/png',
  });
  const renderId = newId('rnd');
  await insertOutput(ctx, {
    assetId: renderId,
    kind: 'render',
    version,
    sha256: up.sha256,
    size: up.size,
    contentType: 'image/png',
    width: out.width,
    height: out.height,
    origin: tpl.template_id,
    inputHash,
    meta: { templateId: tpl.template_id, templateRevision: tpl.revision, format: 'png', scale: 1, thumbnail: THUMB_WIDTH, missingImages: plan.missing },
  });
  return { templateId: tpl.template_id, renderId, sha256: up.sha256, width: out.width, height: out.height };
}

export const regenerate = handler(
  c.regenerate,
  async (ctx, _p, images: Awaited<ReturnType<typeof prepareImageRegeneration>>) => {
    const h = await lockHeads(ctx);
    const { changes, skipped } = await starterChanges(ctx, h, false);
    const { assets, auditSeqs } = await regenerateImagesIn(ctx, images);
    const done = await writeLibrary(ctx, h, {
      kind: 'kit.regenerate',
      entityId: `brand_v${h.version + 1}`,
      changes,
      assets,
      payload: { recipes: RECIPES.length, skipped: skipped.length, images: assets.length, auditSeqs, foundationVersion: h.foundationVersion },
    });
    const templates = await settle(ctx, changes, done.changed ? done.rows : [], skipped);
    const live = [...(await currentTemplates(ctx.q, ctx.orgId)).values()].filter((t) => t.status === 'active');
    const thumbnails = [];
    for (const t of live.sort((a, b) => a.template_id.localeCompare(b.template_id))) thumbnails.push(await thumbnail(ctx, t, done.version));
    return {
      version: done.version,
      changed: done.changed,
      templates,
      images: { regenerated: done.changed ? done.assets.length : 0, available: true },
      thumbnails,
    };
  },
  { ...writes, prepare: (ctx) => prepareImageRegeneration(ctx, { max: 20 }) },
);
