import { describe, expect, it } from 'vitest';
import { eventsAfter, head, held, mutate, ok, read, refused } from '../../helpers/calls.js';
import { account, crmOrgHooks, deal, uniq, type CrmOrg } from './kit.js';
import { propose } from './desk-kit.js';

/*
 * Acceptance scenario 1 of the CRM design, whole: a contact made twice by one email is one;
 * terms at 10% are offered; at 25% they are held with an approval block; closeDeal waits (CONFLICT); the agent files
 * approval.request; a bare signEscalation answers the hold frame; a human approves; the retry offers the terms; the
 * proof used again is refused.
 */

let o: CrmOrg;
crmOrgHooks((org) => (o = org));

describe('scenario 1: the deal desk', () => {
  it('one contact per email; 10% offered; 25% held; close waits; filed, held, approved, signed; the proof reused is refused', async () => {
    const email = `buyer.${uniq()}@acme.example`;
    const first = await mutate(o.s, 'crm.createContact', { name: 'Bea Buyer', email }, 'crm.contact.create', { key: o.agent.key });
    const again = await mutate(o.s, 'crm.createContact', { name: 'Bea Buyer', email }, 'crm.contact.create', { key: o.agent.key });
    expect(first.result.created).toBe(true);
    expect(again.result).toMatchObject({ created: false, contact: { id: first.result.contact.id } });

    const a = await account(o);
    const d = await deal(o, a.id, { amountCents: 10_000_000 });
    await ok(o.s, 'crm.linkContact', { dealId: d.id, contactId: first.result.contact.id, role: 'economic_buyer' }, o.agent.key);

    // 10%: in policy, offered at once, the deal's offer.
    const ten = await propose(o, d.id, { discountBps: 1000 }, o.agent.key);
    expect(ten.result).toMatchObject({ terms: { status: 'offered', version: 1, netCents: 9_000_000, breaches: [] }, escalation: null, approval: null });
    expect((await read(o.s, 'crm.getDeal', { dealId: d.id })).offer).toMatchObject({ id: ten.result.terms.id, status: 'offered' });

    // 25%: beyond the 15% policy: held, an escalation opened, the approval block and a message to relay.
    const quarter = await propose(o, d.id, { discountBps: 2500, rationale: 'Multi-year commitment' }, o.agent.key);
    const { terms, escalation, approval, message } = quarter.result;
    expect(terms).toMatchObject({ status: 'held', version: 2, netCents: 7_500_000, breaches: ['discount'], escalationId: escalation.id });
    expect(escalation).toMatchObject({ kind: 'terms', status: 'open', termsId: terms.id, version: 2, breaches: ['discount'] });
    expect(approval).toMatchObject({ actionClass: 'crm.sign_escalation', completion: 'retry', subject: { kind: 'crm.signature', subjectId: escalation.id } });
    expect(approval.subject.summary).toContain('AUD 75,000.00 net');
    expect(message).toContain(approval.payloadHash);
    expect(message).toContain('crm.signEscalation');
    expect(quarter.event.payload).toMatchObject({
      status: 'held',
      breaches: ['discount'],
      escalationId: escalation.id,
      supersededTermsId: ten.result.terms.id,
    });
    const got = await read(o.s, 'crm.getDeal', { dealId: d.id });
    expect(got.offer).toBeNull();
    expect(got.escalation).toMatchObject({ id: escalation.id, status: 'open' });

    // closeDeal waits for the escalation, naming the way forward.
    await refused(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'won' }, 'CONFLICT', { message: /open terms escalation .*crm\.signEscalation/ });

    // The agent files what the block names; a bare signEscalation answers the same hold frame.
    const filed = await ok(
      o.s,
      'approval.request',
      { actionClass: approval.actionClass, payloadHash: approval.payloadHash, subject: approval.subject },
      o.agent.key,
    );
    expect(filed).toMatchObject({ status: 'pending', heldAct: { method: 'crm.signEscalation' } });
    const queued = await read(o.s, 'crm.listEscalations', { dealId: d.id });
    expect(queued.escalations).toEqual([expect.objectContaining({ id: escalation.id, approvalState: 'pending', approvalId: filed.approvalId })]);
    const bare = await held(o.s, 'crm.signEscalation', { escalationId: escalation.id }, { key: o.agent.key, holdKind: 'crm.signature.hold' });
    expect(bare).toEqual(approval);
    await refused(o.s, 'crm.signEscalation', { escalationId: escalation.id, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      key: o.agent.key,
      message: /still pending/,
    });

    // A human approves (never the requester); the retry with the proof offers the terms.
    await ok(o.s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' });
    const before = await head(o.s);
    const signed = await mutate(o.s, 'crm.signEscalation', { escalationId: escalation.id, approvalId: filed.approvalId }, 'crm.escalation.sign', {
      key: o.agent.key,
    });
    expect(signed.result).toMatchObject({ escalation: { status: 'signed', approvalId: filed.approvalId }, terms: { id: terms.id, status: 'offered' } });
    expect(signed.event.payload).toMatchObject({ escalationId: escalation.id, approvalId: filed.approvalId, version: 2, netCents: 7_500_000 });
    expect((await eventsAfter(o.s, before)).length).toBe(1);
    const after = await read(o.s, 'crm.getDeal', { dealId: d.id });
    expect(after.offer).toMatchObject({ id: terms.id, status: 'offered', netCents: 7_500_000 });
    expect(after.escalation).toBeNull();
    expect((await read(o.s, 'crm.listEscalations', { dealId: d.id, status: 'all' })).escalations[0]).toMatchObject({ status: 'signed', approvalState: 'used' });

    // The proof is single-use.
    await refused(o.s, 'crm.signEscalation', { escalationId: escalation.id, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      key: o.agent.key,
      message: /already used/,
    });

    // Now the deal closes won at the signed net.
    const won = await mutate(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'won' }, 'crm.deal.close');
    expect(won.result.deal.amountCents).toBe(7_500_000);
  });
});
