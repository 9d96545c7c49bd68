import type { z } from 'zod';
import { conflict, notFound } from '../../../protocol/errors.js';
import { minorDigits, type Escalation, type Terms } from '../../../protocol/methods/crm/index.js';
import { BREACHES, STEP_KINDS } from '../../../protocol/methods/crm/desk.js';
import { one, type Queryable } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { actionClassOf, closePendingApprovals, recordPendingSignature, type PendingSignature, type SignatureRequest } from '../../approval/index.js';
import { loadDeal, requireNotDeleted, type DealRow } from '../model.js';
import { roundHalfAway } from '../pipeline.js';
import type { CrmPolicy } from '../policy.js';

/*
 * The deal desk's rows and the one signature act they share. An escalation's hold binds crm.signEscalation to the
 * escalation's id, version and exact terms (or step): the same function builds it when the escalation opens (the
 * hold pre-recorded, its approval block answered) and when signEscalation checks the proof, so a revision, a new
 * version or changed terms can never be signed with a proof filed for the old ones.
 */

export const SIGN_METHOD = 'crm.signEscalation';
export const SIGN_CLASS = actionClassOf(SIGN_METHOD);

type Breach = (typeof BREACHES)[number];
type StepKind = (typeof STEP_KINDS)[number];
export interface Clause {
  code: string;
  text?: string | null;
}

export interface TermsRow {
  terms_id: string;
  deal_id: string;
  version: number;
  status: 'offered' | 'held' | 'returned' | 'superseded' | 'accepted';
  list_cents: string | number;
  discount_bps: number;
  net_cents: string | number;
  currency: string;
  payment_days: number;
  term_months: number;
  clauses: Clause[];
  rationale: string | null;
  breaches: string[];
  escalation_id: string | null;
  proposed_by: string;
  proposed_at: string | Date;
}
export const TERMS_COLUMNS = `terms_id, deal_id, version, status, list_cents, discount_bps, net_cents, currency, payment_days, term_months, clauses, rationale,
  breaches, escalation_id, proposed_by, proposed_at`;

export interface EscalationRow {
  escalation_id: string;
  deal_id: string;
  kind: 'terms' | 'next_step';
  terms_id: string | null;
  version: number;
  status: 'open' | 'signed' | 'returned' | 'withdrawn';
  breaches: string[];
  approval_id: string | null;
  step_kind: StepKind | null;
  step_title: string | null;
  step_reason: string | null;
  note: string | null;
  payload_hash: string | null;
  opened_by: string;
  opened_at: string | Date;
  resolved_by: string | null;
  resolved_at: string | Date | null;
}
export const ESCALATION_COLUMNS = `escalation_id, deal_id, kind, terms_id, version, status, breaches, approval_id, step_kind, step_title, step_reason, note,
  payload_hash, opened_by, opened_at, resolved_by, resolved_at`;

const iso = (v: string | Date): string => new Date(v).toISOString();

export const toTerms = (t: TermsRow): z.output<typeof Terms> => ({
  id: t.terms_id,
  dealId: t.deal_id,
  version: Number(t.version),
  status: t.status,
  listCents: Number(t.list_cents),
  discountBps: Number(t.discount_bps),
  netCents: Number(t.net_cents),
  currency: t.currency,
  paymentDays: Number(t.payment_days),
  termMonths: Number(t.term_months),
  clauses: t.clauses.map((c) => ({ code: c.code, text: c.text ?? null })),
  breaches: t.breaches,
  escalationId: t.escalation_id,
  proposedBy: t.proposed_by,
  proposedAt: iso(t.proposed_at),
});

export const toEscalation = (e: EscalationRow): z.output<typeof Escalation> => ({
  id: e.escalation_id,
  dealId: e.deal_id,
  kind: e.kind,
  termsId: e.terms_id,
  version: Number(e.version),
  status: e.status,
  breaches: e.breaches,
  approvalId: e.approval_id,
  stepKind: e.step_kind,
  openedBy: e.opened_by,
  openedAt: iso(e.opened_at),
  resolvedAt: e.resolved_at === null ? null : iso(e.resolved_at),
});

/** Net price: list less the discount, rounded half away from zero (as the books round). */
export const netOf = (listCents: number, discountBps: number): number => Number(roundHalfAway(BigInt(listCents) * BigInt(10000 - discountBps), 10000n));

/** The policy codes terms break, in BREACHES order; empty: in policy. */
export function breachesOf(
  policy: CrmPolicy,
  t: { discountBps: number; paymentDays: number; termMonths: number; clauses: readonly Clause[]; netCents: number; currency: string },
): Breach[] {
  const limit = policy.signOffNetCents[t.currency];
  const broken: Record<Breach, boolean> = {
    discount: t.discountBps > policy.maxDiscountBps,
    payment_days: t.paymentDays > policy.maxPaymentDays,
    term_months: t.termMonths < policy.minTermMonths || t.termMonths > policy.maxTermMonths,
    clause: t.clauses.some((c) => c.code === 'non_standard'),
    net: limit !== undefined && t.netCents > limit,
  };
  return BREACHES.filter((b) => broken[b]);
}

