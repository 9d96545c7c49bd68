import { governance } from '../../protocol/methods/governance.js';
import { METHODS } from '../../protocol/registry.js';
import type { Queryable } from '../../db/types.js';
import { family, type Family } from '../core/family.js';
import { handler } from '../core/handler.js';
import { setDecisionRights } from '../people/index.js';
import { validateRights } from './selectors.js';

/*
 * The governance group: governance.* (decision rights, in this folder: rights.ts, colleagues.ts, selectors.ts),
 * decision, charter, compact, policy, escalation and handoff (a folder each). Decisions amend the charter, the
 * charter says who holds authority, escalations and handoffs climb and move through the rights: one module, which
 * other families reach only through this file.
 */

const GATED = [...METHODS.values()].filter((m) => m.governed).map((m) => m.name);

async function governanceState(q: Queryable, orgId: string) {
  const [row] = await q.query<{ decision_rights: unknown[] | null; decision_rights_at: string | null; decision_rights_by: string | null }>(
    'SELECT decision_rights, decision_rights_at, decision_rights_by FROM orgs WHERE org_id = $1',
    [orgId],
  );
  return {
    declared: row?.decision_rights != null,
    rights: (row?.decision_rights ?? []) as never[],
    declaredAt: row?.decision_rights_at ?? null,
    declaredBy: row?.decision_rights_by ?? null,
    gatedMethods: GATED,
  };
}

export const set_decision_rights = handler(governance.set_decision_rights, async (ctx, p) => {
  // Each selector in its place (BAD_REQUEST `rights[3].decidedBy: …`); ids are checked by form, not membership, so
  // a right may name someone before they join.
  validateRights(p.rights);
  await setDecisionRights(ctx.q, ctx.orgId, p.rights, ctx.principal.id);
  const state = await governanceState(ctx.q, ctx.orgId);
  await ctx.emit('governance.decision_rights.set', ctx.orgId, { areas: p.rights.map((r) => r.area), count: p.rights.length });
  return state;
});

export const status = handler(governance.status, async (ctx) => governanceState(ctx.q, ctx.orgId));

export const governanceHandlers = family('governance', { set_decision_rights, status });

/** The governance family, as domain/deployed.ts lists it. */
export const governanceFamily: Family = { name: 'governance', methods: governanceHandlers };

/** The group's other families, as domain/deployed.ts lists them. */
export { charterFamily } from './charter/index.js';
export { compactFamily } from './compact/index.js';
export { decisionFamily } from './decision/index.js';
export { escalationFamily } from './escalation/index.js';
export { handoffFamily } from './handoff/index.js';
export { policyFamily } from './policy/index.js';
