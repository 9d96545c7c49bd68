import type { z } from 'zod';
import type { Requirements } from '../../../protocol/reads/decision.js';
import type { Queryable } from '../../../db/types.js';
import { decidersOf, findRight, selects, selectsAny, standing, type GoverningAct, type ResolvedRight, type Right } from '../rights.js';
import type { Principal } from '../../core/auth.js';
import { isOpen, openAdjustments, signaturesOn, type DecisionRow, type SignatureRow } from './model.js';

/* What adopting a decision's current version needs under the org's rights: the agree signatures and no open adjustment. */

/** The governing act of a decision: its area, its driver as the owner. */
export const actOf = (r: DecisionRow): GoverningAct => ({ kind: 'decision', key: r.area, owner: r.driver });

export const rightOf = (rights: readonly Right[], r: DecisionRow): ResolvedRight => findRight(rights, actOf(r));

/**
 * The agree selectors without a signature on the version: an id needs its own signature (an agent's endorsement
 * counts where agree names it), a group or role one of its members', owner the driver's (shown as the driver's id).
 */
export async function missingSigners(
  q: Queryable,
  orgId: string,
  r: DecisionRow,
  resolved: ResolvedRight,
  signatures: readonly SignatureRow[],
): Promise<string[]> {
  const missing: string[] = [];
  for (const selector of resolved.right.agree ?? []) {
    let met = false;
    for (const s of signatures) {
      if (await selects(q, orgId, selector, { id: s.signer, kind: s.signer_kind }, r.driver)) {
        met = true;
        break;
      }
    }
    const shown = selector === 'owner' ? r.driver : selector;
    if (!met && !missing.includes(shown)) missing.push(shown);
  }
  return missing;
}

export async function requirementsOf(q: Queryable, orgId: string, r: DecisionRow, resolved: ResolvedRight): Promise<z.output<typeof Requirements>> {
  const signatures = await signaturesOn(q, orgId, r.decision_id, Number(r.version));
  const missing = await missingSigners(q, orgId, r, resolved, signatures);
  const adjustments = await openAdjustments(q, orgId, r.decision_id, Number(r.version));
  const humans = await decidersOf(q, orgId, resolved);
  return {
    right: resolved.matched,
    decider: { decidedBy: resolved.right.decidedBy, escalateTo: resolved.right.escalateTo ?? null, humans: humans === 'any' ? null : humans },
    agree: resolved.right.agree ?? [],
    missingSigners: missing,
    openAdjustments: adjustments,
    ready: isOpen(r) && missing.length === 0 && adjustments === 0,
  };
}

/** Whether agree names the signer: their signature counts toward adoption. */
export const counts = (q: Queryable, orgId: string, r: DecisionRow, resolved: ResolvedRight, who: { id: string; kind: 'human' | 'agent' }) =>
  selectsAny(q, orgId, resolved.right.agree, who, r.driver);

/** A signatory (agree names them) or a decider (decidedBy names them, or they satisfy it: admins) of the decision's area. */
export async function mayBlock(q: Queryable, orgId: string, r: DecisionRow, resolved: ResolvedRight, principal: Principal): Promise<boolean> {
  if (await counts(q, orgId, r, resolved, principal)) return true;
  if (await selects(q, orgId, resolved.right.decidedBy, principal, r.driver)) return true;
  return (await standing(q, orgId, principal, resolved)).satisfies;
}
