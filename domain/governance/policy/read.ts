import { policyReadContracts } from '../../../protocol/reads/policy.js';
import { notFound } from '../../../protocol/errors.js';
import { reads } from '../../core/family.js';
import { readHandler } from '../../core/handler.js';
import { booksPolicyView } from '../../books/index.js';
import { crmPolicy } from '../../crm/index.js';
import { readRights } from '../rights.js';
import { compactsFor } from '../compact/model.js';
import { getMembers } from '../../people/index.js';
import { policyHistory, policyRow, policySummaries, toPolicy } from './model.js';

/*
 * GET /policy: one read of the rules in force. The books part is the books family's own view (unchanged); the
 * decision rights are readable by everyone (governance.status stays admin); policies without bodies; the org's
 * compact and the calling agent's (or agentId's). With key: that policy's body and history.
 */
export const policy = readHandler(policyReadContracts.policy, async (ctx, query) => {
  if (query.agentId !== undefined) {
    const [agent] = await getMembers(ctx.q, ctx.orgId, [query.agentId]);
    if (!agent || agent.kind !== 'agent') throw notFound(`agent ${query.agentId}`);
  }
  const agentId = query.agentId ?? (ctx.principal.kind === 'agent' ? ctx.principal.id : null);
  const { declared, rights } = await readRights(ctx.q, ctx.orgId, 'none');
  const out = {
    books: await booksPolicyView(ctx.q, ctx.orgId, ctx.deps),
    crm: await crmPolicy(ctx.q, ctx.orgId),
    decisionRights: { declared, rights },
    policies: await policySummaries(ctx.q, ctx.orgId),
    compacts: await compactsFor(ctx.q, ctx.orgId, agentId),
  };
  if (query.key === undefined) return out;
  const row = await policyRow(ctx.q, ctx.orgId, query.key);
  if (!row) throw notFound(`policy ${query.key}`);
  return { ...out, policy: { ...toPolicy(row), history: await policyHistory(ctx.q, ctx.orgId, row.policy_id) } };
});

export const policyReads = reads({ policy });
