import type { z } from 'zod';
import { conflict } from '../../../protocol/errors.js';
import { crmDesk as c } from '../../../protocol/methods/crm/desk.js';
import { one } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import {
  ESCALATION_COLUMNS,
  loadEscalation,
  loadTerms,
  openDeal,
  setOffer,
  signRequest,
  TERMS_COLUMNS,
  toEscalation,
  toTerms,
  type EscalationRow,
  type TermsRow,
} from './model.js';

/*
 * crm.signEscalation, the deal desk's signature act (class crm.sign_escalation, subject crm.signature desk_…). The
 * proof is bound to the escalation's id, version and exact terms or step (model.ts signRequest): without one,
 * whoever calls, the pipeline answers the hold frame and appends crm.signature.hold. Signed terms become the deal's
 * offer; a signed step is approved (the deal room shows it).
 */

type Out = z.output<(typeof c.signEscalation)['result']>;

const NEXT: Record<string, string> = {
  returned: 'it was sent back: revise the terms (crm.updateHeldTerms) or hold the step again (crm.holdNextStep) for a new escalation',
  withdrawn: 'it was withdrawn (new terms replaced it, or its opener withdrew it): read the deal (crm.getDeal) for the open escalation',
};

export const signEscalation = handler(c.signEscalation, async (ctx, p): Promise<Out> => {
  const found = await loadEscalation(ctx.q, ctx.orgId, p.escalationId);
  const deal = await openDeal(ctx, found.deal_id, 'sign its escalations');
  const e = await loadEscalation(ctx.q, ctx.orgId, p.escalationId, true);
  const t = e.terms_id ? await loadTerms(ctx.q, ctx.orgId, e.terms_id, true) : null;
  const request = signRequest(e, t, { approvalId: p.approvalId, signatureToken: p.signatureToken });
  if (e.status === 'signed') {
    // A proof given again is checked as used (refused: a proof is single-use); without one there is nothing to sign.
    await ctx.verifyProof(request);
    throw conflict(`escalation ${e.escalation_id} is already signed (approval ${e.approval_id}); nothing to sign: read the deal (crm.getDeal)`);
  }
  if (e.status !== 'open') throw conflict(`escalation ${e.escalation_id} is ${e.status}, not open: ${NEXT[e.status]}`);
  const proof = await ctx.requireSignature(request);
  const now = ctx.deps.clock.now().toISOString();
  const signed = one(
    await ctx.q.query<EscalationRow>(
      `UPDATE crm_escalations SET status = 'signed', approval_id = $3, resolved_by = $4, resolved_at = $5 WHERE org_id = $1 AND escalation_id = $2
        RETURNING ${ESCALATION_COLUMNS}`,
      [ctx.orgId, e.escalation_id, proof.approvalId, ctx.principal.id, now],
    ),
  );
  let offered: TermsRow | null = null;
  if (t) {
    offered = one(
      await ctx.q.query<TermsRow>(`UPDATE crm_terms SET status = 'offered', updated_at = $3 WHERE org_id = $1 AND terms_id = $2 RETURNING ${TERMS_COLUMNS}`, [
        ctx.orgId,
        t.terms_id,
        now,
      ]),
    );
    await setOffer(ctx, deal.deal_id, t.terms_id);
  }
  await ctx.emit('crm.escalation.sign', e.escalation_id, {
    escalationId: e.escalation_id,
    dealId: e.deal_id,
    kind: e.kind,
    termsId: e.terms_id,
    version: Number(e.version),
    approvalId: proof.approvalId,
    payloadHash: proof.payloadHash,
    ...(offered ? { netCents: Number(offered.net_cents), currency: offered.currency } : {}),
  });
  return { escalation: toEscalation(signed), terms: offered ? toTerms(offered) : null };
});