/** What each breach is, against the policy, for a message. */
export function breachWords(policy: CrmPolicy, t: TermsRow): string {
  const words: Record<string, string> = {
    discount: `discount ${Number(t.discount_bps) / 100}% > ${policy.maxDiscountBps / 100}%`,
    payment_days: `${t.payment_days} payment days > ${policy.maxPaymentDays}`,
    term_months: `term ${t.term_months} months outside ${policy.minTermMonths}..${policy.maxTermMonths}`,
    clause: 'a non-standard clause',
    net: `net ${money(Number(t.net_cents), t.currency)} > ${money(policy.signOffNetCents[t.currency] ?? 0, t.currency)}`,
  };
  return t.breaches.map((b) => words[b] ?? b).join(', ');
}

/** `AUD 75,000.00`: the currency's code and its minor digits. */
export function money(cents: number, currency: string): string {
  const digits = minorDigits(currency);
  return `${currency} ${new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(cents / 10 ** digits)}`;
}

const STEP_WORDS: Record<StepKind, string> = {
  send_contract: 'send the contract',
  executive_contact: 'contact an executive',
  free_pilot: 'offer a free pilot',
  custom: 'a custom step',
};

/**
 * signEscalation's signature request for an escalation: its params (flat, so the approval inbox lists them) are the
 * escalation's id, version and exact terms or step; the summary is what the human reads. Proof fields are added by
 * the caller and left out of the hash.
 */
export function signRequest(e: EscalationRow, t: TermsRow | null, proof: { approvalId?: string; signatureToken?: string } = {}): SignatureRequest {
  const base = { escalationId: e.escalation_id, dealId: e.deal_id, kind: e.kind, version: Number(e.version) };
  if (e.kind === 'terms' && t) {
    const clauses = t.clauses.map((c) => (c.text ? { code: c.code, text: c.text } : { code: c.code }));
    const nonStandard = clauses.filter((c) => c.code === 'non_standard').length;
    return {
      actionClass: SIGN_CLASS,
      subjectId: e.escalation_id,
      summary:
        `Offer terms v${t.version} on deal ${t.deal_id}: ${money(Number(t.list_cents), t.currency)} list less ${Number(t.discount_bps) / 100}% = ` +
        `${money(Number(t.net_cents), t.currency)} net, ${t.payment_days} days to pay, ${t.term_months} months` +
        (nonStandard ? `, ${nonStandard} non-standard clause${nonStandard > 1 ? 's' : ''}` : '') +
        ` (beyond policy: ${t.breaches.join(', ')})`,
      params: {
        ...base,
        termsId: t.terms_id,
        currency: t.currency,
        listCents: Number(t.list_cents),
        discountBps: Number(t.discount_bps),
        netCents: Number(t.net_cents),
        paymentDays: Number(t.payment_days),
        termMonths: Number(t.term_months),
        clauses,
        breaches: t.breaches,
        ...proof,
      },
    };
  }
  return {
    actionClass: SIGN_CLASS,
    subjectId: e.escalation_id,
    summary: `Approve the next step on deal ${e.deal_id}: ${STEP_WORDS[e.step_kind ?? 'custom']}, "${e.step_title ?? ''}"`,
    params: { ...base, stepKind: e.step_kind, title: e.step_title, reason: e.step_reason, ...proof },
  };
}

/** The deal locked for a desk act: known in this org, not deleted, open. */
export async function openDeal(ctx: HandlerCtx, dealId: string, act: string): Promise<DealRow> {
  const row = await loadDeal(ctx.q, ctx.orgId, dealId, true);
  requireNotDeleted(row);
  if (row.status !== 'open') throw conflict(`deal ${row.deal_id} is ${row.status}; reopen it (crm.moveStage) before you ${act}`);
  return row;
}

