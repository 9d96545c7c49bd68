import { ApiError, badRequest, conflict } from '../../../protocol/errors.js';
import { decision as c } from '../../../protocol/methods/decision.js';
import type { Queryable } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { handler } from '../../core/handler.js';
import { actionClassOf, closePendingApprovals } from '../../approval/index.js';
import { describeRight, enforceRights, readRights, verifyGivenProof, type HoldSpec, type ResolvedRight } from '../rights.js';
import { getDecision, isOpen, lockDecisions, ref, refuseClosed, refuseStale, toDecision, type DecisionRow } from './model.js';
import { actOf, requirementsOf, rightOf } from './requirements.js';

/*
 * The governing acts on a decision: adopt, supersede (adopt + close the targets, one transaction), reverse
 * (withdraw an open one, reverse an adopted one). Each runs under enforceRights (governance/rights.ts): the caller
 * decides, or the act holds for the humans who do, or GOVERNANCE_NOT_READY names the right (nobody may decide it).
 */

/** The acts on a decision an approval may wait for: closed with the decision, so no human decides a dead item. */
const DECISION_ACTS = ['decision.adopt', 'decision.sign', 'decision.supersede', 'decision.reverse'].map(actionClassOf);

async function closeDecisionApprovals(ctx: HandlerCtx, decisionIds: readonly string[], what: string): Promise<void> {
  const note = `decision ${decisionIds.join(', ')} was ${what} by ${ctx.principal.id}`;
  await closePendingApprovals(ctx.q, ctx.orgId, { actionClasses: DECISION_ACTS, subjectIds: decisionIds, status: 'withdrawn', by: ctx.principal.id, note });
}

/** An agent never adopts its own proposal, whatever its autonomy: a human who decides adopts it. */
function refuseOwnProposal(ctx: HandlerCtx, r: DecisionRow): void {
  if (ctx.principal.kind === 'agent' && r.driver === ctx.principal.id) {
    throw new ApiError(
      'GOVERNANCE_NOT_READY',
      `${ctx.principal.id} proposed decision ${ref(r)}: an agent never adopts its own proposal, so nothing changed; a human who decides its area adopts it (tell your user it waits for them)`,
    );
  }
}

/** Adoption needs every agree signature on the current version and no open adjustment request (CONFLICT naming what is missing). */
async function requireReady(q: Queryable, orgId: string, r: DecisionRow, resolved: ResolvedRight): Promise<number> {
  const req = await requirementsOf(q, orgId, r, resolved);
  if (req.openAdjustments > 0) {
    throw conflict(
      `decision ${ref(r)} has ${req.openAdjustments} open adjustment request${req.openAdjustments > 1 ? 's' : ''} on version ${r.version}: ` +
        `its driver proposes a new version (decision.propose with decisionId), or each requester signs this one`,
    );
  }
  if (req.missingSigners.length > 0) {
    throw conflict(
      `decision ${ref(r)} version ${r.version} lacks the agree signature${req.missingSigners.length > 1 ? 's' : ''} of ${req.missingSigners.join(', ')} ` +
        `(${describeRight(resolved)}): they sign it (decision.sign {decisionId: "${r.decision_id}", version: ${r.version}}) before it is adopted`,
    );
  }
  const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM decision_signatures WHERE org_id = $1 AND decision_id = $2 AND version = $3', [
    orgId,
    r.decision_id,
    r.version,
  ]);
  return Number(row?.n ?? 0);
}

/** What the human approving a hold reads; the content hash in it binds the proof to the content. */
const described = (r: DecisionRow) =>
  `decision D-${r.number} "${r.title.slice(0, 120)}" (version ${r.version}, content ${r.content_hash.slice(0, 12)}, area ${r.area})`;

async function markAdopted(
  ctx: HandlerCtx,
  r: DecisionRow,
  p: { outcome?: string; reviewOn?: string },
  how: { override: boolean; approvalId: string | null },
  supersedes: string[],
) {
  await ctx.q.query(
    `UPDATE decisions SET status = 'adopted', adopted_version = version, adopted_hash = content_hash, adopted_by = $3, adopted_at = now(),
            adopted_override = $4, adopted_approval = $5, outcome = coalesce($6, outcome), review_on = coalesce($7::date, review_on),
            supersedes = $8::text[], updated_at = now()
      WHERE org_id = $1 AND decision_id = $2`,
    [ctx.orgId, r.decision_id, ctx.principal.id, how.override, how.approvalId, p.outcome ?? null, p.reviewOn ?? null, supersedes],
  );
}

export const adopt = handler(c.adopt, async (ctx, p) => {
  const row = await getDecision(ctx.q, ctx.orgId, p.decisionId, 'FOR UPDATE');
  const hold: HoldSpec = { subjectId: row.decision_id, summary: `Adopt ${described(row)}`, params: p };
  const base = { decisionId: row.decision_id, number: Number(row.number), version: p.version, contentHash: row.content_hash };
  if (row.status === 'adopted' && Number(row.adopted_version) === p.version) {
    await verifyGivenProof(ctx, hold);
    await ctx.emit('decision.record.adopt', row.decision_id, { ...base, status: row.status, noop: true });
    return { decision: toDecision(row), changed: false };
  }
  if (!isOpen(row)) refuseClosed(row, 'adoption');
  refuseStale(row, p.version);
  refuseOwnProposal(ctx, row);
  const signatures = await requireReady(ctx.q, ctx.orgId, row, rightOf((await readRights(ctx.q, ctx.orgId)).rights, row));
  const how = await enforceRights(ctx, actOf(row), hold);
  await markAdopted(ctx, row, p, how, []);
  const updated = await getDecision(ctx.q, ctx.orgId, row.decision_id);
  await ctx.emit('decision.record.adopt', row.decision_id, { ...base, status: 'adopted', signatures, override: how.override, approvalId: how.approvalId });
  return { decision: toDecision(updated), changed: true };
});

