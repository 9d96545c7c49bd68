import type { z } from 'zod';
import { referenceBlob } from '../../blobs/refs.js';
import type { Queryable, TxQueryable } from '../../db/types.js';
import { nextSeq } from '../../ledger/append.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { MAX_IMAGES, MAX_TEMPLATES, type Template } from '../../protocol/methods/branding/index.js';
import type { HandlerCtx } from '../core/handler.js';
import { checkBody, type BodyCheck, type Field } from './template-body.js';
import { foundationAt, heads, type Heads } from './model.js';
import { checkTokens } from './tokens.js';
import { activeCount, assetStateHash, insertAssetRevision, stateOfAsset, type AssetKind, type AssetRow, type AssetState } from './assets.js';

/*
 * The library's template rows: a head per template (brand_templates) and one immutable row per revision
 * (brand_template_revisions). A library change takes the brand heads lock (as a foundation commit does), writes new
 * revisions at the next brand version, records its one design record, and writes that version with its manifest
 * (brand_version_items: each item from which revision to which), which undo, redo and restore read.
 */

export type Status = 'active' | 'deleted';

/** What a revision holds, and what its sha256 is of (with status and origin beside it). */
export interface TemplateState {
  kind: string;
  name: string;
  size: { width: number; height: number };
  body: Record<string, unknown>;
  fields: Field[];
}

export interface RevisionRow extends TemplateState {
  template_id: string;
  revision: number;
  version: number;
  status: Status;
  origin: 'recipe' | 'custom' | 'cloned';
  sha256: string;
  by_actor: string;
  at: string;
}

const COLUMNS = 'r.template_id, r.revision, r.version, r.status, r.kind, r.name, r.size, r.body, r.fields, r.origin, r.sha256, r.by_actor, r.at';
const norm = (r: RevisionRow): RevisionRow => ({ ...r, revision: Number(r.revision), version: Number(r.version) });

export const stateHash = (s: TemplateState): string => sha256Hex(canonicalJson({ kind: s.kind, name: s.name, size: s.size, body: s.body, fields: s.fields }));

/** A template at its current revision (or a past one). Another org's id is NOT_FOUND, as an unknown one. */
export async function loadTemplate(q: Queryable, orgId: string, templateId: string, revision?: number): Promise<RevisionRow> {
  const [row] = await q.query<RevisionRow>(
    revision === undefined
      ? `SELECT ${COLUMNS} FROM brand_templates t JOIN brand_template_revisions r USING (org_id, template_id, revision) WHERE t.org_id = $1 AND t.template_id = $2`
      : `SELECT ${COLUMNS} FROM brand_template_revisions r WHERE r.org_id = $1 AND r.template_id = $2 AND r.revision = $3`,
    revision === undefined ? [orgId, templateId] : [orgId, templateId, revision],
  );
  if (row) return norm(row);
  if (revision !== undefined) await loadTemplate(q, orgId, templateId);
  throw notFound(revision === undefined ? `template ${templateId}` : `template ${templateId} revision ${revision}`);
}

/** Each template's revision as at a brand version (the last one made at or before it); none: it did not exist yet. */
export async function templatesAt(q: Queryable, orgId: string, version: number, itemIds?: readonly string[]): Promise<Map<string, RevisionRow>> {
  const rows = await q.query<RevisionRow>(
    `SELECT DISTINCT ON (r.template_id) ${COLUMNS} FROM brand_template_revisions r
      WHERE r.org_id = $1 AND r.version <= $2 ${itemIds ? 'AND r.template_id = ANY($3::text[])' : ''}
      ORDER BY r.template_id, r.revision DESC`,
    itemIds ? [orgId, version, itemIds] : [orgId, version],
  );
  return new Map(rows.map((r) => [r.template_id, norm(r)]));
}

