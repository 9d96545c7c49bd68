import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { err, mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { account, crmOrg, deal, uniq, type CrmOrg } from './kit.js';

/* crm.createAccount, updateAccount, archiveAccount, listAccounts: accounts are roles of directory organisations. */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg();
});
afterAll(() => o.s.close());

describe('crm.createAccount', () => {
  it('makes the directory organisation once; the same domain again is the same account (created:false, noop event)', async () => {
    const u = uniq();
    const { result, event } = await mutate(o.s, 'crm.createAccount', { name: `Acme ${u}`, domain: `https://www.acme-${u}.com.au/about` }, 'crm.account.create');
    expect(result).toMatchObject({
      created: true,
      partyCreated: true,
      account: { name: `Acme ${u}`, domain: `acme-${u}.com.au`, ownerId: o.owner.id, status: 'active' },
    });
    expect(event.payload).toEqual({ accountId: result.account.id, partyId: result.account.partyId, ownerId: o.owner.id, created: true, partyCreated: true });
    const org = (await ok(o.s, 'directory.getOrg', { orgId: result.account.partyId })).org;
    expect(org.roles).toEqual([{ family: 'crm', role: 'crm.account', refId: result.account.id }]);
    const again = await noop(o.s, 'crm.createAccount', { name: 'Another name', domain: `acme-${u}.com.au` }, 'crm.account.create');
    expect(again.account.id).toBe(result.account.id);
  });

  it('finds an existing directory organisation by name; other owners must be members', async () => {
    const u = uniq();
    const org = (await ok(o.s, 'directory.createOrg', { name: `Globex ${u}` })).org;
    const a = await account(o, `Globex ${u}`, { ownerId: o.mia.id });
    expect(a).toMatchObject({ partyId: org.id, ownerId: o.mia.id });
    await refused(o.s, 'crm.createAccount', { name: `X ${u}`, ownerId: 'usr_nosuchmember0000' }, 'BAD_REQUEST', {
      message: 'ownerId: no member usr_nosuchmember0000 in this org',
    });
    await refused(o.s, 'crm.createAccount', { name: `X ${u}`, domain: 'not a domain' }, 'BAD_REQUEST', { message: /^domain: / });
    await refused(o.s, 'crm.createAccount', { name: `X ${u}`, extra: 1 }, 'BAD_REQUEST', { message: /extra/ });
    await refused(o.s, 'crm.createAccount', { name: `X ${u}` }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.updateAccount and archiveAccount', () => {
  it('renames through the directory, hands over, checks the version; nothing new is a noop', async () => {
    const a = await account(o);
    const u = uniq();
    const { result, event } = await mutate(
      o.s,
      'crm.updateAccount',
      { accountId: a.id, name: `Renamed ${u}`, ownerId: o.max.id, expectedVersion: 1 },
      'crm.account.update',
    );
    expect(result.account).toMatchObject({ name: `Renamed ${u}`, ownerId: o.max.id, version: 2 });
    expect(event.payload).toEqual({ accountId: a.id, fields: ['name', 'ownerId'], ownerId: o.max.id, version: 2 });
    expect((await ok(o.s, 'directory.getOrg', { orgId: a.partyId })).org.displayName).toBe(`Renamed ${u}`);
    await noop(o.s, 'crm.updateAccount', { accountId: a.id, ownerId: o.max.id }, 'crm.account.update');
    await refused(o.s, 'crm.updateAccount', { accountId: a.id, ownerId: o.mia.id, expectedVersion: 1 }, 'CONFLICT', {
      message: `account ${a.id} is at version 2, not 1: read it again (crm.listAccounts) and retry with expectedVersion 2`,
    });
    await refused(o.s, 'crm.updateAccount', { accountId: 'acct_nosuch', name: 'x' }, 'NOT_FOUND', { message: 'account acct_nosuch not found' });
    expect((await err(o.other, 'crm.updateAccount', { accountId: a.id, name: 'x' })).code).toBe('NOT_FOUND');
  });

  it('open deals block archiving; closed ones do not; again is a noop; restore', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    await refused(o.s, 'crm.archiveAccount', { accountId: a.id }, 'CONFLICT', {
      message: `account ${a.id} has 1 open deal (${d.id}); close them (crm.closeDeal) or delete them (crm.deleteDeal) first`,
    });
    await mutate(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'lost', lostReason: 'budget' }, 'crm.deal.close');
    const { result } = await mutate(o.s, 'crm.archiveAccount', { accountId: a.id }, 'crm.account.archive');
    expect(result.account.status).toBe('archived');
    await noop(o.s, 'crm.archiveAccount', { accountId: a.id }, 'crm.account.archive');
    await refused(o.s, 'crm.createDeal', { name: 'x', accountId: a.id, amountCents: 1, currency: 'AUD', closeDate: '2026-10-01' }, 'CONFLICT', {
      message: `accountId: account ${a.id} is archived; restore it (crm.archiveAccount with archived: false) first`,
    });
    expect((await mutate(o.s, 'crm.archiveAccount', { accountId: a.id, archived: false }, 'crm.account.archive')).result.account.status).toBe('active');
  });
});

describe('crm.listAccounts', () => {
  it('newest first by owner and status with a cursor; q by words and typos of the name', async () => {
    const u = uniq();
    const mine = [await account(o, `Pagination ${u} one`, { ownerId: o.viewer.id }), await account(o, `Pagination ${u} two`, { ownerId: o.viewer.id })];
    // The business clock stands still here: one instant, so the id breaks the tie (newest first, then id descending).
    const order = mine
      .map((a) => a.id)
      .sort()
      .reverse();
    const first = await read(o.s, 'crm.listAccounts', { ownerId: o.viewer.id, limit: 1 });
    expect(first.accounts.map((a: any) => a.id)).toEqual([order[0]]);
    const second = await read(o.s, 'crm.listAccounts', { ownerId: o.viewer.id, limit: 1, cursor: first.nextCursor });
    expect(second.accounts.map((a: any) => a.id)).toEqual([order[1]]);
    expect(second.nextCursor).toBeNull();
    const zebra = await account(o, `Zebrafish Logistics ${u}`);
    expect((await read(o.s, 'crm.listAccounts', { q: 'zebrafish' })).accounts.map((a: any) => a.id)).toEqual([zebra.id]);
    expect((await read(o.s, 'crm.listAccounts', { q: 'zebrafsh' })).accounts.map((a: any) => a.id)).toEqual([zebra.id]);
    // A directory organisation without an account is not listed.
    await ok(o.s, 'directory.createOrg', { name: `Zebrafish Holdings ${u}` });
    expect((await read(o.s, 'crm.listAccounts', { q: 'zebrafish' })).accounts.map((a: any) => a.id)).toEqual([zebra.id]);
    await refused(o.s, 'crm.listAccounts', { cursor: 'nonsense' }, 'BAD_REQUEST', { message: 'cursor: not a cursor this list returned' });
    await refused(o.s, 'crm.listAccounts', { limit: 501 }, 'BAD_REQUEST', { message: 'limit: must be at most 500' });
    await refused(o.s, 'crm.listAccounts', {}, 'FORBIDDEN_SCOPE', { key: o.noCrm.key });
  });
});
