import { badRequest, conflict } from '../../../protocol/errors.js';
import { crmDesk as c } from '../../../protocol/methods/crm/desk.js';
import { canonicalJson } from '../../../protocol/hashing.js';
import { one } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { recordPendingSignature } from '../../approval/index.js';
import { crmPolicy } from '../policy.js';
import {
  breachesOf,
  breachWords,
  currentTerms,
  heldMessage,
  loadEscalation,
  loadTerms,
  money,
  netOf,
  openDeal,
  openEscalation,
  setOffer,
  SIGN_METHOD,
  signRequest,
  TERMS_COLUMNS,
  toEscalation,
  toTerms,
  withdrawOpenTerms,
  type Clause,
  type TermsRow,
} from './model.js';

/*
 * Terms on a deal: one current version (offered, held or returned) per deal; a proposal or revision supersedes it. In
 * the org's policy they are offered at once; beyond it they are held in an escalation whose signature hold is
 * recorded now, so the answer carries the approval block to file. Events carry ids, versions, statuses, breach codes
 * and amounts, never clauses or the rationale.
 */

interface Fields {
  listCents: number;
  discountBps: number;
  paymentDays: number;
  termMonths: number;
  clauses: Clause[];
  rationale: string | null;
}

/** Clauses as stored: a standard clause by code alone, a non-standard one with its text. */
function clausesOf(clauses: readonly { code: string; text?: string }[], field = 'clauses'): Clause[] {
  return clauses.map((cl, i) => {
    const text = cl.text?.trim();
    if (cl.code === 'non_standard' && !text) throw badRequest(`${field}.${i}.text`, 'required for a non_standard clause (its wording)');
    if (cl.code !== 'non_standard' && cl.text !== undefined)
      throw badRequest(`${field}.${i}.text`, `a standard clause (${cl.code}) is named by its code alone`);
    return cl.code === 'non_standard' ? { code: cl.code, text } : { code: cl.code };
  });
}

/** Write a new version of the deal's terms (superseding `current`), offered or held: the answer of both methods. */
async function writeTerms(ctx: HandlerCtx, dealId: string, currency: string, f: Fields, current: TermsRow | null) {
  const policy = await crmPolicy(ctx.q, ctx.orgId);
  const netCents = netOf(f.listCents, f.discountBps);
  const breaches = breachesOf(policy, { ...f, netCents, currency });
  const now = ctx.deps.clock.now().toISOString();
  const withdrawn = await withdrawOpenTerms(ctx, dealId, now);
  if (current) {
    await ctx.q.query(`UPDATE crm_terms SET status = 'superseded', updated_at = $3 WHERE org_id = $1 AND terms_id = $2`, [ctx.orgId, current.terms_id, now]);
  }
  const status = breaches.length ? 'held' : 'offered';
  const terms = one(
    await ctx.q.query<TermsRow>(
      `INSERT INTO crm_terms (org_id, terms_id, deal_id, version, status, list_cents, discount_bps, net_cents, currency, payment_days, term_months, clauses,
                              rationale, breaches, proposed_by, proposed_at, updated_at)
       SELECT $1, $2, $3, coalesce(max(version), 0) + 1, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $15
         FROM crm_terms WHERE org_id = $1 AND deal_id = $3
       RETURNING ${TERMS_COLUMNS}`,
      [
        ctx.orgId,
        newId('trm'),
        dealId,
        status,
        f.listCents,
        f.discountBps,
        netCents,
        currency,
        f.paymentDays,
        f.termMonths,
        JSON.stringify(f.clauses),
        f.rationale,
        breaches,
        ctx.principal.id,
        now,
      ],
    ),
  );
  if (status === 'offered') {
    await setOffer(ctx, dealId, terms.terms_id);
    const words = `Offered: terms v${terms.version} on deal ${dealId} (${money(Number(terms.net_cents), currency)} net) are within the deal desk policy and are now the deal's offer.`;
    return { terms, escalation: null, pending: null, withdrawn, message: words };
  }
  // Held terms replace the offer: the buyer sees no terms until a human signs these (the old ones are superseded).
  await setOffer(ctx, dealId, null);
  const { escalation, pending } = await openEscalation(ctx, { dealId, kind: 'terms', terms });
  const held = { ...terms, escalation_id: escalation.escalation_id };
  const what = `terms v${terms.version} on deal ${dealId} break the deal desk policy (${breachWords(policy, held)})`;
  return { terms: held, escalation, pending, withdrawn, message: heldMessage(ctx, what, escalation, pending) };
}

type Written = Awaited<ReturnType<typeof writeTerms>>;

const answer = (w: Written) => ({
  terms: toTerms(w.terms),
  escalation: w.escalation ? toEscalation(w.escalation) : null,
  approval: w.pending?.approval ?? null,
  message: w.message,
});

