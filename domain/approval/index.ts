import { ApiError, badRequest } from '../../protocol/errors.js';
import { approval } from '../../protocol/methods/approval.js';
import { approvalReadContracts } from '../../protocol/reads/approval.js';
import { family, reads, type Family } from '../core/family.js';
import { handler, readHandler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { bindingFor } from './binding.js';
import { approveRelease, assertDecider, requestRelease, subjectDecider } from './decide.js';
import { APPROVAL_SELECT, approvalView, decodeCursor, encodeCursor, loadApproval, lockPayload, type ApprovalRow } from './service.js';
import { holdKeeper } from './keeper.js';
import { approvalWaiting } from './waiting.js';

export const request = handler(approval.request, async (ctx, p) => {
  await lockPayload(ctx.q, ctx.orgId, p.payloadHash);
  // The server binds a signature approval to the hold it recorded; the requester's summary is kept only for others.
  const bound = await bindingFor(ctx.q, ctx.orgId, p);
  if (bound?.completion === 'release') return requestRelease(ctx, p);
  const summary = bound?.summary ?? p.subject.summary;
  // Filing the same held act twice while the first is pending gives back the first: one act, one decision. Only
  // when it shows the same: after the act changed (a new hold, another summary) a new approval shows the new words.
  const [existing] = await ctx.q.query<{ approval_id: string }>(
    `SELECT approval_id FROM approvals WHERE org_id = $1 AND payload_hash = $2 AND action_class = $3 AND subject_id = $4
        AND status = 'pending' AND expires_at > now() AND requested_by = $5 AND subject_kind = $6 AND summary = $7 LIMIT 1`,
    [ctx.orgId, p.payloadHash, p.actionClass, p.subject.subjectId, ctx.principal.id, p.subject.kind, summary],
  );
  const approvalId = existing?.approval_id ?? newId('apr');
  if (!existing) {
    await ctx.q.query(
      `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at,
                              held_method, held_params, held_at, deciders)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, coalesce($9::timestamptz, now() + make_interval(secs => $10::double precision / 1000)),
               $11, $12::jsonb, $13::timestamptz, $14::text[])`,
      [
        ctx.orgId,
        approvalId,
        p.actionClass,
        p.payloadHash,
        p.subject.kind,
        p.subject.subjectId,
        summary,
        ctx.principal.id,
        bound?.expiresAt ?? null,
        ctx.deps.config.holdTtlMs,
        bound?.method ?? null,
        bound ? JSON.stringify(bound.params) : null,
        bound?.heldAt ?? null,
        bound?.deciders ?? null,
      ],
    );
  }
  const view = approvalView(await loadApproval(ctx.q, ctx.orgId, approvalId), ctx);
  // At commit, to every process: the org's inbox streams.
  await ctx.emit('approval.request.create', approvalId, {
    approvalId,
    actionClass: p.actionClass,
    payloadHash: p.payloadHash,
    subjectKind: p.subject.kind,
    subjectId: p.subject.subjectId,
    // Whether it can ever be a proof: bound to a hold of this method.
    heldMethod: bound?.method ?? null,
    refiled: Boolean(existing),
  });
  return view;
});

export const resolve = handler(approval.resolve, async (ctx, p) => {
  if (ctx.principal.kind !== 'human') {
    throw new ApiError(
      'GOVERNANCE_NOT_READY',
      `approval.resolve records a human's decision and ${ctx.principal.id} is an agent: a human decides approval ${p.approvalId} in the approval inbox or over HTTP; wait for it (approval.wait)`,
    );
  }
  const row = await loadApproval(ctx.q, ctx.orgId, p.approvalId, true);
  if (row.requested_by === ctx.principal.id) {
    throw new ApiError(
      'CONFLICT',
      `approval ${p.approvalId} was requested by ${row.requested_by}, who never decides their own request: another human must decide it`,
    );
  }
  await assertDecider(ctx, row);
  if (row.status !== 'pending') {
    throw new ApiError('CONFLICT', `approval ${p.approvalId} is already ${row.status} (by ${row.decided_by} at ${row.decided_at})`);
  }
  if (row.expired) throw new ApiError('CONFLICT', `approval ${p.approvalId} expired at ${row.expires_at}; the act must be held and filed again`);
  // A review its family decides itself (email's outbound mail): the family records the decision and what it released.
  const decider = subjectDecider(ctx, row.subject_kind);
  if (decider) {
    const released = await decider.decide(ctx, row, p);
    return decided(ctx, row, p.decision, { released });
  }
  if (p.amendments !== undefined && (row.completion !== 'release' || p.decision !== 'approve')) {
    throw badRequest(
      'amendments',
      row.completion === 'release'
        ? 'only an approve takes amendments'
        : `approval ${p.approvalId} is not a release approval: its act is retried by its requester, unchanged`,
    );
  }
  if (row.completion === 'release' && p.decision === 'approve') return approveRelease(ctx, row, p);
  const status = p.decision === 'approve' ? 'approved' : 'rejected';
  await ctx.q.query(`UPDATE approvals SET status = $3, decided_by = $4, decided_at = now(), note = $5 WHERE org_id = $1 AND approval_id = $2`, [
    ctx.orgId,
    p.approvalId,
    status,
    ctx.principal.id,
    p.note ?? null,
  ]);
  return decided(ctx, row, p.decision, {});
});

/** The decision's view and its one event (at commit, to every process: approval.wait on it, the org's inbox streams). */
async function decided(ctx: HandlerCtx, row: ApprovalRow, decision: 'approve' | 'reject', extra: Record<string, unknown>) {
  const view = approvalView(await loadApproval(ctx.q, ctx.orgId, row.approval_id), ctx);
  await ctx.emit(`approval.request.${decision}`, row.approval_id, {
    approvalId: row.approval_id,
    actionClass: row.action_class,
    subjectId: row.subject_id,
    payloadHash: row.payload_hash,
    decision,
    requestedBy: row.requested_by,
    ...extra,
  });
  return view;
}

export const get = handler(approval.get, async (ctx, p) => approvalView(await loadApproval(ctx.q, ctx.orgId, p.approvalId), ctx));

export const list = handler(approval.list, async (ctx, p) => {
  const after = p.cursor ? decodeCursor(p.cursor) : null;
  const statusFilter = {
    pending: `a.status = 'pending' AND a.expires_at >= now()`,
    expired: `a.status = 'pending' AND a.expires_at < now()`,
    approved: `a.status = 'approved'`,
    rejected: `a.status = 'rejected'`,
    withdrawn: `a.status = 'withdrawn'`,
    all: 'true',
  }[p.status];
  const rows = await ctx.q.query<Parameters<typeof approvalView>[0]>(
    `${APPROVAL_SELECT}
      WHERE a.org_id = $1 AND ${statusFilter}
        AND ($2::timestamptz IS NULL OR (a.requested_at, a.approval_id) < ($2::timestamptz, $3))
      ORDER BY a.requested_at DESC, a.approval_id DESC LIMIT $4`,
    [ctx.orgId, after?.[0] ?? null, after?.[1] ?? '', p.limit + 1],
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    approvals: page.map((r) => approvalView(r, ctx)),
    nextCursor: rows.length > p.limit && last ? encodeCursor(last.requested_at, last.approval_id) : null,
  };
});

/**
 * Long-poll without holding a transaction: re-read when the org's live ledger (domain/stream, from any process)
 * shows an event about this approval, and every approvalWaitPollMs as a safety net (and just after expiry,
 * which appends nothing). Subscribed before the first read, so a decision committed in between still wakes it.
 */
export const wait = readHandler(approvalReadContracts['approval.wait'], async (ctx, query) => {
  const deadline = Date.now() + query.timeoutMs;
  let woken = false;
  let wake: (() => void) | undefined;
  const nudge = () => {
    woken = true;
    wake?.();
  };
  const subscription = await ctx.deps.stream.subscribe(ctx.orgId, undefined, (events) => {
    // Any event about the approval: its own family's, or a family that decides its reviews itself (email.review.*).
    if (events.some((e) => e.row.entity_id === query.approvalId)) nudge();
  });
  ctx.signal.addEventListener('abort', nudge, { once: true });
  try {
    for (;;) {
      woken = false;
      const view = approvalView(await loadApproval(ctx.q, ctx.orgId, query.approvalId), ctx);
      const remaining = deadline - Date.now();
      if (view.status !== 'pending' || remaining <= 0 || ctx.signal.aborted) return { ...view, timedOut: view.status === 'pending' };
      if (woken) continue; // an event came while reading: read again at once
      // Expiry is not an event (nothing happens then): read again just after it, if that comes first.
      const untilExpiry = Math.max(0, Date.parse(view.expiresAt) - Date.now()) + 50;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, ctx.deps.config.approvalWaitPollMs, untilExpiry));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    subscription.close();
    ctx.signal.removeEventListener('abort', nudge);
  }
});

export const approvalHandlers = family('approval', { request, resolve, get, list });
export const approvalReads = reads({ 'approval.wait': wait });

/** The approval family, as domain/deployed.ts lists it. */
export const approvalFamily: Family = {
  name: 'approval',
  methods: approvalHandlers,
  reads: approvalReads,
  holds: holdKeeper,
  contributes: { waiting: approvalWaiting },
};

/** Its public face for other families: an approval as stored, and the action class a method's signature acts in. */
export { loadApproval, type ApprovalRow } from './service.js';
export { fileFamilyApproval, settleFamilyApproval } from './release.js';
export type { ApprovalSubjectDecider } from './decide.js';
export { actionClassOf, signaturePayloadHash, type SignatureProof, type SignatureRequest } from './signature.js';
/**
 * A signature act's hold recorded by the call that opens what it signs (crm's deal desk), where its approval stands,
 * and the pending approvals of subjects their family took back closed (no dead item in the inbox).
 */
export { closePendingApprovals, recordPendingSignature, signatureApprovalStates, type PendingSignature, type SignatureApprovalState } from './pending.js';
