import { describe, expect, it } from 'vitest';
import { approved, eventsAfter, fileAndApprove, head, held, mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { crmOrg, crmOrgHooks, type CrmOrg } from './kit.js';
import { heldTerms, openDeal, propose, terms } from './desk-kit.js';

/*
 * The deal desk, method by method: proposeTerms (net rounding, each breach, the org's sign-off limits, replacing
 * older terms), updateHeldTerms, holdNextStep, signEscalation (every refusal of a proof), returnEscalation and
 * listEscalations; misuse of each (NOT_FOUND other org or unknown, CONFLICT naming the way forward, BAD_REQUEST
 * naming the field, FORBIDDEN_SCOPE for a reader).
 */

let o: CrmOrg;
crmOrgHooks((org) => (o = org));

describe('crm.proposeTerms', () => {
  it('net is list less the discount, rounded half away from zero; in policy: offered and the deal’s offer', async () => {
    const d = await openDeal(o);
    const { result, event } = await propose(o, d.id, { listCents: 999, discountBps: 1500, rationale: 'Loyalty' });
    expect(result.terms).toMatchObject({ status: 'offered', listCents: 999, discountBps: 1500, netCents: 849, currency: 'AUD', breaches: [] });
    expect(event.payload).toMatchObject({ dealId: d.id, termsId: result.terms.id, status: 'offered', netCents: 849, breaches: [], escalationId: null });
    expect(JSON.stringify(event.payload)).not.toContain('Loyalty');
    // 10 × 85% = 8.5 rounds away from zero to 9; 30 × 85% = 25.5 to 26.
    expect((await propose(o, d.id, { listCents: 10, discountBps: 1500 })).result.terms.netCents).toBe(9);
    expect((await propose(o, d.id, { listCents: 30, discountBps: 1500 })).result.terms.netCents).toBe(26);
    const got = await read(o.s, 'crm.getDeal', { dealId: d.id });
    expect(got.offer).toMatchObject({ listCents: 30, version: 3, status: 'offered' });
  });

  it('each policy breach holds, whoever proposes; a human’s proposal holds too', async () => {
    const d = await openDeal(o);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ discountBps: 1501 }, ['discount']],
      [{ paymentDays: 45 }, ['payment_days']],
      [{ termMonths: 6 }, ['term_months']],
      [{ termMonths: 48, clauses: [{ code: 'msa' }, { code: 'non_standard', text: 'Unlimited liability' }] }, ['term_months', 'clause']],
    ];
    for (const [i, [extra, breaches]] of cases.entries()) {
      o.clock.set(`2026-07-0${i + 2}`); // oldest first is by opening time
      const { result } = await propose(o, d.id, extra);
      expect(result.terms.breaches, JSON.stringify(extra)).toEqual(breaches);
      expect(result.escalation).toMatchObject({ status: 'open', breaches });
      expect(result.approval.subject.subjectId).toBe(result.escalation.id);
    }
    o.clock.set('2026-07-01');
    // Only the latest escalation is open: each proposal withdrew the one before.
    const open = await read(o.s, 'crm.listEscalations', { dealId: d.id });
    expect(open.escalations).toHaveLength(1);
    const all = await read(o.s, 'crm.listEscalations', { dealId: d.id, status: 'all' });
    expect(all.escalations.map((e: any) => e.status)).toEqual(['withdrawn', 'withdrawn', 'withdrawn', 'open']);
    expect(all.escalations[3].terms.clauses).toEqual([
      { code: 'msa', text: null },
      { code: 'non_standard', text: 'Unlimited liability' },
    ]);
  });

  it('the org’s sign-off limit per currency holds a large net (net breach)', async () => {
    await o.s.runtime.db.query(
      `INSERT INTO crm_settings (org_id, max_discount_bps, max_payment_days, min_term_months, max_term_months, sign_off_net_cents, share_max_days, token_max_days, updated_at)
       VALUES ($1, 1500, 30, 12, 36, '{"USD": 5000000}', 90, 30, now())`,
      [o.s.org.orgId],
    );
    try {
      const d = await openDeal(o, { currency: 'USD' });
      expect((await propose(o, d.id, { listCents: 5_000_000, discountBps: 0 })).result.terms.breaches).toEqual([]);
      const big = await propose(o, d.id, { listCents: 5_000_001, discountBps: 0 });
      expect(big.result.terms.breaches).toEqual(['net']);
      expect(big.result.message).toContain('net USD 50,000.01 > USD 50,000.00');
      // AUD has no limit.
      expect((await propose(o, (await openDeal(o)).id, { listCents: 1e12, discountBps: 0 })).result.terms.breaches).toEqual([]);
    } finally {
      await o.s.runtime.db.query('DELETE FROM crm_settings WHERE org_id = $1', [o.s.org.orgId]);
    }
  });

  it('misuse: field errors, unknown or other org’s deal, a closed deal, a reader', async () => {
    const d = await openDeal(o);
    await refused(o.s, 'crm.proposeTerms', terms(d.id, { discountBps: 10001 }), 'BAD_REQUEST', { message: /^discountBps: / });
    await refused(o.s, 'crm.proposeTerms', terms(d.id, { listCents: -1 }), 'BAD_REQUEST', { message: /^listCents: / });
    await refused(o.s, 'crm.proposeTerms', terms(d.id, { colour: 'red' }), 'BAD_REQUEST');
    await refused(o.s, 'crm.proposeTerms', terms(d.id, { clauses: [{ code: 'msa' }, { code: 'non_standard' }] }), 'BAD_REQUEST', {
      message: /^clauses\.1\.text: required/,
    });
    await refused(o.s, 'crm.proposeTerms', terms(d.id, { clauses: [{ code: 'dpa', text: 'x' }] }), 'BAD_REQUEST', { message: /^clauses\.0\.text: / });
    await refused(o.s, 'crm.proposeTerms', terms('deal_nosuch'), 'NOT_FOUND', { message: /deal deal_nosuch/ });
    await refused(o.other, 'crm.proposeTerms', terms(d.id), 'NOT_FOUND');
    await refused(o.s, 'crm.proposeTerms', terms(d.id), 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await refused(o.s, 'crm.proposeTerms', terms(d.id), 'FORBIDDEN_SCOPE', { key: o.noCrm.key });
    await ok(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'lost', lostReason: 'Budget' });
    await refused(o.s, 'crm.proposeTerms', terms(d.id), 'CONFLICT', { message: /is lost; reopen it \(crm\.moveStage\)/ });
  });
});