const eventOf = (w: Written, extra: Record<string, unknown>) => ({
  dealId: w.terms.deal_id,
  termsId: w.terms.terms_id,
  version: Number(w.terms.version),
  status: w.terms.status,
  breaches: w.terms.breaches,
  listCents: Number(w.terms.list_cents),
  discountBps: Number(w.terms.discount_bps),
  netCents: Number(w.terms.net_cents),
  currency: w.terms.currency,
  paymentDays: Number(w.terms.payment_days),
  termMonths: Number(w.terms.term_months),
  clauseCount: w.terms.clauses.length,
  escalationId: w.escalation?.escalation_id ?? null,
  payloadHash: w.pending?.payloadHash ?? null,
  withdrawnEscalationId: w.withdrawn,
  ...extra,
});

export const proposeTerms = handler(c.proposeTerms, async (ctx, p) => {
  const deal = await openDeal(ctx, p.dealId, 'propose terms');
  const current = await currentTerms(ctx.q, ctx.orgId, deal.deal_id);
  const clauses = clausesOf(p.clauses);
  const w = await writeTerms(
    ctx,
    deal.deal_id,
    deal.currency,
    {
      listCents: p.listCents,
      discountBps: p.discountBps,
      paymentDays: p.paymentDays,
      termMonths: p.termMonths,
      clauses,
      rationale: p.rationale?.trim() || null,
    },
    current,
  );
  await ctx.emit('crm.terms.propose', w.terms.terms_id, eventOf(w, { supersededTermsId: current?.terms_id ?? null }));
  return answer(w);
});

const FIELDS = ['listCents', 'discountBps', 'paymentDays', 'termMonths', 'clauses', 'rationale'] as const;

export const updateHeldTerms = handler(c.updateHeldTerms, async (ctx, p) => {
  // The deal first (every desk act locks the deal, then its terms), so a proposal and a revision cannot cross.
  const found = await loadTerms(ctx.q, ctx.orgId, p.termsId);
  const deal = await openDeal(ctx, found.deal_id, 'revise its terms');
  const t = await loadTerms(ctx.q, ctx.orgId, p.termsId, true);
  if (t.status !== 'held' && t.status !== 'returned') {
    throw conflict(
      t.status === 'superseded'
        ? `terms ${t.terms_id} were superseded by a later version; read the deal (crm.getDeal) and revise its current terms, or propose new ones (crm.proposeTerms)`
        : `terms ${t.terms_id} are ${t.status}, not held or returned: only held or returned terms are revised; propose new terms (crm.proposeTerms)`,
    );
  }
  const was: Fields = {
    listCents: Number(t.list_cents),
    discountBps: Number(t.discount_bps),
    paymentDays: Number(t.payment_days),
    termMonths: Number(t.term_months),
    clauses: t.clauses.map((cl) => (cl.text ? { code: cl.code, text: cl.text } : { code: cl.code })),
    rationale: t.rationale,
  };
  const next: Fields = {
    listCents: p.listCents ?? was.listCents,
    discountBps: p.discountBps ?? was.discountBps,
    paymentDays: p.paymentDays ?? was.paymentDays,
    termMonths: p.termMonths ?? was.termMonths,
    clauses: p.clauses ? clausesOf(p.clauses) : was.clauses,
    rationale: p.rationale === undefined ? was.rationale : p.rationale.trim() || null,
  };
  const fields = FIELDS.filter((k) => canonicalJson(next[k]) !== canonicalJson(was[k]));
  if (fields.length === 0) {
    if (t.status === 'returned') {
      throw conflict(
        `terms ${t.terms_id} were returned by the reviewer; change at least one of ${FIELDS.join(', ')} to send them again (or propose new terms with crm.proposeTerms)`,
      );
    }
    // Held and unchanged: the same escalation still waits; its approval block again.
    const { escalation, pending } = await reissue(ctx, t);
    await ctx.emit('crm.terms.revise', t.terms_id, { dealId: t.deal_id, termsId: t.terms_id, version: Number(t.version), status: t.status, noop: true });
    return {
      terms: toTerms(t),
      escalation: escalation ? toEscalation(escalation) : null,
      approval: pending?.approval ?? null,
      message: `Nothing changed: terms v${t.version} are still held in escalation ${t.escalation_id}; file the approval block (approval.request) if you have not, and wait for a human.`,
      changed: false,
    };
  }
  const w = await writeTerms(ctx, deal.deal_id, deal.currency, next, t);
  await ctx.emit('crm.terms.revise', w.terms.terms_id, eventOf(w, { fromTermsId: t.terms_id, fields }));
  return { ...answer(w), changed: true };
});

/** A held version's open escalation and its hold recorded again (fresh expiry): for an unchanged revision. */
async function reissue(ctx: HandlerCtx, t: TermsRow) {
  if (!t.escalation_id) return { escalation: null, pending: null };
  const escalation = await loadEscalation(ctx.q, ctx.orgId, t.escalation_id);
  if (escalation.status !== 'open') return { escalation, pending: null };
  const pending = await recordPendingSignature(ctx.q, {
    orgId: ctx.orgId,
    method: SIGN_METHOD,
    heldBy: ctx.principal.id,
    deps: ctx.deps,
    request: signRequest(escalation, t),
  });
  return { escalation, pending };
}
