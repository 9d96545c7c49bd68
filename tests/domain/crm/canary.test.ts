import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger) for crm: a canary in every free-text field
 * (account names and domains, contact names, emails and titles, deal names, next steps, lost reasons, search words)
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

    const ledger = await s.ledgerText();
    for (const kind of [
      'crm.account.create',
      'crm.account.update',
      'crm.contact.create',
      'crm.contact.update',
      'crm.deal.create',
      'crm.deal.update',
      'crm.deal.close',
    ]) {
      expect(ledger).toContain(kind);
    }
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(low, { ledger, logs: s.logs() });
  });
});
