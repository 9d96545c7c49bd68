import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { branding as c } from '../../protocol/methods/branding/index.js';
import { handler, type PrepareCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { currentAssets } from './assets.js';
import { designHead } from './design-log.js';
import { guidelinesPdf } from './guidelines.js';
import { tokenFiles, zipStream } from './kit-files.js';
import { templatePackage } from './library.js';
import { foundationAt, heads } from './model.js';
import { imageForRender, insertOutput, outputUrl } from './outputs.js';
import { scheduleExpiry } from './retention.js';
import { fontDir, fontLicence, FONT_FILES } from './render/fonts.js';
import { currentTemplates } from './templates.js';
import { checkTokens } from './tokens.js';

/*
 * branding.exportKit: the brand as one zip, built before the call's transaction and streamed into the blob store
 * as it is written: tokens (DTCG as stored, and Style Dictionary's css, js, ios and android files), the logos by
 * role, the library's active images, the active templates as packages, the bundled fonts with their licence
 * (OFL), and guidelines.pdf. Every call is an egress: a new export (bkx_) and one event with the zip's sha256; its
 * bytes are kept 90 days (retention.ts). The same brand version and options make the same zip bytes.
 */

type Params = z.output<typeof c.exportKit.params>;
const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif', 'image/svg+xml': 'svg' };
const COMPRESSED = new Set(['png', 'jpg', 'webp', 'gif', 'woff', 'woff2']);

interface Built {
  sha256: string;
  size: number;
  version: number;
  entries: { path: string; bytes: number }[];
  counts: Record<string, number>;
}

async function build(ctx: PrepareCtx, p: Params): Promise<Built> {
  const h = await heads(ctx.db, ctx.orgId);
  const { doc } = await foundationAt(ctx.db, ctx.orgId, h.foundationVersion);
  const tokens = checkTokens(doc.tokens);
  const zip = await zipStream();
  const upload = ctx.deps.blobs.upload({ orgId: ctx.orgId, principalId: ctx.principal.id, body: zip.body, contentType: 'application/zip', madeHere: true });
  const counts: Record<string, number> = {};
  const add = (part: string, file: string, data: Buffer) => {
    zip.add(file, data, COMPRESSED.has(path.extname(file).slice(1)));
    counts[part] = (counts[part] ?? 0) + 1;
  };
  const has = (part: Params['include'][number]) => p.include.includes(part);
  try {
    if (has('tokens')) for (const f of await tokenFiles(doc.tokens, tokens, p.formats)) add('tokens', f.path, f.data);
    if (has('logos')) {
      for (const [role, id] of Object.entries(doc.logos).sort()) {
        const img = await imageForRender({ deps: ctx.deps, orgId: ctx.orgId }, ctx.db, id);
        if (img) add('logos', `logos/${role}.${EXT[img.contentType] ?? 'bin'}`, img.bytes);
      }
    }
    if (has('images')) {
      const images = [...(await currentAssets(ctx.db, ctx.orgId, { kinds: ['image'] })).values()].filter((a) => a.status === 'active');
      for (const a of images.sort((x, y) => x.asset_id.localeCompare(y.asset_id))) {
        const img = await imageForRender({ deps: ctx.deps, orgId: ctx.orgId }, ctx.db, a.asset_id);
        if (img) add('images', `images/${a.asset_id}.${EXT[img.contentType] ?? 'bin'}`, img.bytes);
      }
    }
    if (has('templates')) {
      const live = [...(await currentTemplates(ctx.db, ctx.orgId)).values()].filter((t) => t.status === 'active');
      for (const t of live.sort((x, y) => x.template_id.localeCompare(y.template_id))) {
        const pkg = await templatePackage(ctx.db, ctx.orgId, t, h);
        add('templates', `templates/${t.template_id}.json`, Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`));
      }
    }
    if (has('fonts')) {
      for (const [file] of FONT_FILES) {
        add('fonts', `fonts/${file}`, await readFile(path.join(fontDir(), file)));
        add('fonts', `fonts/${file}2`, await readFile(path.join(fontDir(), `${file}2`)));
      }
      add('fonts', 'fonts/OFL.txt', await readFile(fontLicence()));
    }
    if (has('guidelines')) add('guidelines', 'guidelines.pdf', await guidelinesPdf(doc, tokens, h.version));
    zip.end();
  } catch (err) {
    zip.body.destroy(err as Error);
    await upload.catch(() => undefined);
    throw err;
  }
  const up = await upload;
  return { sha256: up.sha256, size: up.size, version: h.version, entries: zip.entries, counts };
}

export const exportKit = handler(
  c.exportKit,
  async (ctx, p, built: Built) => {
    const exportId = newId('bkx');
    const row = await insertOutput(ctx, {
      assetId: exportId,
      kind: 'export',
      version: built.version,
      sha256: built.sha256,
      size: built.size,
      contentType: 'application/zip',
      width: null,
      height: null,
      origin: 'kit',
      // Every export is an egress of its own: no two share an input hash.
      inputHash: exportId,
      meta: { formats: p.formats, include: p.include, counts: built.counts },
    });
    scheduleExpiry(ctx, row.retain_until!);
    await ctx.emit('branding.kit.export', exportId, {
      exportId,
      version: built.version,
      bytes: built.size,
      sha256: built.sha256,
      entries: built.entries.length,
      designHead: await designHead(ctx.q, ctx.orgId),
    });
    return {
      exportId,
      version: built.version,
      bytes: built.size,
      sha256: built.sha256,
      entries: built.entries,
      ...outputUrl(ctx, exportId, built.sha256),
      retainUntil: row.retain_until!,
    };
  },
  { prepare: build },
);