export const supersede = handler(c.supersede, async (ctx, p) => {
  if (p.supersedes.includes(p.decisionId)) throw badRequest('supersedes', `cannot include ${p.decisionId}, the decision that supersedes`);
  const locked = await lockDecisions(ctx.q, ctx.orgId, [p.decisionId, ...p.supersedes]);
  const row = locked.get(p.decisionId)!;
  const targets = p.supersedes.map((id) => locked.get(id)!);
  const hold: HoldSpec = {
    subjectId: row.decision_id,
    summary: `Adopt ${described(row)}, superseding ${targets.map((t) => `D-${t.number}`).join(', ')}`,
    params: p,
  };
  const base = { decisionId: row.decision_id, number: Number(row.number), version: p.version, contentHash: row.content_hash, supersedes: p.supersedes };
  if (row.status === 'adopted' && Number(row.adopted_version) === p.version && targets.every((t) => t.superseded_by === row.decision_id)) {
    await verifyGivenProof(ctx, hold);
    await ctx.emit('decision.record.supersede', row.decision_id, { ...base, status: row.status, noop: true });
    return { decision: toDecision(row), superseded: targets.map(toDecision), changed: false };
  }
  if (!isOpen(row)) refuseClosed(row, 'adoption');
  refuseStale(row, p.version);
  for (const t of targets) {
    if (t.status !== 'adopted') {
      throw conflict(
        `decision ${ref(t)} is ${t.status}, not adopted: only an adopted decision is superseded` +
          (t.status === 'superseded' ? ` (${t.superseded_by} superseded it already)` : isOpen(t) ? ' (adopt it, or withdraw it with decision.reverse)' : ''),
      );
    }
  }
  refuseOwnProposal(ctx, row);
  const signatures = await requireReady(ctx.q, ctx.orgId, row, rightOf((await readRights(ctx.q, ctx.orgId)).rights, row));
  // The caller decides the new decision and each decision it closes.
  const how = await enforceRights(ctx, [actOf(row), ...targets.map(actOf)], hold);
  await markAdopted(ctx, row, p, how, p.supersedes);
  await ctx.q.query(
    `UPDATE decisions SET status = 'superseded', superseded_by = $3, closed_by = $4, closed_at = now(), closed_reason = NULL, updated_at = now()
        WHERE org_id = $1 AND decision_id = ANY($2::text[])`,
    [ctx.orgId, p.supersedes, row.decision_id, ctx.principal.id],
  );
  await closeDecisionApprovals(ctx, p.supersedes, `superseded by ${row.decision_id}`);
  const after = await lockDecisions(ctx.q, ctx.orgId, [p.decisionId, ...p.supersedes]);
  await ctx.emit('decision.record.supersede', row.decision_id, { ...base, status: 'adopted', signatures, override: how.override, approvalId: how.approvalId });
  return { decision: toDecision(after.get(p.decisionId)!), superseded: p.supersedes.map((id) => toDecision(after.get(id)!)), changed: true };
});

/**
 * Withdraw an open decision (its driver directly, anyone else as a decider) or reverse an adopted one (a decider).
 * Superseded is closed (CONFLICT); withdrawn or reversed already: changed:false.
 */
export const reverse = handler(c.reverse, async (ctx, p) => {
  const row = await getDecision(ctx.q, ctx.orgId, p.decisionId, 'FOR UPDATE');
  const open = isOpen(row);
  const hold: HoldSpec = { subjectId: row.decision_id, summary: `${open ? 'Withdraw' : 'Reverse'} ${row.status} ${described(row)}`, params: p };
  const base = { decisionId: row.decision_id, number: Number(row.number), version: Number(row.version), from: row.status };
  if (row.status === 'withdrawn' || row.status === 'reversed') {
    await verifyGivenProof(ctx, hold);
    await ctx.emit('decision.record.reverse', row.decision_id, { ...base, status: row.status, noop: true });
    return { decision: toDecision(row), changed: false };
  }
  if (row.status === 'superseded') {
    throw conflict(`decision ${ref(row)} was superseded by ${row.superseded_by}: it is closed; reverse or supersede ${row.superseded_by} instead`);
  }
  // A driver withdraws its own open proposal at any time; everything else is a decider's act.
  const how = open && row.driver === ctx.principal.id ? { override: false, approvalId: null } : await enforceRights(ctx, actOf(row), hold);
  const status = open ? 'withdrawn' : 'reversed';
  await ctx.q.query(
    `UPDATE decisions SET status = $3, closed_by = $4, closed_at = now(), closed_reason = $5, updated_at = now() WHERE org_id = $1 AND decision_id = $2`,
    [ctx.orgId, row.decision_id, status, ctx.principal.id, p.reason],
  );
  await closeDecisionApprovals(ctx, [row.decision_id], status);
  const updated = await getDecision(ctx.q, ctx.orgId, row.decision_id);
  await ctx.emit('decision.record.reverse', row.decision_id, { ...base, status, override: how.override, approvalId: how.approvalId });
  return { decision: toDecision(updated), changed: true };
});