export async function currentTemplates(q: Queryable, orgId: string, itemIds?: readonly string[]): Promise<Map<string, RevisionRow>> {
  const rows = await q.query<RevisionRow>(
    `SELECT ${COLUMNS} FROM brand_templates t JOIN brand_template_revisions r USING (org_id, template_id, revision)
      WHERE t.org_id = $1 ${itemIds ? 'AND t.template_id = ANY($2::text[])' : ''}`,
    itemIds ? [orgId, itemIds] : [orgId],
  );
  return new Map(rows.map((r) => [r.template_id, norm(r)]));
}

export function toTemplate(r: RevisionRow): z.infer<typeof Template> {
  return {
    id: r.template_id,
    kind: r.kind,
    name: r.name,
    size: r.size,
    fields: r.fields,
    status: r.status,
    origin: r.origin,
    revision: r.revision,
    version: r.version,
    sha256: r.sha256,
    updatedAt: new Date(r.at).toISOString(),
    updatedBy: r.by_actor,
    body: r.body,
  };
}

/** The live foundation's tokens with their types: what token refs are checked against. */
export async function liveTokens(q: Queryable, orgId: string, h: Heads) {
  return checkTokens((await foundationAt(q, orgId, h.foundationVersion)).doc.tokens);
}

/** Fields as given to fields as stored: names unique, maxLength for text only (default 200). */
export function checkFields(given: readonly { name: string; type: 'text' | 'image'; maxLength?: number }[], at: string): Field[] {
  const seen = new Set<string>();
  return given.map((f, i) => {
    if (seen.has(f.name)) throw badRequest(`${at}.${i}.name`, `${f.name} is used twice`);
    seen.add(f.name);
    if (f.type === 'image' && f.maxLength !== undefined) throw badRequest(`${at}.${i}.maxLength`, 'only a text field has a maxLength');
    return { name: f.name, type: f.type, maxLength: f.type === 'text' ? (f.maxLength ?? 200) : null };
  });
}

/** Check a whole template state (its body against its fields and the live tokens); returns it normalised. */
export function checkState(
  s: TemplateState,
  tokens: ReturnType<typeof checkTokens>,
  at: string,
  refs: Pick<BodyCheck, 'literalFor' | 'keepUnknownRefs'> = {},
): { state: TemplateState; nodes: number } {
  const checked = checkBody(s.body, { tokens, fields: s.fields, at, ...refs });
  return { state: { ...s, body: checked.body }, nodes: checked.nodes };
}

export interface Change {
  itemId: string;
  from: RevisionRow | null;
  to: TemplateState & { status: Status; origin: RevisionRow['origin'] };
}

/** An asset's change (an image made or amended, a render or export amended): assets.ts rows. */
export interface AssetChange {
  itemId: string;
  kind: AssetKind;
  from: AssetRow | null;
  to: AssetState;
  /** A new asset's input hash (its bytes', or its generation inputs'); an existing one keeps its own. */
  inputHash?: string;
}

export interface LibraryChange {
  /** `template.amend`, `version.undo`, …: the version's kind; the design record's is `branding.<kind>`. */
  kind: string;
  entityId: string;
  changes: Change[];
  assets?: AssetChange[];
  fromVersion?: number;
  /** What the record says beside the version and items: ids, counts, hashes; never names, texts or bodies. */
  payload: Record<string, unknown>;
  /**
   * An M method's change (generateImage): the version cites this call's ledger event, built here, instead of a
   * design record.
   */
  event?: (w: { version: number; changed: boolean; items: number }) => [kind: string, entityId: string, payload: Record<string, unknown>];
}

export interface Written {
  version: number;
  changed: boolean;
  rows: RevisionRow[];
  assets: AssetRow[];
}

