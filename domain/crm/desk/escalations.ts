import { conflict } from '../../../protocol/errors.js';
import { crmDesk as c } from '../../../protocol/methods/crm/desk.js';
import { one } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { decodeCursor, encodeCursor, timeAndId } from '../../core/cursor.js';
import { signatureApprovalStates } from '../../approval/index.js';
import { loadDeal } from '../model.js';
import {
  closeEscalationApprovals,
  ESCALATION_COLUMNS,
  heldMessage,
  loadEscalation,
  openDeal,
  openEscalation,
  SIGN_CLASS,
  TERMS_COLUMNS,
  toEscalation,
  toTerms,
  type EscalationRow,
  type TermsRow,
} from './model.js';

/*
 * Escalations other than signing: an agent stopping itself at a next step (holdNextStep), sending one back or
 * withdrawing it (returnEscalation: grants nothing, needs no proof), and the desk's queue (listEscalations, oldest
 * first). Events carry ids, kinds and statuses, never the step's title or reason, nor the note.
 */

export const holdNextStep = handler(c.holdNextStep, async (ctx, p) => {
  const deal = await openDeal(ctx, p.dealId, 'hold a next step');
  const { escalation, pending } = await openEscalation(ctx, {
    dealId: deal.deal_id,
    kind: 'next_step',
    terms: null,
    step: { kind: p.kind, title: p.title.trim(), reason: p.reason.trim() },
  });
  await ctx.emit('crm.next_step.hold', escalation.escalation_id, {
    dealId: deal.deal_id,
    escalationId: escalation.escalation_id,
    stepKind: p.kind,
    payloadHash: pending.payloadHash,
  });
  return {
    escalation: toEscalation(escalation),
    approval: pending.approval,
    message: heldMessage(ctx, `the next step (${p.kind}) on deal ${deal.deal_id} needs a human`, escalation, pending),
  };
});

export const returnEscalation = handler(c.returnEscalation, async (ctx, p) => {
  const found = await loadEscalation(ctx.q, ctx.orgId, p.escalationId);
  // The deal first, as every desk act locks it.
  await loadDeal(ctx.q, ctx.orgId, found.deal_id, true);
  const e = await loadEscalation(ctx.q, ctx.orgId, p.escalationId, true);
  if (e.status === 'returned' || e.status === 'withdrawn') {
    await ctx.emit('crm.escalation.return', e.escalation_id, { escalationId: e.escalation_id, dealId: e.deal_id, kind: e.kind, status: e.status, noop: true });
    return { escalation: toEscalation(e), changed: false };
  }
  if (e.status === 'signed') {
    throw conflict(
      `escalation ${e.escalation_id} is signed (approval ${e.approval_id}); nothing to send back: ${e.kind === 'terms' ? 'propose new terms (crm.proposeTerms)' : 'hold a new next step (crm.holdNextStep)'} to change it`,
    );
  }
  // Whoever opened it withdraws it; anyone else (a reviewer) sends it back.
  const status = e.opened_by === ctx.principal.id ? 'withdrawn' : 'returned';
  const now = ctx.deps.clock.now().toISOString();
  const saved = one(
    await ctx.q.query<EscalationRow>(
      `UPDATE crm_escalations SET status = $3, note = $4, resolved_by = $5, resolved_at = $6 WHERE org_id = $1 AND escalation_id = $2
        RETURNING ${ESCALATION_COLUMNS}`,
      [ctx.orgId, e.escalation_id, status, p.note?.trim() || null, ctx.principal.id, now],
    ),
  );
  await closeEscalationApprovals(ctx, [e.escalation_id], status === 'returned' ? 'rejected' : 'withdrawn', `by ${ctx.principal.id}`);
  if (e.terms_id) {
    await ctx.q.query(`UPDATE crm_terms SET status = 'returned', updated_at = $3 WHERE org_id = $1 AND terms_id = $2 AND status = 'held'`, [
      ctx.orgId,
      e.terms_id,
      now,
    ]);
  }
  await ctx.emit('crm.escalation.return', e.escalation_id, { escalationId: e.escalation_id, dealId: e.deal_id, kind: e.kind, termsId: e.terms_id, status });
  return { escalation: toEscalation(saved), changed: true };
});

export const listEscalations = handler(c.listEscalations, async (ctx, p) => {
  if (p.dealId) await loadDeal(ctx.q, ctx.orgId, p.dealId);
  const params: unknown[] = [ctx.orgId];
  const where = ['e.org_id = $1'];
  if (p.status !== 'all') where.push(`e.status = $${params.push(p.status)}`);
  if (p.kind) where.push(`e.kind = $${params.push(p.kind)}`);
  if (p.dealId) where.push(`e.deal_id = $${params.push(p.dealId)}`);
  if (p.cursor) {
    const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
    where.push(`(e.opened_at, e.escalation_id) > ($${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<EscalationRow>(
    `SELECT ${ESCALATION_COLUMNS} FROM crm_escalations e WHERE ${where.join(' AND ')} ORDER BY e.opened_at, e.escalation_id LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, p.limit);
  const termIds = page.flatMap((e) => (e.terms_id ? [e.terms_id] : []));
  const terms = termIds.length
    ? await ctx.q.query<TermsRow>(`SELECT ${TERMS_COLUMNS} FROM crm_terms WHERE org_id = $1 AND terms_id = ANY($2::text[])`, [ctx.orgId, termIds])
    : [];
  const byId = new Map(terms.map((t) => [t.terms_id, t]));
  const states = await signatureApprovalStates(
    ctx.q,
    ctx.orgId,
    SIGN_CLASS,
    page.flatMap((e) => (e.payload_hash ? [{ subjectId: e.escalation_id, payloadHash: e.payload_hash }] : [])),
  );
  const last = page[page.length - 1];
  return {
    escalations: page.map((e) => {
      const approval = e.payload_hash ? states.get(`${e.escalation_id}\n${e.payload_hash}`) : undefined;
      const t = e.terms_id ? byId.get(e.terms_id) : undefined;
      return {
        ...toEscalation(e),
        approvalId: e.approval_id ?? approval?.approvalId ?? null,
        approvalState: approval?.state ?? 'not_filed',
        payloadHash: e.payload_hash,
        terms: t ? toTerms(t) : null,
        step: e.kind === 'next_step' && e.step_kind ? { kind: e.step_kind, title: e.step_title ?? '', reason: e.step_reason ?? '' } : null,
        note: e.note,
        resolvedBy: e.resolved_by,
      };
    }),
    nextCursor: rows.length > p.limit && last ? encodeCursor([new Date(last.opened_at).toISOString(), last.escalation_id]) : null,
  };
});
