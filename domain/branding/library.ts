import type { z } from 'zod';
import { one, type Queryable } from '../../db/types.js';
import { badRequest, conflict } from '../../protocol/errors.js';
import { branding as c, MAX_TEMPLATES, PACKAGE_FORMAT, type TemplatePackage } from '../../protocol/methods/branding/index.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { currentAssets } from './assets.js';
import { designLog } from './design-log.js';
import { heads, type Heads } from './model.js';
import { checkBody } from './template-body.js';
import { aliasOf } from './tokens.js';
import { checkFields, checkState, liveTokens, loadTemplate, lockHeads, toTemplate, writeLibrary, type RevisionRow } from './templates.js';

/*
 * The templates: list and export (reads), amend, clone and delete (R methods that write: one design record each,
 * replayed by idempotencyId, no ledger event). Records hold ids, revisions, counts and hashes; never a name, a
 * field name, a text or a body.
 */

const writes = { writeLog: designLog };

export const listTemplates = handler(c.listTemplates, async (ctx, p) => {
  const args: unknown[] = [ctx.orgId, p.cursor, p.limit + 1];
  const where = ['t.org_id = $1', 't.template_id > $2'];
  if (!p.includeDeleted) where.push(`t.status = 'active'`);
  if (p.kind) where.push(`t.kind = $${args.push(p.kind)}`);
  if (p.query) where.push(`t.name ILIKE $${args.push(`%${p.query.replace(/[\\%_]/g, (m) => `\\${m}`)}%`)}`);
  const rows = await ctx.q.query<RevisionRow>(
    `SELECT r.template_id, r.revision, r.version, r.status, r.kind, r.name, r.size, r.fields, r.origin, r.sha256, r.by_actor, r.at
       FROM brand_templates t JOIN brand_template_revisions r USING (org_id, template_id, revision)
      WHERE ${where.join(' AND ')} ORDER BY t.template_id LIMIT $3`,
    args,
  );
  const page = rows.slice(0, p.limit);
  return {
    templates: page.map((r) => {
      const { body: _body, ...summary } = toTemplate({ ...r, revision: Number(r.revision), version: Number(r.version) });
      return summary;
    }),
    nextCursor: rows.length > p.limit ? page[page.length - 1].template_id : null,
  };
});

export const exportTemplate = handler(c.exportTemplate, async (ctx, p) => {
  const row = await loadTemplate(ctx.q, ctx.orgId, p.templateId, p.revision);
  return { package: await templatePackage(ctx.q, ctx.orgId, row, await heads(ctx.q, ctx.orgId)), template: toTemplate(row) };
});

/** A template revision as a package (exportTemplate; the export kit's templates). */
export async function templatePackage(q: Queryable, orgId: string, row: RevisionRow, h: Heads): Promise<z.infer<typeof TemplatePackage>> {
  const tokens = await liveTokens(q, orgId, h);
  const { refs, images } = checkBody(row.body, { tokens, fields: row.fields, at: 'body', keepUnknownRefs: true });
  const used: Record<string, { $type: string; $value: unknown }> = {};
  for (const path of refs) {
    let t = tokens.get(path)!;
    for (let to = aliasOf(t.value); to !== undefined; to = aliasOf(t.value)) t = tokens.get(to)!;
    used[path] = { $type: tokens.get(path)!.type, $value: t.value };
  }
  const pkg: z.infer<typeof TemplatePackage> = {
    format: PACKAGE_FORMAT,
    template: {
      kind: row.kind,
      name: row.name,
      size: row.size,
      body: row.body,
      fields: row.fields.map((f) => (f.maxLength === null ? { name: f.name, type: f.type } : { name: f.name, type: f.type, maxLength: f.maxLength })),
    },
    tokens: used,
    images: await imageHashes(q, orgId, images),
    source: { org: orgId, templateId: row.template_id, revision: row.revision, foundationVersion: h.foundationVersion },
  };
  return pkg;
}

/** The images a body shows with their bytes' hashes (null: the library holds no such image). */
async function imageHashes(q: Queryable, orgId: string, ids: string[]) {
  const held = await currentAssets(q, orgId, { ids });
  return ids.map((imageId) => ({ imageId, sha256: held.get(imageId)?.sha256 ?? null }));
}

const deletedConflict = (row: RevisionRow, act: string) =>
  conflict(`template ${row.template_id} is deleted (revision ${row.revision}): bring it back (branding.undo or branding.restoreVersion) before you ${act} it`);