describe('one current version per deal, under concurrency', () => {
  it('proposals at once on one deal: each its own version, one left current, one escalation open', async () => {
    const d = await openDeal(o);
    const results = await Promise.all(
      [1600, 1700, 1800, 1900, 1000].map((discountBps) => ok(o.s, 'crm.proposeTerms', terms(d.id, { discountBps }), o.agent.key)),
    );
    expect(results.map((r) => r.terms.version).sort()).toEqual([1, 2, 3, 4, 5]);
    const current = await o.s.runtime.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM crm_terms WHERE org_id = $1 AND deal_id = $2 AND status IN ('offered', 'held', 'returned')`,
      [o.s.org.orgId, d.id],
    );
    expect(current[0]?.n).toBe(1);
    expect((await read(o.s, 'crm.listEscalations', { dealId: d.id })).escalations.length).toBeLessThanOrEqual(1);
  });
});

describe('crm.updateHeldTerms', () => {
  it('a revision back into policy is offered and its escalation withdrawn; the old proof no longer applies', async () => {
    const d = await openDeal(o);
    const h = await heldTerms(o, d.id);
    const proof = await approved(o.s, h.approval, o.agent.key, o.owner.key);
    const { result, event } = await mutate(o.s, 'crm.updateHeldTerms', { termsId: h.terms.id, discountBps: 1500 }, 'crm.terms.revise', { key: o.agent.key });
    expect(result).toMatchObject({
      changed: true,
      terms: { status: 'offered', version: 2, discountBps: 1500, netCents: 8_500_000 },
      escalation: null,
      approval: null,
    });
    expect(event.payload).toMatchObject({ fromTermsId: h.terms.id, fields: ['discountBps'], status: 'offered', withdrawnEscalationId: h.escalation.id });
    expect((await read(o.s, 'crm.getDeal', { dealId: d.id })).offer.id).toBe(result.terms.id);
    await refused(o.s, 'crm.signEscalation', { escalationId: h.escalation.id, approvalId: proof }, 'CONFLICT', { message: /withdrawn, not open/ });
    // Offered terms are not revised here.
    await refused(o.s, 'crm.updateHeldTerms', { termsId: result.terms.id, discountBps: 1000 }, 'CONFLICT', { message: /offered, not held or returned/ });
    await refused(o.s, 'crm.updateHeldTerms', { termsId: h.terms.id, discountBps: 1000 }, 'CONFLICT', { message: /superseded/ });
  });

  it('a revision still beyond policy opens a new escalation; a proof filed for the old version: CONFLICT; unchanged: changed:false', async () => {
    const d = await openDeal(o);
    const h = await heldTerms(o, d.id);
    const old = await fileAndApprove(o.s, h.approval, { requester: o.agent.key });
    const { result } = await mutate(o.s, 'crm.updateHeldTerms', { termsId: h.terms.id, discountBps: 2000 }, 'crm.terms.revise', { key: o.agent.key });
    expect(result.terms).toMatchObject({ status: 'held', version: 2, breaches: ['discount'] });
    expect(result.escalation.id).not.toBe(h.escalation.id);
    expect(result.approval.payloadHash).not.toBe(h.approval.payloadHash);
    await refused(o.s, 'crm.signEscalation', { escalationId: result.escalation.id, approvalId: old }, 'CONFLICT', { message: /was filed for subject/ });
    const same = await noop(o.s, 'crm.updateHeldTerms', { termsId: result.terms.id, discountBps: 2000 }, 'crm.terms.revise', o.agent.key);
    expect(same.approval).toEqual(result.approval);
    // A replay of the same key answers the stored frame and appends nothing.
    const idem = `revise-${result.terms.id}`;
    const once = await mutate(o.s, 'crm.updateHeldTerms', { termsId: result.terms.id, discountBps: 2000 }, 'crm.terms.revise', { key: o.agent.key, idem });
    const before = await head(o.s);
    const replay = await o.s.client.rpc('crm.updateHeldTerms', { termsId: result.terms.id, discountBps: 2000 }, { key: o.agent.key, idem });
    expect(replay.body.result).toEqual(once.result);
    expect(await head(o.s)).toBe(before);
    // Sent back, then revised: held again with a new escalation; unchanged after a return: CONFLICT.
    await mutate(o.s, 'crm.returnEscalation', { escalationId: result.escalation.id, note: 'Too deep' }, 'crm.escalation.return');
    await refused(o.s, 'crm.updateHeldTerms', { termsId: result.terms.id, discountBps: 2000 }, 'CONFLICT', { message: /returned by the reviewer; change/ });
    const again = await mutate(o.s, 'crm.updateHeldTerms', { termsId: result.terms.id, discountBps: 1800 }, 'crm.terms.revise', { key: o.agent.key });
    expect(again.result.terms).toMatchObject({ status: 'held', version: 3 });
  });

  it('misuse: unknown and other org’s terms, field errors, a reader', async () => {
    const h = await heldTerms(o, (await openDeal(o)).id);
    await refused(o.s, 'crm.updateHeldTerms', { termsId: 'trm_nosuch', discountBps: 1 }, 'NOT_FOUND', { message: /terms trm_nosuch/ });
    await refused(o.other, 'crm.updateHeldTerms', { termsId: h.terms.id, discountBps: 1 }, 'NOT_FOUND');
    await refused(o.s, 'crm.updateHeldTerms', { termsId: h.terms.id, paymentDays: 366 }, 'BAD_REQUEST', { message: /^paymentDays: / });
    await refused(o.s, 'crm.updateHeldTerms', { termsId: h.terms.id, clauses: [{ code: 'non_standard', text: ' ' }] }, 'BAD_REQUEST', {
      message: /^clauses\.0\.text: /,
    });
    await refused(o.s, 'crm.updateHeldTerms', { termsId: h.terms.id, discountBps: 1 }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.holdNextStep and crm.signEscalation', () => {
  it('an agent stops itself at a step; a human approves; signed; the event carries no title or reason', async () => {
    const d = await openDeal(o);
    const step = { dealId: d.id, kind: 'send_contract', title: 'Send the MSA v3', reason: 'Legal asked for it' };
    const { result, event } = await mutate(o.s, 'crm.holdNextStep', step, 'crm.next_step.hold', { key: o.agent.key });
    expect(result.escalation).toMatchObject({ kind: 'next_step', stepKind: 'send_contract', status: 'open', termsId: null, version: 1 });
    expect(result.approval.subject.summary).toContain('send the contract, "Send the MSA v3"');
    expect(event.payload).toEqual({ dealId: d.id, escalationId: result.escalation.id, stepKind: 'send_contract', payloadHash: result.approval.payloadHash });
    const listed = await read(o.s, 'crm.listEscalations', { kind: 'next_step', dealId: d.id });
    expect(listed.escalations[0]).toMatchObject({
      approvalState: 'not_filed',
      step: { kind: 'send_contract', title: 'Send the MSA v3', reason: 'Legal asked for it' },
    });
    // A human calling it bare holds as well: whoever calls needs a proof.
    await held(o.s, 'crm.signEscalation', { escalationId: result.escalation.id }, { key: o.mia.key, holdKind: 'crm.signature.hold' });
    const approvalId = await approved(o.s, result.approval, o.agent.key, o.owner.key);
    const signed = await mutate(o.s, 'crm.signEscalation', { escalationId: result.escalation.id, approvalId }, 'crm.escalation.sign', { key: o.agent.key });
    expect(signed.result).toMatchObject({ escalation: { status: 'signed', approvalId }, terms: null });
    // Signed: nothing to sign without a proof; nothing to send back.
    await refused(o.s, 'crm.signEscalation', { escalationId: result.escalation.id }, 'CONFLICT', { message: /already signed/ });
    await refused(o.s, 'crm.returnEscalation', { escalationId: result.escalation.id }, 'CONFLICT', { message: /is signed .*crm\.holdNextStep/ });
  });

  it('a rejected or expired proof: GOVERNANCE_NOT_READY; another escalation’s proof: CONFLICT', async () => {
    const d = await openDeal(o);
    const a = await heldTerms(o, d.id);
    const rejected = await fileAndApprove(o.s, a.approval, { requester: o.agent.key, decision: 'reject' });
    await refused(o.s, 'crm.signEscalation', { escalationId: a.escalation.id, approvalId: rejected }, 'GOVERNANCE_NOT_READY', { message: /rejected/ });
    const step = await ok(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'free_pilot', title: 'Pilot', reason: 'They asked' }, o.agent.key);
    const { actionClass, payloadHash, subject } = step.approval;
    const filed = await ok(o.s, 'approval.request', { actionClass, payloadHash, subject }, o.agent.key);
    await o.s.runtime.db.query(`UPDATE approvals SET expires_at = now() - interval '1 minute' WHERE org_id = $1 AND approval_id = $2`, [
      o.s.org.orgId,
      filed.approvalId,
    ]);
    await refused(o.s, 'crm.signEscalation', { escalationId: step.escalation.id, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', {
      message: /expired/,
    });
    const b = await approved(
      o.s,
      (await ok(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'custom', title: 'B', reason: 'b' }, o.agent.key)).approval,
      o.agent.key,
      o.owner.key,
    );
    await refused(o.s, 'crm.signEscalation', { escalationId: step.escalation.id, approvalId: b }, 'CONFLICT', { message: /was filed for subject/ });
  });

  it('misuse: unknown and other org’s escalation, a closed deal, a reader, field errors', async () => {
    const d = await openDeal(o);
    const step = await ok(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'executive_contact', title: 'Call the CFO', reason: 'Stalled' }, o.agent.key);
    await refused(o.s, 'crm.signEscalation', { escalationId: 'desk_nosuch' }, 'NOT_FOUND', { message: /escalation desk_nosuch/ });
    await refused(o.other, 'crm.signEscalation', { escalationId: step.escalation.id }, 'NOT_FOUND');
    await refused(o.other, 'crm.holdNextStep', { dealId: d.id, kind: 'custom', title: 'x', reason: 'y' }, 'NOT_FOUND');
    await refused(o.s, 'crm.signEscalation', { escalationId: step.escalation.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await refused(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'lunch', title: 'x', reason: 'y' }, 'BAD_REQUEST', { message: /^kind: / });
    await refused(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'custom', title: '', reason: 'y' }, 'BAD_REQUEST', { message: /^title: / });
    await refused(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'custom', title: 'x', reason: 'y' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    // The open step keeps the deal from closing; withdrawn, it closes.
    await refused(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'lost', lostReason: 'x' }, 'CONFLICT', { message: /next-step escalation/ });
    await mutate(o.s, 'crm.returnEscalation', { escalationId: step.escalation.id }, 'crm.escalation.return', { key: o.agent.key });
    await ok(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'lost', lostReason: 'x' });
    await refused(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'custom', title: 'x', reason: 'y' }, 'CONFLICT', { message: /reopen it/ });
    await refused(o.s, 'crm.signEscalation', { escalationId: step.escalation.id }, 'CONFLICT', { message: /reopen it/ });
  });
});

describe('crm.returnEscalation', () => {
  it('a reviewer returns (terms returned), the opener withdraws; again: changed:false; the note stays out of the event', async () => {
    const d = await openDeal(o);
    const h = await heldTerms(o, d.id);
    const back = await mutate(o.s, 'crm.returnEscalation', { escalationId: h.escalation.id, note: 'Max 20%' }, 'crm.escalation.return');
    expect(back.result).toMatchObject({ changed: true, escalation: { status: 'returned' } });
    expect(back.event.payload).toEqual({ escalationId: h.escalation.id, dealId: d.id, kind: 'terms', termsId: h.terms.id, status: 'returned' });
    expect((await read(o.s, 'crm.listEscalations', { dealId: d.id, status: 'returned' })).escalations[0]).toMatchObject({
      note: 'Max 20%',
      resolvedBy: o.owner.id,
      terms: { status: 'returned' },
    });
    await noop(o.s, 'crm.returnEscalation', { escalationId: h.escalation.id }, 'crm.escalation.return');
    const step = await ok(o.s, 'crm.holdNextStep', { dealId: d.id, kind: 'custom', title: 'x', reason: 'y' }, o.agent.key);
    const own = await mutate(o.s, 'crm.returnEscalation', { escalationId: step.escalation.id }, 'crm.escalation.return', { key: o.agent.key });
    expect(own.result.escalation.status).toBe('withdrawn');
    await refused(o.s, 'crm.returnEscalation', { escalationId: 'desk_nosuch' }, 'NOT_FOUND');
    await refused(o.other, 'crm.returnEscalation', { escalationId: h.escalation.id }, 'NOT_FOUND');
    await refused(o.s, 'crm.returnEscalation', { escalationId: h.escalation.id, note: 'x'.repeat(2001) }, 'BAD_REQUEST', { message: /^note: / });
    await refused(o.s, 'crm.returnEscalation', { escalationId: h.escalation.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.listEscalations', () => {
  it('oldest first across deals, pages by cursor, filters; a reader reads; another org sees none of them', async () => {
    const x = await crmOrg('2026-03-01');
    try {
      const opened: string[] = [];
      for (const [i, day] of ['2026-03-01', '2026-03-03', '2026-03-02'].entries()) {
        x.clock.set(day);
        const d = await openDeal(x);
        const h = await heldTerms(x, d.id, { discountBps: 2000 + i });
        opened.push(h.escalation.id);
      }
      const first = await read(x.s, 'crm.listEscalations', { limit: 2 }, x.viewer.key);
      expect(first.escalations.map((e: any) => e.id)).toEqual([opened[0], opened[2]]);
      expect(first.escalations[0]).toMatchObject({ breaches: ['discount'], approvalState: 'not_filed', approvalId: null, terms: { discountBps: 2000 } });
      const second = await read(x.s, 'crm.listEscalations', { limit: 2, cursor: first.nextCursor });
      expect(second).toMatchObject({ escalations: [{ id: opened[1] }], nextCursor: null });
      expect((await read(x.s, 'crm.listEscalations', { kind: 'next_step' })).escalations).toEqual([]);
      expect((await read(x.s, 'crm.listEscalations', { status: 'signed' })).escalations).toEqual([]);
      await refused(x.s, 'crm.listEscalations', { cursor: 'nope' }, 'BAD_REQUEST', { message: /^cursor: / });
      await refused(x.s, 'crm.listEscalations', { limit: 501 }, 'BAD_REQUEST', { message: /^limit: / });
      await refused(x.s, 'crm.listEscalations', { dealId: 'deal_nosuch' }, 'NOT_FOUND');
      await refused(x.s, 'crm.listEscalations', {}, 'FORBIDDEN_SCOPE', { key: x.noCrm.key });
      expect((await read(x.other, 'crm.listEscalations', {})).escalations).toEqual([]);
      const before = await head(x.s);
      await read(x.s, 'crm.listEscalations', { status: 'all' });
      expect(await eventsAfter(x.s, before)).toEqual([]);
    } finally {
      await x.s.close();
    }
  });
});
