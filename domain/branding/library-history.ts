import { one, type Queryable } from '../../db/types.js';
import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import { branding as c } from '../../protocol/methods/branding/index.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { versionEntity } from './commit.js';
import { designLog } from './design-log.js';
import type { Heads } from './model.js';
import { expiredOutput } from './outputs.js';
import { assetKindOf, assetsAt, currentAssets, loadAsset, stateOfAsset, type AssetRow, type AssetState } from './assets.js';
import { currentTemplates, loadTemplate, lockHeads, templatesAt, writeLibrary, type AssetChange, type Change, type RevisionRow } from './templates.js';

/*
 * The library's history: undo reverts one library version, redo reverts an undo, restoreVersion puts the library
 * (or some items) back as it was at a version. Each is a new brand version with new revisions: nothing is
 * rewritten, so each can itself be undone. A foundation version is not the library's: restoreFoundation restores it.
 */

interface VersionRow {
  version: number;
  kind: string;
  scope: 'foundation' | 'library';
  undone_by: number | null;
}

async function libraryVersion(q: Queryable, orgId: string, version: number, h: Heads): Promise<VersionRow> {
  const [row] = await q.query<VersionRow>('SELECT version, kind, scope, undone_by FROM brand_versions WHERE org_id = $1 AND version = $2', [orgId, version]);
  if (!row) throw new ApiError('NOT_FOUND', `brand version ${version} not found: the latest is ${h.version} (branding.listVersions)`);
  if (row.scope === 'foundation')
    throw badRequest('version', `version ${version} changed the foundation, not the library: restore a foundation with branding.restoreFoundation`);
  return { ...row, undone_by: row.undone_by === null ? null : Number(row.undone_by) };
}

/** The same template in another state: a past revision's, or deleted (a version that made it, undone). */
const stateOf = (cur: RevisionRow, past: RevisionRow | null): Change['to'] => (past ? { ...past } : { ...cur, status: 'deleted' });
/** The same asset in another state: a past revision's, or archived (it did not exist then). */
const assetStateAt = (cur: AssetRow, past: AssetRow | null): AssetState => (past ? stateOfAsset(past) : { ...stateOfAsset(cur), status: 'archived' });

const itemsOf = (w: { rows: RevisionRow[]; assets: AssetRow[] }) => [
  ...w.rows.map((r) => ({ itemId: r.template_id, revision: r.revision, status: r.status })),
  ...w.assets.map((r) => ({ itemId: r.asset_id, revision: r.revision, status: r.status })),
];

const isTemplate = (id: string) => id.startsWith('tpl_');
const nameOf = (id: string) => (isTemplate(id) ? 'template' : (assetKindOf(id) ?? 'item'));