/** The most active items of a kind a library may hold: a change that would pass it is CONFLICT (restore, undo, clone). */
async function checkLimits(ctx: HandlerCtx, templates: Change[], assets: AssetChange[]): Promise<void> {
  const delta = (pairs: [string | undefined, string][]) => pairs.reduce((n, [from, to]) => n + (to === 'active' ? 1 : 0) - (from === 'active' ? 1 : 0), 0);
  const checks: [number, number, () => Promise<number>][] = [
    [delta(templates.map((c) => [c.from?.status, c.to.status])), MAX_TEMPLATES, async () => activeTemplates(ctx.q, ctx.orgId)],
    [delta(assets.filter((c) => c.kind === 'image').map((c) => [c.from?.status, c.to.status])), MAX_IMAGES, () => activeCount(ctx.q, ctx.orgId, 'image')],
  ];
  for (const [[added, most, count], name] of checks.map((c, i) => [c, i === 0 ? 'templates' : 'images'] as const)) {
    if (added <= 0) continue;
    const n = await count();
    if (n + added > most)
      throw conflict(
        `the library holds ${n} active ${name} and this change makes ${added} more active, above the ${most} it may hold: ${name === 'templates' ? 'delete' : 'archive'} some first, or name fewer items`,
      );
  }
}

export async function activeTemplates(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM brand_templates WHERE org_id = $1 AND status = 'active'`, [orgId]);
  return Number(row?.n ?? 0);
}

/**
 * Write a library change as the next brand version (under the heads lock the caller took): a revision per item
 * (template or asset) whose state differs, the one design record (or, for an M method, its ledger event), the
 * version and its manifest. Nothing differs: no version, and the record (or event) says noop.
 */
export async function writeLibrary(ctx: HandlerCtx, h: Heads, c: LibraryChange): Promise<Written> {
  const real = c.changes.filter((ch) => !ch.from || ch.from.status !== ch.to.status || ch.from.sha256 !== stateHash(ch.to));
  const realAssets = (c.assets ?? []).filter((ch) => !ch.from || assetStateHash(stateOfAsset(ch.from)) !== assetStateHash(ch.to));
  if (real.length === 0 && realAssets.length === 0) {
    const noop = { ...c.payload, version: h.version, items: 0, changed: false, noop: true };
    if (c.event) await ctx.emit(...withNoop(c.event({ version: h.version, changed: false, items: 0 })));
    else await ctx.record(`branding.${c.kind}`, c.entityId, noop);
    return {
      version: h.version,
      changed: false,
      rows: c.changes.flatMap((ch) => (ch.from ? [ch.from] : [])),
      assets: (c.assets ?? []).flatMap((ch) => (ch.from ? [ch.from] : [])),
    };
  }
  await checkLimits(ctx, real, realAssets);
  const version = h.version + 1;
  const at = ctx.deps.clock.now().toISOString();
  const rows: RevisionRow[] = [];
  for (const ch of real) {
    const row: RevisionRow = {
      ...ch.to,
      template_id: ch.itemId,
      revision: (ch.from?.revision ?? 0) + 1,
      version,
      sha256: stateHash(ch.to),
      by_actor: ctx.principal.id,
      at,
    };
    await ctx.q.query(
      `INSERT INTO brand_template_revisions (org_id, template_id, revision, version, status, kind, name, size, body, fields, origin, sha256, by_actor, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        ctx.orgId,
        row.template_id,
        row.revision,
        version,
        row.status,
        row.kind,
        row.name,
        JSON.stringify(row.size),
        JSON.stringify(row.body),
        JSON.stringify(row.fields),
        row.origin,
        row.sha256,
        row.by_actor,
        at,
      ],
    );
    await ctx.q.query(
      `INSERT INTO brand_templates (org_id, template_id, revision, status, kind, name, origin, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (org_id, template_id) DO UPDATE SET revision = EXCLUDED.revision, status = EXCLUDED.status, kind = EXCLUDED.kind, name = EXCLUDED.name`,
      [ctx.orgId, row.template_id, row.revision, row.status, row.kind, row.name, row.origin, at],
    );
    await manifestRow(ctx, version, row.template_id, ch.from?.revision ?? null, row.revision);
    rows.push(row);
  }
  const assets: AssetRow[] = [];
  for (const ch of realAssets) {
    const inputHash = ch.from?.input_hash ?? ch.inputHash;
    if (inputHash === undefined) throw new Error(`new asset ${ch.itemId} has no input hash`);
    const row: AssetRow = {
      ...ch.to,
      asset_id: ch.itemId,
      kind: ch.kind,
      revision: (ch.from?.revision ?? 0) + 1,
      version,
      input_hash: inputHash,
      by_actor: ctx.principal.id,
      at,
    };
    // The bytes of every revision stay held by the asset (undo and restore may bring them back).
    await referenceBlob(ctx.q as TxQueryable, { orgId: ctx.orgId, sha256: row.sha256, holder: row.asset_id, by: ctx.principal.id });
    await insertAssetRevision(ctx.q, ctx.orgId, row);
    await manifestRow(ctx, version, row.asset_id, ch.from?.revision ?? null, row.revision);
    assets.push(row);
  }
  const items = [
    ...rows.map((r) => ({ itemId: r.template_id, revision: r.revision, status: r.status, sha256: r.sha256 })),
    ...assets.map((r) => ({ itemId: r.asset_id, revision: r.revision, status: r.status, sha256: r.sha256 })),
  ];
  const itemIds = JSON.stringify(items.map((i) => i.itemId));
  if (c.event) {
    const ledgerSeq = await nextSeq(ctx.q, ctx.orgId);
    await insertVersion(ctx, { version, kind: c.kind, itemIds, ledgerSeq, designSeq: null, fromVersion: c.fromVersion, at });
    await moveHeads(ctx, h, version);
    const event = await ctx.emitAndWait(...c.event({ version, changed: true, items: items.length }));
    if (event.seq !== ledgerSeq) throw new Error(`brand version ${version} cites ledger seq ${ledgerSeq} but its event is ${event.seq}`);
  } else {
    const rec = await ctx.record(`branding.${c.kind}`, c.entityId, { ...c.payload, version, items: items.length, revisions: items, changed: true });
    await insertVersion(ctx, { version, kind: c.kind, itemIds, ledgerSeq: null, designSeq: rec.seq, fromVersion: c.fromVersion, at });
    await moveHeads(ctx, h, version);
  }
  return { version, changed: true, rows, assets };
}

