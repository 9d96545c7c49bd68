import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { touchAwareness } from '../../../domain/directory/index.js';
import { newId } from '../../../domain/core/ids.js';
import type { Family } from '../../../domain/core/family.js';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { err, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newOrg, newPerson } from './kit.js';

/** directory.listPeople, listOrgs and search, including scenario 4 (run on PGlite and on PostgreSQL). */

let s: TestServer;
let other: TestClient;
let me: string;
let colleague: { id: string; key: string };
let orgReadOnly: string;
/** A family of the test's own reporting one role, for the party it names once the test has made it. */
let payeeId = '';
const testfam: Family = {
  name: 'testfam',
  contributes: {
    partyRoles: {
      roles: ['testfam.payee'],
      read: async (_q, _org, partyIds) => partyIds.filter((id) => id === payeeId).map((id) => ({ partyId: id, role: 'testfam.payee', refId: 'tst_1' })),
      holders: async () => [payeeId],
    },
  },
};
beforeAll(async () => {
  s = await testServer({ extraFamilies: [testfam] });
  other = await otherOrg(s);
  me = (await s.client.get('org/whoami')).body.principal.id;
  const minted = await s.client.mint({ tier: 'member' }, 'colleague');
  colleague = { id: minted.principal.id, key: minted.apiKey };
  orgReadOnly = await keyWith(s, ['org.read']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>, key?: string) => ok(s.client, method, params, key);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);
const ids = (items: any[]) => items.map((i) => i.id);
const hitIds = async (params: Record<string, unknown>) => (await call('directory.search', params)).hits.map((h: any) => h.party.id);

/** A list as the list methods (another part) will store it. */
async function makeList(owner: string, kind: 'static' | 'dynamic', visibility: string, members: string[] = [], filter: object | null = null) {
  const listId = newId('lst');
  await s.runtime.db.query(
    `INSERT INTO directory_lists (org_id, list_id, name, kind, filter, visibility, owner_id) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)`,
    [s.org.orgId, listId, `List ${listId}`, kind, filter === null ? null : JSON.stringify(filter), visibility, owner],
  );
  for (const m of members) {
    await s.runtime.db.query('INSERT INTO directory_list_members (org_id, list_id, party_id, added_by) VALUES ($1, $2, $3, $4)', [
      s.org.orgId,
      listId,
      m,
      owner,
    ]);
  }
  return listId;
}

describe('scenario 4: search, both databases ("jose alvares" finds "José Álvarez", "0412345678" by E.164, prefix "alv")', () => {
  it('folds accents and typos, finds by phone key and by prefix; appends nothing', async () => {
    const jose = await newPerson(s.client, {
      given: 'José',
      family: 'Álvarez',
      channels: [
        { kind: 'phone', value: '+61 412 345 678' },
        { kind: 'email', value: 'jose@alvarez.example' },
      ],
    });
    await newPerson(s.client, { given: 'Maria', family: 'Gonzalez' });
    const seq = await head(s.client);
    const typo = await call('directory.search', { q: 'jose alvares' });
    expect(typo.hits[0]).toMatchObject({ party: { id: jose.id, displayName: 'José Álvarez' }, matched: 'fuzzy', reasons: ['name'] });
    const phone = await call('directory.search', { q: '0412345678' });
    expect(phone.hits[0]).toMatchObject({ party: { id: jose.id }, score: 100, matched: 'key', reasons: ['phone'] });
    expect((await call('directory.search', { q: 'alv' })).hits[0].party.id).toBe(jose.id);
    expect((await call('directory.search', { q: 'JOSE@ALVAREZ.EXAMPLE' })).hits[0]).toMatchObject({
      party: { id: jose.id },
      matched: 'key',
      reasons: ['email'],
    });
    const words = await call('directory.search', { q: 'alvarez' });
    expect(words.hits[0]).toMatchObject({ party: { id: jose.id }, matched: 'text', reasons: ['name'] });
    expect(words.hits[0].score).toBeGreaterThanOrEqual(50);
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.search', () => {
  it('aliases, tags and employer words; kinds; honorifics and legal forms folded; archived and merged left out', async () => {
    const umbrella = await newOrg(s.client, { name: 'Umbrella Holdings Pty Ltd', aliases: ['Umbrella Corp'] });
    const alice = await newPerson(s.client, {
      given: 'Alice',
      family: 'Abernathy',
      title: 'Chief Scientist',
      worksAt: { orgId: umbrella.id },
      tags: ['Research'],
    });
    const gone = await newPerson(s.client, { given: 'Alice', family: 'Archived' });
    await call('directory.archivePerson', { personId: gone.id });
    const merged = await newPerson(s.client, { given: 'Alice', family: 'Abernathey' });
    await markMerged(s, merged.id, alice.id);
    expect(await hitIds({ q: 'umbrella corp', kinds: ['org'] })).toEqual([umbrella.id]);
    expect((await call('directory.search', { q: 'umbrella corp', kinds: ['org'] })).hits[0].reasons).toContain('aliases');
    expect(await hitIds({ q: 'umbrella', kinds: ['person'] })).toEqual([alice.id]);
    expect(await hitIds({ q: 'research scientist' })).toEqual([alice.id]);
    expect(await hitIds({ q: 'Dr Alice Abernathy' })).toContain(alice.id);
    expect(await hitIds({ q: 'umbrela holdings' })).toContain(umbrella.id);
    const alices = await hitIds({ q: 'alice' });
    expect(alices).toContain(alice.id);
    expect(alices).not.toContain(gone.id);
    expect(alices).not.toContain(merged.id);
  });

  it('duplicatesOf: the dedupe candidates with scores and reasons; a merged id is followed to its survivor', async () => {
    const co = await newOrg(s.client, { name: 'Dupe Finders', website: 'dupefinders.example.com' });
    const a = await newPerson(s.client, { given: 'Jon', family: 'Smith', worksAt: { orgId: co.id }, channels: [{ kind: 'phone', value: '0412 345 301' }] });
    const b = await newPerson(s.client, { given: 'John', family: 'Smith', channels: [{ kind: 'phone', value: '+61 412 345 301' }] });
    const res = await call('directory.search', { duplicatesOf: a.id });
    expect(res.hits).toEqual([
      expect.objectContaining({ party: expect.objectContaining({ id: b.id }), score: 90, matched: 'duplicate', reasons: ['same_phone'] }),
    ]);
    const old = await newPerson(s.client, { given: 'Jon', family: 'Old' });
    await markMerged(s, old.id, b.id);
    expect(await hitIds({ duplicatesOf: old.id })).toEqual([a.id]);
    expect(await hitIds({ duplicatesOf: a.id, kinds: ['org'] })).toEqual([]);
  });

  it('listId limits to the list the caller sees; bad input and missing scope refused; nothing appended', async () => {
    const inList = await newPerson(s.client, { given: 'Listed', family: 'Lemon' });
    const outList = await newPerson(s.client, { given: 'Unlisted', family: 'Lemon' });
    const mine = await makeList(me, 'static', 'private', [inList.id]);
    const theirs = await makeList(colleague.id, 'static', 'private', [outList.id]);
    expect(await hitIds({ q: 'lemon', listId: mine })).toEqual([inList.id]);
    const seq = await head(s.client);
    expect(await fail('directory.search', { q: 'lemon', listId: theirs })).toEqual({ code: 'NOT_FOUND', message: `list ${theirs} not found` });
    expect((await fail('directory.search', { limit: 10 })).message).toBe('q: give exactly one of q and duplicatesOf');
    expect((await fail('directory.search', { q: 'x', duplicatesOf: inList.id })).message).toBe('q: give exactly one of q and duplicatesOf');
    expect((await fail('directory.search', { q: 'x', limit: 101 })).message).toBe('limit: must be at most 100');
    expect((await fail('directory.search', { q: 'x', kinds: ['robot'] })).message).toMatch(/^kinds\.0: must be one of/);
    expect((await fail('directory.search', { q: 'x'.repeat(257) })).message).toMatch(/^q: must be at most 256/);
    expect((await fail('directory.search', { duplicatesOf: 'per_nobody' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.search', { q: 'x' }, orgReadOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.listPeople', () => {
  it('by name with a cursor; filters by employer, tag, who knows them, list (static and dynamic), role, status', async () => {
    const co = await newOrg(s.client, { name: 'Listing Employer' });
    const names = ['Zed Quill', 'Amy Quill', 'Bob Quill', 'Cat Quill'];
    const people: any[] = [];
    for (const n of names) {
      const [given, family] = n.split(' ');
      people.push(
        await newPerson(s.client, { given, family, tags: n === 'Bob Quill' ? ['Quillvip'] : [], worksAt: n === 'Zed Quill' ? undefined : { orgId: co.id } }),
      );
    }
    const [zed, amy, bob, cat] = people;
    const seq = await head(s.client);
    const page1 = await call('directory.listPeople', { orgId: co.id, limit: 2 });
    expect(ids(page1.people)).toEqual([amy.id, bob.id]);
    const page2 = await call('directory.listPeople', { orgId: co.id, limit: 2, cursor: page1.nextCursor });
    expect(page2).toMatchObject({ people: [{ id: cat.id }], nextCursor: null });
    expect(ids((await call('directory.listPeople', { tag: 'QUILLVIP' })).people)).toEqual([bob.id]);
    await s.runtime.db.tx((q) => touchAwareness(q, s.org.orgId, { partyId: zed.id, principalId: colleague.id }));
    expect(ids((await call('directory.listPeople', { knownBy: colleague.id })).people)).toEqual([zed.id]);
    const staticList = await makeList(me, 'static', 'private', [cat.id, zed.id]);
    expect(ids((await call('directory.listPeople', { listId: staticList })).people)).toEqual([cat.id, zed.id]);
    const dynamic = await makeList(colleague.id, 'dynamic', 'workspace', [], { tag: 'quillvip' });
    expect(ids((await call('directory.listPeople', { listId: dynamic })).people)).toEqual([bob.id]);
    expect((await fail('directory.listPeople', { listId: staticList }, colleague.key)).code).toBe('NOT_FOUND');
    await call('directory.archivePerson', { personId: amy.id });
    expect(ids((await call('directory.listPeople', { orgId: co.id })).people)).toEqual([bob.id, cat.id]);
    expect(ids((await call('directory.listPeople', { orgId: co.id, status: 'archived' })).people)).toEqual([amy.id]);
    expect(ids((await call('directory.listPeople', { orgId: co.id, status: 'all' })).people)).toEqual([amy.id, bob.id, cat.id]);
    expect(ids((await call('directory.listPeople', { q: 'quill', orgId: co.id })).people).sort()).toEqual([bob.id, cat.id].sort());
    expect(ids((await call('directory.listPeople', { q: 'quill', tag: 'nothing' })).people)).toEqual([]);
    expect((await head(s.client)) - seq).toBe(1); // the archive only
  });

  it('updatedSince orders by change and pages; merged parties list as tombstones', async () => {
    const since = new Date().toISOString();
    const a = await newPerson(s.client, { given: 'Sync', family: 'One' });
    const b = await newPerson(s.client, { given: 'Sync', family: 'Two' });
    await call('directory.updatePerson', { personId: a.id, title: 'Later' });
    await markMerged(s, b.id, a.id);
    const all = await call('directory.listPeople', { updatedSince: since, status: 'all', limit: 500 });
    expect(ids(all.people)).toEqual([a.id, b.id]);
    expect(ids((await call('directory.listPeople', { updatedSince: since })).people)).toEqual([a.id]);
    const p1 = await call('directory.listPeople', { updatedSince: since, status: 'all', limit: 1 });
    const p2 = await call('directory.listPeople', { updatedSince: since, status: 'all', limit: 1, cursor: p1.nextCursor });
    expect([...ids(p1.people), ...ids(p2.people), p2.nextCursor]).toEqual([a.id, b.id, null]);
    const merged = await call('directory.listPeople', { status: 'merged', q: 'sync' });
    expect(merged.people).toEqual([{ id: b.id, kind: 'person', status: 'merged', mergedInto: a.id, mergedAt: expect.any(String) }]);
    expect((await fail('directory.listPeople', { updatedSince: since, cursor: p1.nextCursor.slice(0, -2) + 'xx' })).code).toBe('BAD_REQUEST');
    expect((await fail('directory.listPeople', { cursor: p1.nextCursor })).message).toMatch(/^cursor: not a cursor this list returned/);
  });

  it('roles from a registered family source; unknown role, foreign org, bad input, missing scope', async () => {
    const payee = await newPerson(s.client, { given: 'Role', family: 'Holder' });
    payeeId = payee.id;
    expect(ids((await call('directory.listPeople', { role: 'testfam.payee' })).people)).toEqual([payee.id]);
    expect((await call('directory.getPerson', { personId: payee.id })).person.roles).toEqual([{ family: 'testfam', role: 'testfam.payee', refId: 'tst_1' }]);
    const foreign = (await ok(other, 'directory.createOrg', { name: 'Elsewhere' })).org;
    const seq = await head(s.client);
    expect((await fail('directory.listPeople', { role: 'books.nothing' })).message).toBe(
      'role: no family reports the role books.nothing (known: books.contact, books.customer, books.supplier, crm.account, crm.contact, testfam.payee)',
    );
    expect(await fail('directory.listPeople', { orgId: foreign.id })).toEqual({ code: 'NOT_FOUND', message: `organisation ${foreign.id} not found` });
    expect((await fail('directory.listPeople', { limit: 501 })).message).toBe('limit: must be at most 500');
    expect((await fail('directory.listPeople', { updatedSince: 'yesterday' })).message).toBe('updatedSince: must be an ISO date-time');
    expect((await fail('directory.listPeople', { knownBy: 'bob' })).message).toMatch(/^knownBy: must be a member id/);
    expect((await fail('directory.listPeople', { sort: 'name' })).message).toBe('sort: unknown field');
    expect((await fail('directory.listPeople', {}, orgReadOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.listOrgs', () => {
  it('by name; orgId lists organisations linked either way; tag and q; misuse', async () => {
    const parent = await newOrg(s.client, { name: 'Parent Conglomerate', tags: ['group'] });
    const sub = await newOrg(s.client, { name: 'Daughter Ventures' });
    const unrelated = await newOrg(s.client, { name: 'Unrelated Ventures' });
    await s.runtime.db.query(
      `INSERT INTO directory_links (org_id, link_id, from_id, to_id, relation, created_by) VALUES ($1, $2, $3, $4, 'subsidiary_of', $5)`,
      [s.org.orgId, newId('plk'), sub.id, parent.id, me],
    );
    expect(ids((await call('directory.listOrgs', { orgId: parent.id })).orgs)).toEqual([sub.id]);
    expect(ids((await call('directory.listOrgs', { orgId: sub.id })).orgs)).toEqual([parent.id]);
    expect(ids((await call('directory.listOrgs', { tag: 'group' })).orgs)).toEqual([parent.id]);
    expect(ids((await call('directory.listOrgs', { q: 'ventures' })).orgs).sort()).toEqual([sub.id, unrelated.id].sort());
    const names = (await call('directory.listOrgs', { limit: 500 })).orgs.map((o: any) => o.displayName.toLowerCase());
    expect(names).toEqual([...names].sort());
    expect((await fail('directory.listOrgs', { orgId: 'co_nowhere' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.listOrgs', { status: 'gone' })).message).toMatch(/^status: must be one of/);
    expect((await fail('directory.listOrgs', {}, orgReadOnly)).code).toBe('FORBIDDEN_SCOPE');
  });
});