async function revert(ctx: HandlerCtx, n: number, kind: 'version.undo' | 'version.redo') {
  const h = await lockHeads(ctx);
  const v = await libraryVersion(ctx.q, ctx.orgId, n, h);
  if (kind === 'version.redo' && v.kind !== 'version.undo')
    throw badRequest('version', `version ${n} is a ${v.kind}, not an undo: redo takes the version an undo made (branding.listVersions)`);
  if (v.undone_by !== null)
    throw conflict(
      `version ${n} is undone already, by version ${v.undone_by}: ${kind === 'version.undo' ? `to have it back, redo version ${v.undone_by} (branding.redo)` : `undo version ${v.undone_by} to go back`}`,
    );
  const manifest = await ctx.q.query<{ item_id: string; from_revision: number | null; to_revision: number }>(
    'SELECT item_id, from_revision, to_revision FROM brand_version_items WHERE org_id = $1 AND version = $2 ORDER BY item_id',
    [ctx.orgId, n],
  );
  const ids = manifest.map((m) => m.item_id);
  const current = await currentTemplates(ctx.q, ctx.orgId, ids.filter(isTemplate));
  const currentA = await currentAssets(ctx.q, ctx.orgId, { ids: ids.filter((id) => !isTemplate(id)) });
  const changes: Change[] = [];
  const assets: AssetChange[] = [];
  for (const m of manifest) {
    const cur = current.get(m.item_id) ?? currentA.get(m.item_id)!;
    if (cur.status === 'expired') throw expiredOutput(cur);
    if (cur.revision !== Number(m.to_revision)) {
      const { version: later } = one(
        await ctx.q.query<{ version: number }>('SELECT min(version) AS version FROM brand_version_items WHERE org_id = $1 AND item_id = $2 AND version > $3', [
          ctx.orgId,
          m.item_id,
          n,
        ]),
      );
      // No later version: a render made again (renewed) after version n, which is not a library change.
      if (later === null) throw conflict(`${nameOf(m.item_id)} ${m.item_id} was made again after version ${n}: amend it instead (branding.amendArtifact)`);
      throw conflict(
        `${nameOf(m.item_id)} ${m.item_id} was changed again by version ${later} after version ${n}: undo version ${later} first, or go back with branding.restoreVersion`,
      );
    }
    const from = m.from_revision === null ? null : Number(m.from_revision);
    if (isTemplate(m.item_id)) {
      const past = from === null ? null : await loadTemplate(ctx.q, ctx.orgId, m.item_id, from);
      changes.push({ itemId: m.item_id, from: cur as RevisionRow, to: stateOf(cur as RevisionRow, past) });
    } else {
      const a = cur as AssetRow;
      const past = from === null ? null : await loadAsset(ctx.q, ctx.orgId, m.item_id, from);
      assets.push({ itemId: m.item_id, kind: a.kind, from: a, to: assetStateAt(a, past) });
    }
  }
  const done = await writeLibrary(ctx, h, {
    kind,
    entityId: versionEntity(n),
    changes,
    assets,
    fromVersion: n,
    payload: { [kind === 'version.undo' ? 'undoes' : 'redoes']: n },
  });
  if (done.changed) await ctx.q.query('UPDATE brand_versions SET undone_by = $3 WHERE org_id = $1 AND version = $2', [ctx.orgId, n, done.version]);
  return { version: done.version, fromVersion: n, items: done.changed ? itemsOf(done) : [], changed: done.changed };
}

const writes = { writeLog: designLog };

export const undo = handler(c.undo, (ctx, p) => revert(ctx, p.version, 'version.undo'), writes);
export const redo = handler(c.redo, (ctx, p) => revert(ctx, p.version, 'version.redo'), writes);

export const restoreVersion = handler(
  c.restoreVersion,
  async (ctx, p) => {
    const h = await lockHeads(ctx);
    if (p.version > h.version) throw new ApiError('NOT_FOUND', `brand version ${p.version} not found: the latest is ${h.version} (branding.listVersions)`);
    const ids = p.itemIds ? [...new Set(p.itemIds)] : undefined;
    const current = await currentTemplates(ctx.q, ctx.orgId, ids?.filter(isTemplate));
    // Without itemIds: every template and image; renders and exports (outputs, made at a version) only when named.
    const currentA = await currentAssets(ctx.q, ctx.orgId, ids ? { ids: ids.filter((id) => !isTemplate(id)) } : { kinds: ['image'] });
    const missing = ids?.find((id) => !current.has(id) && !currentA.has(id));
    if (missing) throw notFound(`${nameOf(missing)} ${missing}`);
    const expired = [...currentA.values()].find((a) => a.status === 'expired');
    if (expired) throw expiredOutput(expired);
    const then = await templatesAt(ctx.q, ctx.orgId, p.version, ids?.filter(isTemplate));
    const thenA = await assetsAt(ctx.q, ctx.orgId, p.version, [...currentA.keys()]);
    const changes = [...current.values()]
      .sort((a, b) => a.template_id.localeCompare(b.template_id))
      .map((cur) => ({ itemId: cur.template_id, from: cur, to: stateOf(cur, then.get(cur.template_id) ?? null) }));
    const assets = [...currentA.values()]
      .sort((a, b) => a.asset_id.localeCompare(b.asset_id))
      // An output made after the version did not exist then, but is not library content: it keeps its state.
      .filter((cur) => cur.kind === 'image' || thenA.has(cur.asset_id))
      .map((cur) => ({ itemId: cur.asset_id, kind: cur.kind, from: cur, to: assetStateAt(cur, thenA.get(cur.asset_id) ?? null) }));
    const done = await writeLibrary(ctx, h, {
      kind: 'version.restore',
      entityId: versionEntity(p.version),
      changes,
      assets,
      fromVersion: p.version,
      payload: { restores: p.version, itemsAsked: ids?.length ?? null },
    });
    return { version: done.version, fromVersion: p.version, items: done.changed ? itemsOf(done) : [], changed: done.changed };
  },
  writes,
);
