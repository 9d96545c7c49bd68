import type { z } from 'zod';
import { one, type Queryable } from '../../db/types.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { branding as c, MAX_OPEN_PROPOSALS, PROPOSAL_DAYS, type Proposal } from '../../protocol/methods/branding/index.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { applyMergePatch, changedPaths } from './patch.js';
import { checkFoundation, foundationAt, heads, staleBase } from './model.js';

/*
 * Proposals: an agent (or anyone with design.write) proposes a merge patch on the live version, checked as a save
 * would be; a human applies or declines it with saveFoundation. Open 30 days, then expired (marked by the next
 * proposeChange, shown so by every read); at most 100 open per org.
 */

export interface ProposalRow {
  proposal_id: string;
  base_version: number;
  patch: Record<string, unknown>;
  patch_hash: string;
  paths: string[];
  rationale: string;
  status: 'open' | 'applied' | 'declined' | 'expired';
  created_by: string;
  created_at: string;
  expires_at: string;
  decided_by: string | null;
  applied_version: number | null;
}

const COLUMNS = 'proposal_id, base_version, patch, patch_hash, paths, rationale, status, created_by, created_at, expires_at, decided_by, applied_version';
const iso = (v: string) => new Date(v).toISOString();

export const isExpired = (row: ProposalRow, now: Date) => row.status === 'open' && new Date(row.expires_at).getTime() <= now.getTime();

export function toProposal(row: ProposalRow, now: Date): z.infer<typeof Proposal> {
  return {
    id: row.proposal_id,
    baseVersion: Number(row.base_version),
    patch: row.patch,
    paths: row.paths,
    rationale: row.rationale,
    status: isExpired(row, now) ? 'expired' : row.status,
    createdBy: row.created_by,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    decidedBy: row.decided_by,
    appliedVersion: row.applied_version === null ? null : Number(row.applied_version),
  };
}

export async function loadProposal(q: Queryable, orgId: string, proposalId: string): Promise<ProposalRow> {
  const [row] = await q.query<ProposalRow>(`SELECT ${COLUMNS} FROM brand_proposals WHERE org_id = $1 AND proposal_id = $2 FOR UPDATE`, [orgId, proposalId]);
  if (!row) throw notFound(`proposal ${proposalId}`);
  return row;
}

export async function openProposals(q: Queryable, orgId: string, now: Date): Promise<ProposalRow[]> {
  return q.query<ProposalRow>(
    `SELECT ${COLUMNS} FROM brand_proposals WHERE org_id = $1 AND status = 'open' AND expires_at > $2 ORDER BY created_at, proposal_id`,
    [orgId, now.toISOString()],
  );
}

export async function decideProposal(q: Queryable, orgId: string, id: string, status: 'applied' | 'declined', by: string, at: string, version: number | null) {
  await q.query('UPDATE brand_proposals SET status = $3, decided_by = $4, decided_at = $5, applied_version = $6 WHERE org_id = $1 AND proposal_id = $2', [
    orgId,
    id,
    status,
    by,
    at,
    version,
  ]);
}

export const proposeChange = handler(c.proposeChange, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const h = await heads(ctx.q, ctx.orgId, true);
  if (p.baseVersion !== h.foundationVersion) throw staleBase(p.baseVersion, h.foundationVersion);
  const live = await foundationAt(ctx.q, ctx.orgId, h.foundationVersion);
  const checked = checkFoundation(applyMergePatch(live.doc, p.patch));
  const paths = changedPaths(live.doc, checked.doc);
  if (paths.length === 0) throw badRequest('patch', `changes nothing at version ${h.foundationVersion}`);
  await ctx.q.query(`UPDATE brand_proposals SET status = 'expired' WHERE org_id = $1 AND status = 'open' AND expires_at <= $2`, [ctx.orgId, now.toISOString()]);
  const patchHash = sha256Hex(canonicalJson(p.patch));
  const [same] = await ctx.q.query<ProposalRow>(`SELECT ${COLUMNS} FROM brand_proposals WHERE org_id = $1 AND status = 'open' AND patch_hash = $2`, [
    ctx.orgId,
    patchHash,
  ]);
  if (same) {
    await ctx.emit('branding.proposal.create', same.proposal_id, {
      proposalId: same.proposal_id,
      baseVersion: Number(same.base_version),
      paths: same.paths,
      noop: true,
    });
    return { proposal: toProposal(same, now), contrasts: checked.contrasts, changed: false };
  }
  const { open } = one(
    await ctx.q.query<{ open: number }>(`SELECT count(*)::int AS open FROM brand_proposals WHERE org_id = $1 AND status = 'open'`, [ctx.orgId]),
  );
  if (Number(open) >= MAX_OPEN_PROPOSALS) {
    throw conflict(
      `${MAX_OPEN_PROPOSALS} proposals are open: a human must apply or decline some (branding.saveFoundation with proposalId) before another is made`,
    );
  }
  const id = newId('bpr');
  const expires = new Date(now.getTime() + PROPOSAL_DAYS * 86_400_000).toISOString();
  const row = one(
    await ctx.q.query<ProposalRow>(
      `INSERT INTO brand_proposals (org_id, proposal_id, base_version, patch, patch_hash, paths, rationale, status, created_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, $9, $10) RETURNING ${COLUMNS}`,
      [
        ctx.orgId,
        id,
        h.foundationVersion,
        JSON.stringify(p.patch),
        patchHash,
        JSON.stringify(paths),
        p.rationale,
        ctx.principal.id,
        now.toISOString(),
        expires,
      ],
    ),
  );
  await ctx.emit('branding.proposal.create', id, { proposalId: id, baseVersion: h.foundationVersion, paths });
  return { proposal: toProposal(row, now), contrasts: checked.contrasts, changed: true };
});
