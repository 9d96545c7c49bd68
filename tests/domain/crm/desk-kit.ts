import { expect } from 'vitest';
import { mutate } from '../../helpers/calls.js';
import { account, deal, type CrmOrg } from './kit.js';

/* The deal desk's words: an open deal to put terms on, and terms proposed (offered, or held with their approval block). */

export async function openDeal(o: CrmOrg, params: Record<string, unknown> = {}) {
  return deal(o, (await account(o)).id, params);
}

export const terms = (dealId: string, extra: Record<string, unknown> = {}) => ({
  dealId,
  listCents: 10_000_000,
  discountBps: 1000,
  paymentDays: 30,
  termMonths: 12,
  ...extra,
});

/** proposeTerms as `key`: the result and its one crm.terms.propose event. */
export async function propose(o: CrmOrg, dealId: string, extra: Record<string, unknown> = {}, key?: string) {
  return mutate(o.s, 'crm.proposeTerms', terms(dealId, extra), 'crm.terms.propose', { key });
}

/** Terms held beyond policy (25% off, as the agent): the result, with its escalation and approval block. */
export async function heldTerms(o: CrmOrg, dealId: string, extra: Record<string, unknown> = {}) {
  const { result } = await propose(o, dealId, { discountBps: 2500, ...extra }, o.agent.key);
  expect(result.terms.status).toBe('held');
  expect(result.approval).toMatchObject({ actionClass: 'crm.sign_escalation', subject: { kind: 'crm.signature', subjectId: result.escalation.id } });
  return result;
}
