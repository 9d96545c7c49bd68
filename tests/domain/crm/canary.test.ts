import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger) for crm: a canary in every free-text field
 * (account names and domains, contact names, emails and titles, deal names, next steps, lost reasons, search words; the
 * desk's rationales, clauses, step titles and reasons, return notes)
 * shows in no event and no log line; the caller gets its words back.
 */

const CANARY = 'Numbat-Canary-4417';
const low = CANARY.toLowerCase();
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('crm redaction canary', () => {
  it('no name, domain, email, title, next step, reason or query in any event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const account = (await call('crm.createAccount', { name: `Acct ${CANARY}`, domain: `${low}.example.com` })).account;
    expect(account.name).toBe(`Acct ${CANARY}`);
    await call('crm.updateAccount', { accountId: account.id, name: `Renamed ${CANARY}`, domain: `www.${low}-two.example.com` });
    const contact = (
      await call('crm.createContact', { name: `Person ${CANARY}`, email: `${low}@buyer.example`, title: `Title ${CANARY}`, accountId: account.id })
    ).contact;
    await call('crm.updateContact', { contactId: contact.id, name: `Other ${CANARY}`, email: `x.${low}@buyer.example`, title: `New ${CANARY}` });
    const deal = (
      await call('crm.createDeal', {
        name: `Deal ${CANARY}`,
        accountId: account.id,
        amountCents: 100,
        currency: 'AUD',
        closeDate: '2027-01-01',
        nextStep: `Step ${CANARY}`,
      })
    ).deal;
    await call('crm.updateDeal', { dealId: deal.id, name: `Deal2 ${CANARY}`, nextStep: `Next ${CANARY}` });
    await call('crm.linkContact', { dealId: deal.id, contactId: contact.id, role: 'champion' });
    expect(JSON.stringify(await call('crm.listAccounts', { q: CANARY }))).toContain(CANARY);
    expect(JSON.stringify(await call('crm.listContacts', { q: CANARY }))).toContain(CANARY);
    expect(JSON.stringify(await call('crm.listDeals', { q: CANARY }))).toContain(CANARY);
    await call('crm.closeDeal', { dealId: deal.id, outcome: 'lost', lostReason: `Reason ${CANARY}` });
    expect(JSON.stringify(await call('crm.getDeal', { dealId: deal.id }))).toContain(CANARY);
    await call('crm.deleteContact', { contactId: contact.id });
    // The deal desk: a rationale, a non-standard clause, a step's title and reason, a return note.
    const desk = (await call('crm.createDeal', { name: 'Desk deal', accountId: account.id, amountCents: 100, currency: 'AUD', closeDate: '2027-01-01' })).deal;
    const clause = { code: 'non_standard', text: `Clause ${CANARY}` };
    const heldTerms = await call('crm.proposeTerms', {
      dealId: desk.id,
      listCents: 100_000,
      discountBps: 500,
      paymentDays: 30,
      termMonths: 12,
      clauses: [clause],
      rationale: `Why ${CANARY}`,
    });
    expect(heldTerms.terms.clauses).toEqual([{ code: 'non_standard', text: `Clause ${CANARY}` }]);
    await call('crm.updateHeldTerms', { termsId: heldTerms.terms.id, clauses: [clause, { code: 'msa' }], rationale: `Because ${CANARY}` });
    const step = await call('crm.holdNextStep', { dealId: desk.id, kind: 'custom', title: `Step ${CANARY}`, reason: `Reason ${CANARY}` });
    await call('crm.returnEscalation', { escalationId: step.escalation.id, note: `Note ${CANARY}` });
    await call('crm.signEscalation', { escalationId: (await call('crm.listEscalations', { dealId: desk.id })).escalations[0].id });
    expect(JSON.stringify(await call('crm.listEscalations', { dealId: desk.id, status: 'all' }))).toContain(`Note ${CANARY}`);

    const ledger = await s.ledgerText();
    for (const kind of [
      'crm.account.create',
      'crm.account.update',
      'crm.contact.create',
      'crm.contact.update',
      'crm.deal.create',
      'crm.deal.update',
      'crm.deal.close',
      'crm.terms.propose',
      'crm.terms.revise',
      'crm.next_step.hold',
      'crm.escalation.return',
      'crm.signature.hold',
    ]) {
      expect(ledger).toContain(kind);
    }
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(low, { ledger, logs: s.logs() });
  });
  it('the timeline: no summary, decision, rationale or question in any event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const account = (await call('crm.createAccount', { name: 'Timeline account' })).account;
    const deal = (await call('crm.createDeal', { name: 'Timeline deal', accountId: account.id, amountCents: 100, currency: 'AUD', closeDate: '2027-01-01' }))
      .deal;
    const logged = await call('crm.logInteraction', { kind: 'note', summary: `Summary ${CANARY}`, dealId: deal.id });
    expect(JSON.stringify(logged)).not.toContain(CANARY);
    await call('crm.logDealDecision', { dealId: deal.id, decision: `Decision ${CANARY}`, rationale: `Rationale ${CANARY}` });
    await call('crm.pinNote', { interactionId: logged.interaction.id });
    expect(JSON.stringify(await call('crm.listInteractions', { dealId: deal.id }))).toContain(`Decision ${CANARY}`);
    expect(JSON.stringify(await call('crm.ask', { question: `What happened on ${deal.id}? ${CANARY}` }))).toContain(`Summary ${CANARY}`);
    await call('crm.redactInteraction', { interactionId: logged.interaction.id, reason: 'personal_data' });
    const ledger = await s.ledgerText();
    for (const kind of ['crm.interaction.log', 'crm.decision.log', 'crm.interaction.pin', 'crm.interaction.redact']) expect(ledger).toContain(kind);
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(low, { ledger, logs: s.logs() });
  });
  it('playbooks: no name, rule text, title, reason or task title in any event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const account = (await call('crm.createAccount', { name: 'Playbook account' })).account;
    const deal = (await call('crm.createDeal', { name: 'Playbook deal', accountId: account.id, amountCents: 100, currency: 'AUD', closeDate: '2027-01-01' }))
      .deal;
    const always = { '==': [1, 1] };
    const definition = {
      name: `Playbook ${CANARY}`,
      rules: [
        { id: 'a', when: always, then: { action: 'suggest', text: `Suggest ${CANARY}` } },
        { id: 'b', when: always, then: { action: 'task', title: `Task ${CANARY}` } },
        { id: 'c', when: always, then: { action: 'holdNextStep', kind: 'custom', title: `Step ${CANARY}`, reason: `Reason ${CANARY}` } },
        { id: 'd', when: always, then: { action: 'flagRisk', flag: 'pricing', text: `Risk ${CANARY}` } },
      ],
    };
    expect(JSON.stringify(await call('crm.compilePlaybook', { definition, dealId: deal.id }))).toContain(CANARY);
    const saved = (await call('crm.savePlaybook', { definition })).playbook;
    await call('crm.savePlaybook', { definition: { ...definition, name: `Renamed ${CANARY}` }, playbookId: saved.id });
    await call('crm.togglePlaybook', { playbookId: saved.id, enabled: true });
    const run = await call('crm.runNextBestAction', { dealId: deal.id });
    expect(JSON.stringify(run)).toContain(`Task ${CANARY}`);
    const rec = run.recommendations.find((r: { ruleId: string }) => r.ruleId === 'b');
    await call('crm.taskFollowThrough', { dealId: deal.id, recommendationId: rec.id });
    await call('crm.taskFollowThrough', { dealId: deal.id, title: `Own ${CANARY}` });
    expect(JSON.stringify(await call('crm.listPlaybooks', {}))).toContain(CANARY);
    await call('crm.deletePlaybook', { playbookId: saved.id });
    const ledger = await s.ledgerText();
    for (const kind of ['crm.playbook.save', 'crm.playbook.toggle', 'crm.playbook.delete', 'crm.nba.run', 'crm.task.create']) expect(ledger).toContain(kind);
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(low, { ledger, logs: s.logs() });
  });
  it('deal rooms: no guest email or name, token or link in any event, log line or stored idempotency frame', async () => {
    const call = async (method: string, params: object, idem?: string) => {
      const res = await s.client.rpc(method, params, { idem });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const account = (await call('crm.createAccount', { name: 'Room account' })).account;
    const deal = (await call('crm.createDeal', { name: 'Room deal', accountId: account.id, amountCents: 100, currency: 'AUD', closeDate: '2027-01-01' })).deal;
    const room = (await call('crm.shareDeal', { dealId: deal.id, show: { offer: true } })).room;
    const minted = await call(
      'crm.mintGuestToken',
      { shareId: room.id, email: `guest.${low}@buyer.example`, name: `Guest ${CANARY}` },
      `room-canary-${room.id}`,
    );
    const secret = minted.token.split('.')[1];
    expect(minted.url).toContain(secret);
    // mintGuestToken is M (not I): no frame is stored to replay; its contract's secrets would keep one sealed.
    for (const url of ['/room/api/view', `/room/${minted.token}`, `/room?t=${minted.token}`]) {
      await s.app.inject({ method: 'GET', url, headers: { authorization: `Guest ${minted.token}` } });
    }
    const view = await s.app.inject({ method: 'GET', url: '/room/api/view', headers: { authorization: `Guest ${minted.token}` } });
    expect(view.body).toContain(`Guest ${CANARY}`);
    await call('crm.revokeDealShare', { shareId: room.id });
    const ledger = await s.ledgerText();
    for (const kind of ['crm.share.create', 'crm.guest_token.mint', 'crm.share.revoke']) expect(ledger).toContain(kind);
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(low, { ledger, logs: s.logs() });
    expectNoCanary(secret, { ledger, logs: s.logs(), idempotency: await s.idempotencyText() });
  });
});
