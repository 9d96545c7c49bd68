import type { z } from 'zod';
import { ApiError } from '../../protocol/errors.js';
import type { approval } from '../../protocol/methods/approval.js';
import type { HandlerCtx } from '../core/handler.js';
import { approvalView, loadApproval, type ApprovalRow } from './service.js';
import { heldActRunner } from './release.js';

/*
 * The parts of approval.request and approval.resolve that holds beyond the books added (migration 018): who may
 * decide, and release mode (domain/approval/release.ts runs the act).
 */

type RequestParams = z.output<typeof approval.request.params>;
type ResolveParams = z.output<typeof approval.resolve.params>;

/**
 * A family that files and decides its own reviews (fileFamilyApproval, release.ts) takes approval.resolve's decision
 * on them here, by subject kind: it records the decision and what it released in this transaction (appending no
 * event: approval.resolve appends its own) and returns what the decision's event names, or throws to refuse it.
 */
export interface ApprovalSubjectDecider {
  decide(ctx: HandlerCtx, row: ApprovalRow, p: ResolveParams): Promise<Record<string, unknown>>;
}

declare module '../core/family.js' {
  interface Contributions {
    /** Subject kinds (`email.outbound`) whose approvals the contributing family decides itself. */
    approvalSubjects: Readonly<Record<string, ApprovalSubjectDecider>>;
  }
}

/** The family's decider of this subject kind, if a deployed family contributes one. */
export function subjectDecider(ctx: HandlerCtx, kind: string): ApprovalSubjectDecider | undefined {
  for (const c of ctx.deps.families.contributions('approvalSubjects')) {
    const decider = c.value[kind];
    if (decider) return decider;
  }
  return undefined;
}

/** When the approval names its deciders, only they decide it (approve or reject); the message names them. */
export async function assertDecider(ctx: HandlerCtx, row: ApprovalRow): Promise<void> {
  if (!row.deciders || row.deciders.includes(ctx.principal.id)) return;
  const named = await ctx.q.query<{ principal_id: string; name: string }>(
    'SELECT principal_id, name FROM principals WHERE org_id = $1 AND principal_id = ANY($2::text[])',
    [ctx.orgId, row.deciders],
  );
  const names = new Map(named.map((r) => [r.principal_id, r.name]));
  const who = row.deciders.map((id) => (names.has(id) ? `${names.get(id)} (${id})` : id)).join(', ');
  throw new ApiError(
    'CONFLICT',
    `approval ${row.approval_id} may be decided only by ${who}; ${ctx.principal.id} is not among them, so nothing changed: one of them decides it`,
  );
}

/**
 * approval.request for a release hold: the server filed its approval when it held the act, so filing again gives
 * back that approval (one act, one decision); once it is decided or expired, only a new hold files a new one.
 */
export async function requestRelease(ctx: HandlerCtx, p: RequestParams) {
  const [filed] = await ctx.q.query<{ approval_id: string }>(
    `SELECT approval_id FROM approvals WHERE org_id = $1 AND payload_hash = $2 AND action_class = $3 AND subject_id = $4
        AND completion = 'release' AND status = 'pending' AND expires_at > now() ORDER BY requested_at DESC LIMIT 1`,
    [ctx.orgId, p.payloadHash, p.actionClass, p.subject.subjectId],
  );
  if (!filed) {
    throw new ApiError(
      'CONFLICT',
      `payloadHash ${p.payloadHash} is a release hold: its approval was filed by the server when it was held and is no longer pending; call the act again for a new hold`,
    );
  }
  const view = approvalView(await loadApproval(ctx.q, ctx.orgId, filed.approval_id), ctx);
  await ctx.emit('approval.request.create', filed.approval_id, {
    approvalId: filed.approval_id,
    actionClass: p.actionClass,
    payloadHash: p.payloadHash,
    subjectKind: p.subject.kind,
    subjectId: p.subject.subjectId,
    heldMethod: view.heldAct?.method ?? null,
    refiled: true,
  });
  return view;
}

/**
 * Approve a release approval: record the decision and what will run, run the held act in this transaction (its own
 * event first, naming the approval), then the decision's event naming the act's. If the act cannot run, the whole
 * decision is refused (CONFLICT) and nothing is recorded.
 */
export async function approveRelease(ctx: HandlerCtx, row: ApprovalRow, p: ResolveParams) {
  const runner = heldActRunner(ctx.releaseEnv);
  const prepared = await runner.prepare(row, p.amendments ?? {});
  await ctx.q.query(
    `UPDATE approvals SET status = 'approved', decided_by = $3, decided_at = now(), note = $4, released_params = $5::jsonb, released_hash = $6,
            amended = $7::text[], consumed_at = now(), consumed_by = $8
      WHERE org_id = $1 AND approval_id = $2`,
    [
      ctx.orgId,
      row.approval_id,
      ctx.principal.id,
      p.note ?? null,
      JSON.stringify(prepared.params),
      prepared.payloadHash,
      prepared.amended,
      `${prepared.spec.name} released by ${ctx.principal.id} as ${prepared.principal.id}`,
    ],
  );
  // Read before the act appends its event (the org's head lock is then held until commit).
  const view = approvalView(await loadApproval(ctx.q, ctx.orgId, row.approval_id), ctx);
  const act = await runner.run(prepared);
  await ctx.emit('approval.request.approve', row.approval_id, {
    approvalId: row.approval_id,
    actionClass: row.action_class,
    subjectId: row.subject_id,
    payloadHash: row.payload_hash,
    decision: 'approve',
    requestedBy: row.requested_by,
    // What the decision released: the act's event, the hash of the params it ran with, the fields the human changed.
    released: { method: prepared.spec.name, seq: act.event?.seq ?? null, payloadHash: prepared.payloadHash, amended: prepared.amended },
  });
  return view;
}
