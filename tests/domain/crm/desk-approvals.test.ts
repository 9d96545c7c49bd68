import { describe, expect, it } from 'vitest';
import { mutate, ok, read, refused } from '../../helpers/calls.js';
import { crmOrgHooks, type CrmOrg } from './kit.js';
import { heldTerms, openDeal, propose } from './desk-kit.js';

/*
 * An escalation taken back closes the approval filed for its signature, so the human inbox never shows a dead item:
 * new terms replacing held ones, its opener withdrawing it, a revision (a new escalation), the deal deleted: withdrawn;
 * a reviewer sending it back: rejected. A human deciding it afterwards is told it is closed.
 */

let o: CrmOrg;
crmOrgHooks((org) => (o = org));

/** Held terms on a new deal and the approval the agent filed for their signature (pending, in the inbox). */
async function filed() {
  const d = await openDeal(o);
  const h = await heldTerms(o, d.id);
  const { actionClass, payloadHash, subject } = h.approval;
  const { approvalId } = await ok(o.s, 'approval.request', { actionClass, payloadHash, subject }, o.agent.key);
  expect(await pendingIds()).toContain(approvalId);
  return { deal: d, held: h, approvalId: approvalId as string };
}

const pendingIds = async () => (await read(o.s, 'approval.list', { status: 'pending', limit: 100 })).approvals.map((a: any) => a.id ?? a.approvalId);
const approval = (approvalId: string) => read(o.s, 'approval.get', { approvalId });

/** Closed, out of the inbox, and a human deciding it now is told so. */
async function closed(approvalId: string, status: 'withdrawn' | 'rejected') {
  expect(await approval(approvalId)).toMatchObject({ status });
  expect(await pendingIds()).not.toContain(approvalId);
  await refused(o.s, 'approval.resolve', { approvalId, decision: 'approve' }, 'CONFLICT', { message: new RegExp(`already ${status}`) });
}

describe('approvals of escalations taken back', () => {
  it('new terms replacing held ones: the old escalation’s approval is withdrawn', async () => {
    const f = await filed();
    const next = await propose(o, f.deal.id, { discountBps: 3000 }, o.agent.key);
    expect(next.result.withdrawnEscalationId ?? next.event.payload.withdrawnEscalationId).toBe(f.held.escalation.id);
    await closed(f.approvalId, 'withdrawn');
    expect((await approval(f.approvalId)).note).toContain(f.held.escalation.id);
  });

  it('a revision of held terms (a new escalation): the old one’s approval is withdrawn', async () => {
    const f = await filed();
    await mutate(o.s, 'crm.updateHeldTerms', { termsId: f.held.terms.id, discountBps: 2600 }, 'crm.terms.revise', { key: o.agent.key });
    await closed(f.approvalId, 'withdrawn');
  });

  it('its opener withdrawing it: withdrawn; a reviewer sending it back: rejected', async () => {
    const a = await filed();
    await mutate(o.s, 'crm.returnEscalation', { escalationId: a.held.escalation.id }, 'crm.escalation.return', { key: o.agent.key });
    await closed(a.approvalId, 'withdrawn');
    const b = await filed();
    const back = await mutate(o.s, 'crm.returnEscalation', { escalationId: b.held.escalation.id, note: 'Too deep' }, 'crm.escalation.return');
    expect(back.result.escalation.status).toBe('returned');
    await closed(b.approvalId, 'rejected');
  });

  it('the deal deleted: withdrawn', async () => {
    const f = await filed();
    await mutate(o.s, 'crm.deleteDeal', { dealId: f.deal.id }, 'crm.deal.delete');
    await closed(f.approvalId, 'withdrawn');
  });

  it('terms within policy replacing nothing held leave other approvals alone', async () => {
    const f = await filed();
    const other = await openDeal(o);
    await propose(o, other.id, {}, o.agent.key);
    expect(await approval(f.approvalId)).toMatchObject({ status: 'pending' });
  });
});
