import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../protocol/errors.js';
import { approval } from '../../protocol/methods/approval.js';
import { approvalReadContracts } from '../../protocol/reads/approval.js';
import { family, reads } from '../family.js';
import { handler, readHandler } from '../handler.js';
import { newId } from '../ids.js';
import { APPROVAL_SELECT, approvalView, decodeCursor, encodeCursor, heldActFor, loadApproval } from './service.js';

const decidedTopic = (orgId: string, approvalId: string) => `approval.decided:${orgId}:${approvalId}`;

export const request = handler(approval.request, async (ctx, p) => {
  const isSignature = p.subject.kind === 'books.signature';
  const hold = isSignature
    ? await heldActFor(ctx.q, ctx.orgId, { actionClass: p.actionClass, payloadHash: p.payloadHash, subjectId: p.subject.subjectId })
    : undefined;
  // Filing the same held act twice while the first is pending gives back the first: one act, one decision.
  const [existing] = await ctx.q.query<{ approval_id: string }>(
    `SELECT approval_id FROM approvals WHERE org_id = $1 AND payload_hash = $2 AND action_class = $3 AND subject_id = $4
        AND status = 'pending' AND expires_at > now() AND requested_by = $5 LIMIT 1`,
    [ctx.orgId, p.payloadHash, p.actionClass, p.subject.subjectId, ctx.principal.id],
  );
  const approvalId = existing?.approval_id ?? newId('apr');
  if (!existing) {
    await ctx.q.query(
      `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, coalesce($9::timestamptz, now() + make_interval(secs => $10::double precision / 1000)))`,
      [ctx.orgId, approvalId, p.actionClass, p.payloadHash, p.subject.kind, p.subject.subjectId, hold?.summary ?? p.subject.summary, ctx.principal.id, hold?.expires_at ?? null, ctx.deps.config.holdTtlMs],
    );
  }
  const view = approvalView(await loadApproval(ctx.q, ctx.orgId, approvalId), ctx);
  await ctx.emit('approval.requested', approvalId, {
    approvalId,
    actionClass: p.actionClass,
    payloadHash: p.payloadHash,
    subjectKind: p.subject.kind,
    subjectId: p.subject.subjectId,
    refiled: Boolean(existing),
  });
  ctx.afterCommit(() => ctx.deps.bus.emit('approval.requested', { orgId: ctx.orgId, approvalId }));
  return view;
});

export const resolve = handler(approval.resolve, async (ctx, p) => {
  if (ctx.principal.kind !== 'human') {
    throw new ApiError('FORBIDDEN_SCOPE', `approval.resolve needs a human principal; ${ctx.principal.id} is an agent`);
  }
  const row = await loadApproval(ctx.q, ctx.orgId, p.approvalId, true);
  if (row.requested_by === ctx.principal.id) {
    throw new ApiError('FORBIDDEN_SCOPE', `approval ${p.approvalId} was requested by ${row.requested_by}; another human must decide it`);
  }
  if (row.status !== 'pending') {
    throw new ApiError('CONFLICT', `approval ${p.approvalId} is already ${row.status} (by ${row.decided_by} at ${row.decided_at})`);
  }
  if (row.expired) throw new ApiError('CONFLICT', `approval ${p.approvalId} expired at ${row.expires_at}; the act must be held and filed again`);
  const status = p.decision === 'approve' ? 'approved' : 'rejected';
  await ctx.q.query(
    `UPDATE approvals SET status = $3, decided_by = $4, decided_at = now(), note = $5 WHERE org_id = $1 AND approval_id = $2`,
    [ctx.orgId, p.approvalId, status, ctx.principal.id, p.note ?? null],
  );
  const view = approvalView(await loadApproval(ctx.q, ctx.orgId, p.approvalId), ctx);
  await ctx.emit(`approval.${status}`, p.approvalId, {
    approvalId: p.approvalId,
    actionClass: row.action_class,
    subjectId: row.subject_id,
    payloadHash: row.payload_hash,
    decision: p.decision,
    requestedBy: row.requested_by,
  });
  ctx.afterCommit(() => {
    ctx.deps.bus.emit(decidedTopic(ctx.orgId, p.approvalId));
    // Org-wide, for the approval inbox's live stream.
    ctx.deps.bus.emit('approval.decided', { orgId: ctx.orgId, approvalId: p.approvalId, status });
  });
  return view;
});

export const get = handler(approval.get, async (ctx, p) => approvalView(await loadApproval(ctx.q, ctx.orgId, p.approvalId), ctx));

export const list = handler(approval.list, async (ctx, p) => {
  const after = p.cursor ? decodeCursor(p.cursor) : null;
  const statusFilter = {
    pending: `a.status = 'pending' AND a.expires_at >= now()`,
    expired: `a.status = 'pending' AND a.expires_at < now()`,
    approved: `a.status = 'approved'`,
    rejected: `a.status = 'rejected'`,
  }[p.status ?? 'pending'];
  const rows = await ctx.q.query<Parameters<typeof approvalView>[0]>(
    `${APPROVAL_SELECT}
      WHERE a.org_id = $1 ${p.status ? `AND ${statusFilter}` : ''}
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

/** Long-poll without holding a transaction: re-read on each notification, and every second for other processes. */
export const wait = readHandler(approvalReadContracts['approval.wait'], async (ctx, query) => {
  const deadline = Date.now() + query.timeoutMs;
  for (;;) {
    const view = approvalView(await loadApproval(ctx.q, ctx.orgId, query.approvalId), ctx);
    const remaining = deadline - Date.now();
    if (view.status !== 'pending' || remaining <= 0 || ctx.signal.aborted) return { ...view, timedOut: view.status === 'pending' };
    const woken = new AbortController();
    const wake = () => woken.abort();
    const topic = decidedTopic(ctx.orgId, query.approvalId);
    ctx.deps.bus.once(topic, wake);
    ctx.signal.addEventListener('abort', wake, { once: true });
    await sleep(Math.min(remaining, 1000), undefined, { signal: woken.signal }).catch(() => {});
    ctx.deps.bus.off(topic, wake);
    ctx.signal.removeEventListener('abort', wake);
  }
});

export const approvalHandlers = family('approval', { request, resolve, get, list });
export const approvalReads = reads({ 'approval.wait': wait });