const withNoop = ([kind, entityId, payload]: [string, string, Record<string, unknown>]): [string, string, Record<string, unknown>] => [
  kind,
  entityId,
  { ...payload, noop: true },
];

const manifestRow = (ctx: HandlerCtx, version: number, itemId: string, from: number | null, to: number) =>
  ctx.q.query('INSERT INTO brand_version_items (org_id, version, item_id, from_revision, to_revision) VALUES ($1, $2, $3, $4, $5)', [
    ctx.orgId,
    version,
    itemId,
    from,
    to,
  ]);

async function insertVersion(
  ctx: HandlerCtx,
  v: { version: number; kind: string; itemIds: string; ledgerSeq: number | null; designSeq: number | null; fromVersion?: number; at: string },
) {
  await ctx.q.query(
    `INSERT INTO brand_versions (org_id, version, kind, scope, actor, item_ids, ledger_seq, design_seq, from_version, proposal_id, approval_id, at)
     VALUES ($1, $2, $3, 'library', $4, $5, $6, $7, $8, NULL, NULL, $9)`,
    [ctx.orgId, v.version, v.kind, ctx.principal.id, v.itemIds, v.ledgerSeq, v.designSeq, v.fromVersion ?? null, v.at],
  );
}

async function moveHeads(ctx: HandlerCtx, h: Heads, version: number) {
  const moved = await ctx.q.query('UPDATE brand_heads SET version = $2 WHERE org_id = $1 AND version = $3 RETURNING 1', [ctx.orgId, version, h.version]);
  if (moved.length !== 1) throw new Error(`brand heads moved under the lock (expected version ${h.version})`);
}

/** The heads, locked: every library change and foundation commit runs one at a time per org. */
export const lockHeads = (ctx: HandlerCtx) => heads(ctx.q, ctx.orgId, true);