export const amendTemplate = handler(
  c.amendTemplate,
  async (ctx, p) => {
    if (p.body === undefined && p.fields === undefined && p.size === undefined && p.name === undefined)
      throw badRequest('body', 'give at least one of body, fields, size or name');
    const h = await lockHeads(ctx);
    const cur = await loadTemplate(ctx.q, ctx.orgId, p.templateId);
    if (cur.status === 'deleted') throw deletedConflict(cur, 'amend');
    if (p.baseRevision !== cur.revision)
      throw conflict(
        `template ${cur.template_id} is at revision ${cur.revision}, not ${p.baseRevision}: read it (branding.exportTemplate) and retry with baseRevision ${cur.revision}`,
      );
    const fields = p.fields ? checkFields(p.fields, 'fields') : cur.fields;
    const next = { kind: cur.kind, name: p.name ?? cur.name, size: p.size ?? cur.size, body: p.body ?? cur.body, fields };
    // A body given is checked against the live tokens; one kept may name tokens the foundation has dropped since.
    const { state, nodes } = checkState(next, await liveTokens(ctx.q, ctx.orgId, h), 'body', { keepUnknownRefs: p.body === undefined });
    const done = await writeLibrary(ctx, h, {
      kind: 'template.amend',
      entityId: cur.template_id,
      changes: [{ itemId: cur.template_id, from: cur, to: { ...state, status: 'active', origin: cur.origin } }],
      payload: { templateId: cur.template_id, baseRevision: p.baseRevision, nodes, fields: fields.length },
    });
    return { template: toTemplate(done.rows[0]), version: done.version, changed: done.changed };
  },
  writes,
);

export const deleteTemplate = handler(
  c.deleteTemplate,
  async (ctx, p) => {
    const h = await lockHeads(ctx);
    const cur = await loadTemplate(ctx.q, ctx.orgId, p.templateId);
    const done = await writeLibrary(ctx, h, {
      kind: 'template.delete',
      entityId: cur.template_id,
      changes: [{ itemId: cur.template_id, from: cur, to: { ...cur, status: 'deleted' } }],
      payload: { templateId: cur.template_id },
    });
    return { template: toTemplate(done.rows[0]), version: done.version, changed: done.changed };
  },
  writes,
);

/** A package token's value as a CSS literal (a cloned body's refs this foundation lacks). */
function literalOf(token: { $value: unknown } | undefined): string | number | undefined {
  const v = token?.$value;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return aliasOf(v) === undefined ? v : undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(', ');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.hex === 'string') return o.hex;
    if (typeof o.value === 'number' && typeof o.unit === 'string') return `${o.value}${o.unit}`;
  }
  return undefined;
}

export const cloneTemplate = handler(
  c.cloneTemplate,
  async (ctx, p) => {
    if ((p.templateId === undefined) === (p.package === undefined)) throw badRequest('templateId', 'give exactly one of templateId or package');
    const h = await lockHeads(ctx);
    const { n } = one(await ctx.q.query<{ n: number }>(`SELECT count(*)::int AS n FROM brand_templates WHERE org_id = $1 AND status = 'active'`, [ctx.orgId]));
    if (Number(n) >= MAX_TEMPLATES)
      throw conflict(`the library holds ${n} active templates, the most it may: delete one (branding.deleteTemplate) before adding another`);
    const tokens = await liveTokens(ctx.q, ctx.orgId, h);
    let checked: ReturnType<typeof checkState>;
    if (p.templateId !== undefined) {
      const src = await loadTemplate(ctx.q, ctx.orgId, p.templateId);
      if (src.status === 'deleted') throw deletedConflict(src, 'clone');
      checked = checkState({ kind: src.kind, name: p.name ?? src.name, size: src.size, body: src.body, fields: src.fields }, tokens, 'body', {
        keepUnknownRefs: true,
      });
    } else {
      const t = p.package!.template;
      const fields = checkFields(t.fields, 'package.template.fields');
      const pkgTokens = p.package!.tokens;
      checked = checkState({ kind: t.kind, name: p.name ?? t.name, size: t.size, body: t.body, fields }, tokens, 'package.template.body', {
        literalFor: (path) => literalOf(pkgTokens[path]),
      });
    }
    const templateId = newId('tpl');
    const done = await writeLibrary(ctx, h, {
      kind: 'template.clone',
      entityId: templateId,
      changes: [{ itemId: templateId, from: null, to: { ...checked.state, status: 'active', origin: 'cloned' } }],
      payload: { templateId, sourceId: p.templateId ?? p.package?.source?.templateId ?? null, fromPackage: p.package !== undefined, nodes: checked.nodes },
    });
    return { template: toTemplate(done.rows[0]), version: done.version, changed: true };
  },
  writes,
);