export async function loadTerms(q: Queryable, orgId: string, termsId: string, lock = false): Promise<TermsRow> {
  const [row] = await q.query<TermsRow>(`SELECT ${TERMS_COLUMNS} FROM crm_terms WHERE org_id = $1 AND terms_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
    orgId,
    termsId,
  ]);
  if (!row) throw notFound(`terms ${termsId}`);
  return row;
}

export async function loadEscalation(q: Queryable, orgId: string, escalationId: string, lock = false): Promise<EscalationRow> {
  const [row] = await q.query<EscalationRow>(
    `SELECT ${ESCALATION_COLUMNS} FROM crm_escalations WHERE org_id = $1 AND escalation_id = $2 ${lock ? 'FOR UPDATE' : ''}`,
    [orgId, escalationId],
  );
  if (!row) throw notFound(`escalation ${escalationId}`);
  return row;
}

/** The deal's current terms (offered, held or returned), locked; the deal is locked first by the caller. */
export async function currentTerms(q: Queryable, orgId: string, dealId: string): Promise<TermsRow | null> {
  const [row] = await q.query<TermsRow>(
    `SELECT ${TERMS_COLUMNS} FROM crm_terms WHERE org_id = $1 AND deal_id = $2 AND status IN ('offered', 'held', 'returned') FOR UPDATE`,
    [orgId, dealId],
  );
  return row ?? null;
}

/** Withdraw the deal's open terms escalation, if any (its terms are being replaced): its id. */
export async function withdrawOpenTerms(ctx: HandlerCtx, dealId: string, now: string): Promise<string | null> {
  const [row] = await ctx.q.query<{ escalation_id: string }>(
    `UPDATE crm_escalations SET status = 'withdrawn', resolved_by = $3, resolved_at = $4
      WHERE org_id = $1 AND deal_id = $2 AND kind = 'terms' AND status = 'open' RETURNING escalation_id`,
    [ctx.orgId, dealId, ctx.principal.id, now],
  );
  if (row) await closeEscalationApprovals(ctx, [row.escalation_id], 'withdrawn', 'new terms replaced them');
  return row?.escalation_id ?? null;
}

/**
 * Escalations taken back (withdrawn, replaced, sent back, their deal deleted): the approvals filed for their signature
 * and still pending are closed too (withdrawn, or rejected when a reviewer sent it back), so no human decides a dead item.
 */
export async function closeEscalationApprovals(
  ctx: HandlerCtx,
  escalationIds: readonly string[],
  status: 'withdrawn' | 'rejected',
  why: string,
): Promise<string[]> {
  return closePendingApprovals(ctx.q, ctx.orgId, {
    actionClasses: [SIGN_CLASS],
    subjectIds: escalationIds,
    status,
    by: ctx.principal.id,
    note: `escalation ${escalationIds.join(', ')} ${status === 'rejected' ? 'was sent back' : 'was withdrawn'}: ${why}`,
  });
}

/** Open an escalation and record signEscalation's hold for it: the escalation and the approval block to file. */
export async function openEscalation(
  ctx: HandlerCtx,
  p: { dealId: string; kind: 'terms' | 'next_step'; terms: TermsRow | null; step?: { kind: StepKind; title: string; reason: string } },
): Promise<{ escalation: EscalationRow; pending: PendingSignature }> {
  const escalationId = newId('desk');
  const now = ctx.deps.clock.now().toISOString();
  const opened = one(
    await ctx.q.query<EscalationRow>(
      `INSERT INTO crm_escalations (org_id, escalation_id, deal_id, kind, terms_id, version, status, breaches, step_kind, step_title, step_reason, opened_by, opened_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9, $10, $11, $12) RETURNING ${ESCALATION_COLUMNS}`,
      [
        ctx.orgId,
        escalationId,
        p.dealId,
        p.kind,
        p.terms?.terms_id ?? null,
        p.terms ? Number(p.terms.version) : 1,
        p.terms?.breaches ?? [],
        p.step?.kind ?? null,
        p.step?.title ?? null,
        p.step?.reason ?? null,
        ctx.principal.id,
        now,
      ],
    ),
  );
  const pending = await recordPendingSignature(ctx.q, {
    orgId: ctx.orgId,
    method: SIGN_METHOD,
    heldBy: ctx.principal.id,
    deps: ctx.deps,
    request: signRequest(opened, p.terms),
  });
  await ctx.q.query(`UPDATE crm_escalations SET payload_hash = $3 WHERE org_id = $1 AND escalation_id = $2`, [ctx.orgId, escalationId, pending.payloadHash]);
  if (p.terms) {
    await ctx.q.query(`UPDATE crm_terms SET escalation_id = $3 WHERE org_id = $1 AND terms_id = $2`, [ctx.orgId, p.terms.terms_id, escalationId]);
  }
  return { escalation: { ...opened, payload_hash: pending.payloadHash }, pending };
}

/** The message to relay verbatim when an escalation opens. */
export function heldMessage(ctx: HandlerCtx, what: string, e: EscalationRow, pending: PendingSignature): string {
  return (
    `Held, not done: ${what}. It waits in escalation ${e.escalation_id} for a human signature. File approval.request with actionClass ` +
    `${pending.approval.actionClass}, payloadHash ${pending.payloadHash} and subject {kind: "${pending.approval.subject.kind}", subjectId: "${e.escalation_id}"} ` +
    `(the approval block of this answer); a human other than the requester approves it at ${ctx.deps.config.publicUrl}/approvals; then call ` +
    `crm.signEscalation with escalationId ${e.escalation_id} and the approvalId (or signatureToken) and a fresh x-idempotency-key.`
  );
}

/** Point the deal's offer at these terms (or none), as a change of the deal (version). */
export async function setOffer(ctx: HandlerCtx, dealId: string, termsId: string | null): Promise<void> {
  await ctx.q.query(`UPDATE crm_deals SET offer_terms_id = $3, version = version + 1, updated_at = $4 WHERE org_id = $1 AND deal_id = $2`, [
    ctx.orgId,
    dealId,
    termsId,
    ctx.deps.clock.now().toISOString(),
  ]);
}
