import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { onPostgres, testServer, type TestServer } from '../../helpers/harness.js';
import { newOrg } from './kit.js';
import { ok } from '../../helpers/calls.js';

/*
 * Books contacts as the finance role of a party (domain/books/contacts.ts findOrCreateContact): the party of that
 * name or alias holding a books role gives its con_; else the one active organisation of that name takes the role;
 * else a new organisation is made. Never a guess among several.
 */

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>) => ok(s.client, method, params);
const draft = async (payeeName: string) =>
  (await call('books.invoiceDraft', { payeeName, description: 'Work', totalCents: 11_000, dueDays: 14 })).invoice.contact as { id: string; name: string };
const partyOf = async (contactId: string) =>
  one(
    await s.runtime.db.query<{ party_id: string }>('SELECT party_id FROM books_contact_roles WHERE org_id = $1 AND contact_id = $2', [s.org.orgId, contactId]),
  ).party_id;
const getOrg = async (id: string) => (await call('directory.getOrg', { orgId: id })).org;

describe('findOrCreateContact', () => {
  it('a new name makes an organisation co_<the con_ id> with the role; case, spacing and legal forms find it again', async () => {
    const first = await draft('  Harbour   Print Co ');
    expect(first.name).toBe('Harbour Print Co');
    const partyId = await partyOf(first.id);
    expect(partyId).toBe(`co_${first.id.slice(4)}`);
    expect(await getOrg(partyId)).toMatchObject({
      displayName: 'Harbour Print Co',
      origin: 'books',
      roles: [{ family: 'books', role: 'books.customer', refId: first.id }],
    });
    expect((await draft('HARBOUR PRINT CO')).id).toBe(first.id);
    expect((await draft('Harbour Print Co Pty. Ltd.')).id).toBe(first.id);
    // A supplier too: the same con_, both roles.
    await call('books.billCapture', { supplierName: 'harbour print co', reference: 'HP-1', issueDate: '2026-01-05', dueDate: '2026-01-19', totalCents: 5_500 });
    expect((await getOrg(partyId)).roles.map((r: any) => r.role)).toEqual(['books.customer', 'books.supplier']);
  });

  it('a renamed party is found by its old name (an alias), and books shows its new name', async () => {
    const c = await draft('Old Name Traders');
    const partyId = await partyOf(c.id);
    await call('directory.updateOrg', { orgId: partyId, name: 'New Name Traders' });
    const again = await draft('Old Name Traders');
    expect(again).toEqual({ id: c.id, name: 'New Name Traders' });
  });

  it('the one active organisation of that name takes the role; several, or only an archived one, make a new one', async () => {
    const solo = await newOrg(s.client, { name: 'Solo Directory Org' });
    const c = await draft('solo directory org');
    expect(await partyOf(c.id)).toBe(solo.id);
    expect((await getOrg(solo.id)).roles).toEqual([{ family: 'books', role: 'books.customer', refId: c.id }]);

    const twins = [await newOrg(s.client, { name: 'Twin Org' }), await newOrg(s.client, { name: 'Twin Org' })];
    const made = await draft('Twin Org');
    const party = await partyOf(made.id);
    expect(twins.map((t) => t.id)).not.toContain(party);
    // Dedupe offers the twins as the new one's duplicates; nothing is merged.
    const hits = (await call('directory.search', { duplicatesOf: party })).hits.map((h: any) => [h.party.id, h.score]);
    expect(hits.sort()).toEqual(twins.map((t) => [t.id, 80]).sort());
    // From now on that name finds the party with the role.
    expect((await draft('Twin Org')).id).toBe(made.id);

    const gone = await newOrg(s.client, { name: 'Archived Only Org' });
    await call('directory.archiveOrg', { orgId: gone.id });
    expect(await partyOf((await draft('Archived Only Org')).id)).not.toBe(gone.id);
  });

  it("two parties with a books role and one name: a CONFLICT naming them, never a guess; merged, the survivor's contact", async () => {
    const a = await draft('Guess Alpha');
    const b = await draft('Guess Beta');
    const [pa, pb] = [await partyOf(a.id), await partyOf(b.id)];
    await call('directory.updateOrg', { orgId: pb, name: 'Guess Alpha' });
    const refused = await s.client.rpc('books.invoiceDraft', { payeeName: 'Guess Alpha', description: 'Work', totalCents: 11_000, dueDays: 14 });
    expect(refused.body.error).toEqual({
      code: 'CONFLICT',
      message: `payeeName: 2 parties with a books role have this name (${pa}, ${pb}); merge them (directory.proposeMerge) or rename one (directory.updateOrg), then retry`,
    });
    const bill = await s.client.rpc('books.billCapture', {
      supplierName: 'guess alpha',
      reference: 'GA-1',
      issueDate: '2026-01-05',
      dueDate: '2026-01-19',
      totalCents: 5_500,
    });
    expect(bill.body.error.message).toMatch(/^supplierName: 2 parties with a books role have this name/);
    const merge = (await call('directory.proposeMerge', { survivorId: pa, mergedId: pb })).merge;
    await call('directory.executeMerge', { mergeId: merge.id, decision: 'merge' });
    expect((await draft('Guess Alpha')).id).toBe(a.id);
    expect((await draft('Guess Beta')).id).toBe(a.id);
  });

  it.skipIf(!onPostgres)('two invoices to a new payee at once make one party and one contact (PostgreSQL; PGlite runs one call at a time)', async () => {
    const [x, y] = await Promise.all([draft('Race Payee Pty Ltd'), draft('race payee')]);
    expect(x.id).toBe(y.id);
    const parties = await s.runtime.db.query(`SELECT party_id FROM directory_parties WHERE org_id = $1 AND name_fold = dir_fold('Race Payee')`, [s.org.orgId]);
    expect(parties).toHaveLength(1);
  });
});
