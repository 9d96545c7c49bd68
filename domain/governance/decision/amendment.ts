import type { z } from 'zod';
import type { Amendment } from '../../../protocol/methods/decision.js';
import type { Queryable } from '../../../db/types.js';
import { contentOf, getDecision, ref } from './model.js';

/*
 * What the charter family reads and writes of a decision (charter.amend applies an adopted decision's amendment as
 * one charter version): the decision family's own exported functions, so charter never touches these tables.
 */

export interface AdoptedAmendment {
  decisionId: string;
  /** `D-12 (dec_…)`, for messages. */
  ref: string;
  status: 'proposed' | 'adjustment_requested' | 'adopted' | 'superseded' | 'reversed' | 'withdrawn';
  /** The version adopted (null until adopted); the amendment is that version's (a decision's content is frozen once adopted). */
  adoptedVersion: number | null;
  amendment: z.output<typeof Amendment> | null;
  /** The charter version it was applied as, once applied (charter.amend again: changed:false). */
  appliedCharterVersion: number | null;
}

/** A decision's amendment, locked FOR UPDATE in the caller's transaction (NOT_FOUND for another org's id). */
export async function amendmentOf(q: Queryable, orgId: string, decisionId: string): Promise<AdoptedAmendment> {
  const row = await getDecision(q, orgId, decisionId, 'FOR UPDATE');
  return {
    decisionId: row.decision_id,
    ref: ref(row),
    status: row.status,
    adoptedVersion: row.adopted_version === null ? null : Number(row.adopted_version),
    amendment: contentOf(row).amendment,
    appliedCharterVersion: row.amendment_applied_version === null ? null : Number(row.amendment_applied_version),
  };
}

/** Record that charter.amend applied the amendment as `charterVersion` (in charter.amend's transaction). */
export async function markAmendmentApplied(q: Queryable, orgId: string, decisionId: string, charterVersion: number): Promise<void> {
  await q.query(
    `UPDATE decisions SET amendment_applied_version = $3, amendment_applied_at = now(), updated_at = now()
      WHERE org_id = $1 AND decision_id = $2 AND amendment_applied_version IS NULL`,
    [orgId, decisionId, charterVersion],
  );
}
