import type { Queryable } from '../../../db/types.js';
import { OPEN } from './model.js';

/*
 * For handoffs (domain/handoff): who drives a decision, and handing it to someone else. The decision family
 * appends no event for either; the handoff's one event records what moved.
 */

export interface DecisionHolding {
  driver: string;
  area: string;
  status: string;
  /** Proposed or adjustment_requested: closed decisions are not handed off. */
  open: boolean;
}

/** A decision's driver, or undefined when the org has no such decision; FOR UPDATE before transferDecision. */
export async function decisionHolding(q: Queryable, orgId: string, decisionId: string, lock: '' | 'FOR UPDATE' = ''): Promise<DecisionHolding | undefined> {
  const [row] = await q.query<{ driver: string; area: string; status: string }>(
    `SELECT driver, area, status FROM decisions WHERE org_id = $1 AND decision_id = $2 ${lock}`,
    [orgId, decisionId],
  );
  return row ? { ...row, open: OPEN.has(row.status) } : undefined;
}

/** `to` drives the decision from now on: it alone proposes its next versions. Call with the decision locked. */
export async function transferDecision(q: Queryable, orgId: string, decisionId: string, to: string): Promise<{ previousDriver: string }> {
  const before = await decisionHolding(q, orgId, decisionId, 'FOR UPDATE');
  if (!before) throw new Error(`transferDecision: no decision ${decisionId}`);
  await q.query('UPDATE decisions SET driver = $3, updated_at = now() WHERE org_id = $1 AND decision_id = $2', [orgId, decisionId, to]);
  return { previousDriver: before.driver };
}
