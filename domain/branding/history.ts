import { badRequest } from '../../protocol/errors.js';
import { branding as c } from '../../protocol/methods/branding/index.js';
import { actionClassOf } from '../approval/index.js';
import { handler } from '../core/handler.js';
import { commitFoundation, versionEntity } from './commit.js';
import { foundationOf, heads } from './model.js';

/*
 * The brand history: every version, foundation or library, newest first; and restoring a past foundation as a new
 * version (history is never rewritten).
 */

interface VersionRow {
  version: number;
  kind: string;
  scope: 'foundation' | 'library';
  actor: string;
  at: string;
  item_ids: string[];
  ledger_seq: number | null;
  design_seq: number | null;
  from_version: number | null;
  proposal_id: string | null;
  approval_id: string | null;
  undone_by: number | null;
}

const n = (v: number | null) => (v === null ? null : Number(v));

export const listVersions = handler(c.listVersions, async (ctx, p) => {
  const args: unknown[] = [ctx.orgId, p.cursor, p.limit + 1];
  const where = ['org_id = $1', '($2::int = 0 OR version < $2::int)'];
  if (p.scope !== 'all') where.push(`scope = $${args.push(p.scope)}`);
  if (p.itemId) where.push(`item_ids ? $${args.push(p.itemId)}`);
  const rows = await ctx.q.query<VersionRow>(
    `SELECT version, kind, scope, actor, at, item_ids, ledger_seq, design_seq, from_version, proposal_id, approval_id, undone_by
       FROM brand_versions WHERE ${where.join(' AND ')} ORDER BY version DESC LIMIT $3`,
    args,
  );
  const page = rows.slice(0, p.limit);
  return {
    versions: page.map((r) => ({
      version: Number(r.version),
      kind: r.kind,
      scope: r.scope,
      actor: r.actor,
      at: new Date(r.at).toISOString(),
      itemIds: r.item_ids,
      auditRef: { ledgerSeq: n(r.ledger_seq), designSeq: n(r.design_seq) },
      fromVersion: n(r.from_version),
      proposalId: r.proposal_id,
      approvalId: r.approval_id,
      undoneBy: n(r.undone_by),
    })),
    nextCursor: rows.length > p.limit ? Number(page[page.length - 1].version) : null,
  };
});

export const restoreFoundation = handler(c.restoreFoundation, async (ctx, p) => {
  const h = await heads(ctx.q, ctx.orgId);
  const past = await foundationOf(ctx.q, ctx.orgId, p.version, h);
  if (past.version !== p.version)
    throw badRequest('version', `version ${p.version} changed the library, not the foundation (its foundation is version ${past.version})`);
  const d = await commitFoundation(ctx, {
    baseVersion: p.baseVersion,
    next: () => past.doc,
    kind: 'foundation.restore',
    hold: { actionClass: actionClassOf(ctx.method.name), subjectId: versionEntity, act: `restores brand foundation version ${p.version}` },
    params: p,
    fromVersion: p.version,
    event: (done) => [
      'branding.foundation.restore',
      versionEntity(done.version),
      { version: done.version, fromVersion: p.version, hash: done.sha256, paths: done.paths, designHead: done.designHead, approvalId: done.approvalId },
    ],
  });
  return { version: d.version, foundation: d.doc, sha256: d.sha256, contrasts: d.contrasts, changed: d.changed, fromVersion: p.version };
});
