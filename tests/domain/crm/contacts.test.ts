import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { err, mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { account, contact, crmOrg, deal, uniq, type CrmOrg } from './kit.js';

/* crm.createContact, updateContact, deleteContact, linkContact, listContacts: contacts are roles of directory persons. */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg();
});
afterAll(() => o.s.close());

describe('crm.createContact', () => {
  it('the same email twice is one contact (scenario 1); a directory person by id; the person shows the role', async () => {
    const u = uniq();
    const { result, event } = await mutate(o.s, 'crm.createContact', { name: `Jane ${u}`, email: `Jane.${u}@Buyer.example` }, 'crm.contact.create');
    expect(result).toMatchObject({ created: true, personCreated: true, contact: { name: `Jane ${u}`, email: `Jane.${u}@Buyer.example`, status: 'active' } });
    expect(event.payload).toEqual({ contactId: result.contact.id, personId: result.contact.personId, accountId: null, created: true, personCreated: true });
    const again = await noop(o.s, 'crm.createContact', { name: 'Someone else', email: `jane.${u}@buyer.example` }, 'crm.contact.create');
    expect(again).toMatchObject({ created: false, personCreated: false, contact: { id: result.contact.id } });
    expect((await ok(o.s, 'directory.getPerson', { personId: result.contact.personId })).person.roles).toEqual([
      { family: 'crm', role: 'crm.contact', refId: result.contact.id },
    ]);
    const person = (await ok(o.s, 'directory.createPerson', { given: 'Bob', family: u })).person;
    const a = await account(o);
    const bob = await contact(o, { personId: person.id, name: undefined, email: undefined, accountId: a.id, title: 'CFO' });
    expect(bob).toMatchObject({ personId: person.id, accountId: a.id, title: 'CFO', name: `Bob ${u}`, email: null });
  });

  it('refuses what it cannot do, writing nothing', async () => {
    await refused(o.s, 'crm.createContact', { name: 'No email' }, 'BAD_REQUEST', { message: 'email: required unless personId is given' });
    await refused(o.s, 'crm.createContact', { name: 'Bad', email: 'not-an-email' }, 'BAD_REQUEST', { message: /^email: / });
    await refused(o.s, 'crm.createContact', { personId: 'per_nosuch' }, 'NOT_FOUND', { message: 'person per_nosuch not found' });
    const org = (await ok(o.s, 'directory.createOrg', { name: `Org ${uniq()}` })).org;
    await refused(o.s, 'crm.createContact', { personId: org.id.replace('co_', 'per_') }, 'NOT_FOUND');
    await refused(o.s, 'crm.createContact', { name: 'x', email: `x${uniq()}@b.example`, accountId: 'acct_nosuch' }, 'NOT_FOUND', {
      message: 'account acct_nosuch not found',
    });
    await refused(o.s, 'crm.createContact', { name: 'x', email: `x${uniq()}@b.example` }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.updateContact and deleteContact', () => {
  it('name and email write through to the person; title and account here; version; noop', async () => {
    const c = await contact(o);
    const a = await account(o);
    const u = uniq();
    const { result, event } = await mutate(
      o.s,
      'crm.updateContact',
      { contactId: c.id, name: `Janet ${u}`, email: `janet.${u}@buyer.example`, title: 'VP', accountId: a.id, expectedVersion: 1 },
      'crm.contact.update',
    );
    expect(result.contact).toMatchObject({ name: `Janet ${u}`, email: `janet.${u}@buyer.example`, title: 'VP', accountId: a.id, version: 2 });
    expect(event.payload).toEqual({ contactId: c.id, fields: ['title', 'accountId', 'name', 'email'], accountId: a.id, version: 2 });
    await noop(o.s, 'crm.updateContact', { contactId: c.id, title: 'VP' }, 'crm.contact.update');
    await refused(o.s, 'crm.updateContact', { contactId: c.id, title: 'x', expectedVersion: 1 }, 'CONFLICT', { message: /is at version 2, not 1/ });
    expect((await err(o.other, 'crm.updateContact', { contactId: c.id, title: 'x' })).code).toBe('NOT_FOUND');
  });

  it('delete: a tombstone, roles removed, the person stays; again a noop; then no writes', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const c = await contact(o, { accountId: a.id });
    await mutate(o.s, 'crm.linkContact', { dealId: d.id, contactId: c.id, role: 'champion' }, 'crm.contact.link');
    const { result } = await mutate(o.s, 'crm.deleteContact', { contactId: c.id }, 'crm.contact.delete');
    expect(result).toMatchObject({ changed: true, rolesRemoved: 1, contact: { status: 'deleted', roles: [] } });
    expect((await ok(o.s, 'directory.getPerson', { personId: c.personId })).person.status).toBe('active');
    await noop(o.s, 'crm.deleteContact', { contactId: c.id }, 'crm.contact.delete');
    await refused(o.s, 'crm.updateContact', { contactId: c.id, title: 'x' }, 'CONFLICT', { message: /is deleted; create a new contact/ });
    // A new contact for the same person is a new record.
    const again = await mutate(o.s, 'crm.createContact', { personId: c.personId }, 'crm.contact.create');
    expect(again.result.created).toBe(true);
    expect(again.result.contact.id).not.toBe(c.id);
  });
});

describe('crm.linkContact and listContacts', () => {
  it('roles on a deal: add, again a noop, remove; closed deals refuse; lists by deal, account and words', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const u = uniq();
    const c1 = await contact(o, { accountId: a.id, name: `Quixotic ${u}` });
    const c2 = await contact(o, { accountId: a.id });
    const { result } = await mutate(o.s, 'crm.linkContact', { dealId: d.id, contactId: c1.id, role: 'economic_buyer' }, 'crm.contact.link');
    expect(result.roles).toEqual([{ contactId: c1.id, role: 'economic_buyer' }]);
    await noop(o.s, 'crm.linkContact', { dealId: d.id, contactId: c1.id, role: 'economic_buyer' }, 'crm.contact.link');
    await mutate(o.s, 'crm.linkContact', { dealId: d.id, contactId: c2.id, role: 'user' }, 'crm.contact.link');
    await refused(o.s, 'crm.linkContact', { dealId: d.id, contactId: c1.id, role: 'boss' }, 'BAD_REQUEST', { message: /^role: / });
    const byDeal = await read(o.s, 'crm.listContacts', { dealId: d.id });
    expect(byDeal.contacts.map((c: any) => c.id).sort()).toEqual([c1.id, c2.id].sort());
    expect(byDeal.contacts.find((c: any) => c.id === c1.id).roles).toEqual([{ dealId: d.id, role: 'economic_buyer' }]);
    // One business instant (the clock stands still): newest first, then id descending.
    expect((await read(o.s, 'crm.listContacts', { accountId: a.id, limit: 1 })).contacts.map((c: any) => c.id)).toEqual([[c1.id, c2.id].sort().reverse()[0]]);
    expect((await read(o.s, 'crm.listContacts', { q: 'quixotic' })).contacts.map((c: any) => c.id)).toEqual([c1.id]);
    expect(
      (await mutate(o.s, 'crm.linkContact', { dealId: d.id, contactId: c2.id, role: 'user', remove: true }, 'crm.contact.link')).result.roles,
    ).toHaveLength(1);
    await mutate(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'won' }, 'crm.deal.close');
    await refused(o.s, 'crm.linkContact', { dealId: d.id, contactId: c2.id, role: 'user' }, 'CONFLICT', {
      message: `deal ${d.id} is won; reopen it (crm.moveStage) before changing its roles`,
    });
    await refused(o.s, 'crm.listContacts', { dealId: 'deal_nosuch' }, 'NOT_FOUND');
  });
});
