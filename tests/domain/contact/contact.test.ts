import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { err, eventsAfter, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newOrg, newPerson } from '../directory/kit.js';

/** contact.list, add, update, delete: the address-book view of directory parties (per_/co_), never copies. */

let s: TestServer;
let other: TestClient;
let readOnly: string;
let noRead: string;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  readOnly = await keyWith(s, ['org.read', 'directory.read', 'directory.write']);
  noRead = await keyWith(s, ['directory.read', 'org.write']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>, idem?: string) => ok(s.client, method, params, undefined, idem);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);
const add = async (params: Record<string, unknown>) => (await call('contact.add', params)).contact;

describe('contact.add', () => {
  it('adds a directory person with email, phone, title and a new organisation; one event of ids and counts; an I replay', async () => {
    const seq = await head(s.client);
    const res = await call('contact.add', {
      name: '  Priya   Raman ',
      email: 'Priya.Raman@Coastline-Build.com.au',
      phone: '0412 555 101',
      organisation: 'Coastline Build Pty Ltd',
      title: 'Site Manager',
    });
    expect(res).toMatchObject({ changed: true, possibleDuplicates: [] });
    const c = res.contact;
    expect(c).toMatchObject({
      kind: 'person',
      name: 'Priya Raman',
      email: 'Priya.Raman@Coastline-Build.com.au',
      phone: '0412 555 101',
      organisation: 'Coastline Build Pty Ltd',
      title: 'Site Manager',
      archived: false,
      version: 1,
    });
    expect(c.id).toMatch(/^per_/);
    expect(c.organisationId).toMatch(/^co_/);
    // The same party in the directory: origin contact, its channels sourced contact, a works_at link.
    const p = (await call('directory.getPerson', { personId: c.id })).person;
    expect(p).toMatchObject({ origin: 'contact', given: 'Priya', family: 'Raman', displayName: 'Priya Raman', employer: { id: c.organisationId } });
    expect(p.channels.map((ch: any) => [ch.kind, ch.key, ch.source, ch.primary])).toEqual([
      ['email', 'priya.raman@coastline-build.com.au', 'contact', true],
      ['phone', '+61412555101', 'contact', true],
    ]);
    expect((await call('directory.getOrg', { orgId: c.organisationId })).org).toMatchObject({ displayName: 'Coastline Build Pty Ltd', origin: 'contact' });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.entity_id, e.payload])).toEqual([
      [
        'contact.party.add',
        c.id,
        { partyId: c.id, kind: 'person', origin: 'contact', channels: 2, worksAt: c.organisationId, employerCreated: true, possibleDuplicates: [], version: 1 },
      ],
    ]);

    const first = await s.client.rpc('contact.add', { name: 'Replay Once' }, { idem: 'contact-add-1' });
    const at = await head(s.client);
    const again = await s.client.rpc('contact.add', { name: 'Replay Once' }, { idem: 'contact-add-1' });
    expect(again.body.result).toEqual(first.body.result);
    expect(await head(s.client)).toBe(at);
  });

  it('an organisation is found by its folded name; an organisation contact; dedupe hints as the directory gives them', async () => {
    const acme = await newOrg(s.client, { name: 'Harbourside Freight Pty Ltd' });
    const c = await add({ name: 'Tom Nguyen', organisation: 'HARBOURSIDE FREIGHT LIMITED' });
    expect(c).toMatchObject({ organisationId: acme.id, organisation: 'Harbourside Freight Pty Ltd' });
    const co = await add({ kind: 'org', name: 'Blue Gum Nursery', email: 'hello@bluegum-nursery.com.au', phone: '(02) 9555 0102' });
    expect(co).toMatchObject({
      kind: 'org',
      name: 'Blue Gum Nursery',
      organisation: null,
      organisationId: null,
      title: null,
      email: 'hello@bluegum-nursery.com.au',
    });
    expect(co.id).toMatch(/^co_/);
    // Same E.164 as an existing person: the directory's hint (90), nothing merged.
    const jo = await newPerson(s.client, { given: 'Jo', family: 'Bloggs', channels: [{ kind: 'phone', value: '0412 555 102' }] });
    const hinted = await call('contact.add', { name: 'Joanne Bloggs', phone: '+61 412 555 102' });
    expect(hinted.possibleDuplicates).toEqual([{ partyId: jo.id, kind: 'person', displayName: 'Jo Bloggs', score: 90, reasons: ['same_phone'] }]);
  });

  it('misuse: a held email, an ambiguous organisation, bad values, person-only fields on an organisation, scope; nothing appended', async () => {
    const holder = await newPerson(s.client, { given: 'Held', family: 'Mail', channels: [{ kind: 'email', value: 'held.mail@example.org' }] });
    await newOrg(s.client, { name: 'Twin Peaks Co' });
    await newOrg(s.client, { name: 'Twin Peaks Company' });
    const seq = await head(s.client);
    expect(await fail('contact.add', { name: 'X', email: 'HELD.MAIL@example.org' })).toEqual({
      code: 'CONFLICT',
      message: `email: held by ${holder.id}; add it there, or merge the two (directory.proposeMerge)`,
    });
    const twin = await fail('contact.add', { name: 'X', organisation: 'twin peaks' });
    expect(twin.code).toBe('CONFLICT');
    expect(twin.message).toMatch(/^organisation: 2 organisations have this name \(co_\w+, co_\w+\); link the person to one \(directory\.linkParty\)/);
    expect(await fail('contact.add', { name: 'X', email: 'not-an-email' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'email: not a valid email address',
    });
    expect(await fail('contact.add', { name: 'X', phone: '12345' })).toEqual({ code: 'BAD_REQUEST', message: 'phone: not a valid AU phone number' });
    expect(await fail('contact.add', { kind: 'org', name: 'X', title: 'CEO' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'title: only a person has a job title',
    });
    expect(await fail('contact.add', { kind: 'org', name: 'X', organisation: 'Y' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'organisation: only a person works at an organisation',
    });
    expect((await fail('contact.add', { name: 'X', company: 'Y' })).message).toBe('company: unknown field');
    expect((await fail('contact.add', {})).message).toBe('name: required');
    expect((await fail('contact.add', { name: 'X', kind: 'team' })).message).toMatch(/^kind: must be one of/);
    expect(await fail('contact.add', { name: 'X' }, readOnly)).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope org.write for contact.add' });
    expect(await head(s.client)).toBe(seq);
  });
});

describe('contact.list', () => {
  it('by name, by relevance, by email or phone, by kind; archived only when asked; cursors; no event', async () => {
    const t = Date.now().toString(36);
    const names = ['Aaron Listwood', 'Bella Listwood', 'Cara Listwood'];
    const made: any[] = [];
    for (const [i, name] of names.entries()) made.push(await add({ name: `${name} ${t}`, email: `list${i}.${t}@listwood.example` }));
    const seq = await head(s.client);
    const found = await call('contact.list', { q: `listwood ${t}`, limit: 10 });
    expect(found.contacts.map((c: any) => c.id).sort()).toEqual(made.map((c) => c.id).sort());
    // Typos find it too; an email finds its holder by key.
    expect((await call('contact.list', { q: `Belle Listwod ${t}` })).contacts[0]?.id).toBe(made[1].id);
    expect((await call('contact.list', { q: `LIST2.${t}@listwood.example` })).contacts.map((c: any) => c.id)).toEqual([made[2].id]);
    // Paged by name: every contact once.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('contact.list', { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.contacts.map((c: any) => c.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const c of made) expect(seen).toContain(c.id);
    const orgsOnly = await call('contact.list', { kind: 'org', limit: 500 });
    expect(orgsOnly.contacts.every((c: any) => c.kind === 'org')).toBe(true);
    await call('contact.delete', { id: made[0].id });
    const afterDelete = await head(s.client);
    expect((await call('contact.list', { q: `listwood ${t}` })).contacts.map((c: any) => c.id)).not.toContain(made[0].id);
    const withArchived = await call('contact.list', { q: `listwood ${t}`, includeArchived: true });
    expect(withArchived.contacts.find((c: any) => c.id === made[0].id)).toMatchObject({ archived: true });
    expect(await head(s.client)).toBe(afterDelete);
    expect(afterDelete).toBe(seq + 1);
  });

  it('misuse: a bad cursor, limit 501, unknown field, missing scope', async () => {
    expect(await fail('contact.list', { cursor: 'nope' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'cursor: not a cursor this list returned (with these params)',
    });
    expect((await fail('contact.list', { limit: 501 })).message).toBe('limit: must be at most 500');
    expect((await fail('contact.list', { kind: 'person', tag: 'x' })).message).toBe('tag: unknown field');
    expect(await fail('contact.list', {}, noRead)).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope org.read for contact.list' });
    // Another org sees none of ours.
    expect((await ok(other, 'contact.list', { limit: 500 })).contacts).toEqual([]);
  });
});

describe('contact.update', () => {
  it('a new email becomes primary and the old one stays; a held one is made primary; null removes the primary', async () => {
    const c = await add({ name: 'Mei Chen', email: 'mei@old-firm.example', phone: '0412 555 201' });
    const seq = await head(s.client);
    const moved = await call('contact.update', { id: c.id, email: 'mei.chen@new-firm.example', ifVersion: 1 });
    expect(moved).toMatchObject({ changed: true, contact: { email: 'mei.chen@new-firm.example', version: 2 } });
    const p = (await call('directory.getPerson', { personId: c.id })).person;
    expect(p.channels.filter((ch: any) => ch.kind === 'email').map((ch: any) => [ch.value, ch.primary])).toEqual([
      ['mei.chen@new-firm.example', true],
      ['mei@old-firm.example', false],
    ]);
    const back = await call('contact.update', { id: c.id, email: 'MEI@old-firm.example' });
    expect(back.contact.email).toBe('mei@old-firm.example');
    const same = await call('contact.update', { id: c.id, email: 'mei@old-firm.example', phone: '+61412555201' });
    expect(same).toMatchObject({ changed: false, contact: { version: 3 } });
    const cleared = await call('contact.update', { id: c.id, email: null });
    expect(cleared.contact.email).toBe('mei.chen@new-firm.example');
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['contact.party.update', { partyId: c.id, kind: 'person', fields: ['email'], version: 2 }],
      ['contact.party.update', { partyId: c.id, kind: 'person', fields: ['email'], version: 3 }],
      ['contact.party.update', { partyId: c.id, kind: 'person', fields: [], version: 3, noop: true }],
      ['contact.party.update', { partyId: c.id, kind: 'person', fields: ['email'], version: 4 }],
    ]);
  });

  it('rename keeps an alias; organisation moves the employer (the old link ends); title; an organisation rename reaches its people', async () => {
    const c = await add({ name: 'Sam Okafor', organisation: 'Ridgeline Survey', title: 'Surveyor' });
    const ridge = c.organisationId;
    const res = await call('contact.update', { id: c.id, name: 'Samuel Okafor', organisation: 'Valley Mapping', title: null });
    expect(res.contact).toMatchObject({ name: 'Samuel Okafor', organisation: 'Valley Mapping', title: null });
    const p = (await call('directory.getPerson', { personId: c.id })).person;
    expect(p).toMatchObject({ given: 'Samuel', family: 'Okafor', aliases: ['Sam Okafor'] });
    expect(p.links.map((l: any) => [l.relation, l.other.displayName, l.primary])).toEqual([['works_at', 'Valley Mapping', true]]);
    const ridgeOrg = (await call('directory.getOrg', { orgId: ridge })).org;
    expect(ridgeOrg.links).toEqual([]);
    const valley = res.contact.organisationId;
    const renamed = await call('contact.update', { id: valley, name: 'Valley Mapping Group' });
    expect(renamed.contact).toMatchObject({ kind: 'org', name: 'Valley Mapping Group' });
    expect((await call('contact.list', { q: 'Samuel Okafor' })).contacts[0]).toMatchObject({ id: c.id, organisation: 'Valley Mapping Group' });
    const none = await call('contact.update', { id: c.id, organisation: null });
    expect(none.contact).toMatchObject({ organisation: null, organisationId: null });
  });

  it('misuse: stale ifVersion, archived, merged, unknown and foreign ids, a held email, bad values, scope; nothing appended', async () => {
    const c = await add({ name: 'Ivy Park' });
    const arch = await add({ name: 'Archie Ved' });
    await call('contact.delete', { id: arch.id });
    const loser = await add({ name: 'Lou Ser' });
    const survivor = await add({ name: 'Sur Vivor' });
    await markMerged(s, loser.id, survivor.id);
    const holder = await add({ name: 'Hol Der', email: 'holder@contact-update.example' });
    const foreign = (await ok(other, 'contact.add', { name: 'Foreign Person' })).contact;
    const seq = await head(s.client);
    expect(await fail('contact.update', { id: c.id, title: 'x', ifVersion: 9 })).toEqual({
      code: 'CONFLICT',
      message: `person ${c.id} is at version 1, not 9: read it again and retry with ifVersion 1`,
    });
    const archived = await fail('contact.update', { id: arch.id, title: 'x' });
    expect(archived.code).toBe('CONFLICT');
    expect(archived.message).toMatch(new RegExp(`^person ${arch.id} is archived; restore it \\(directory.archivePerson with archived: false\\) first`));
    expect(await fail('contact.update', { id: loser.id, title: 'x' })).toEqual({
      code: 'CONFLICT',
      message: `person ${loser.id} was merged into ${survivor.id}; write to ${survivor.id} instead`,
    });
    expect(await fail('contact.update', { id: 'per_nobody000000000', title: 'x' })).toEqual({
      code: 'NOT_FOUND',
      message: 'person per_nobody000000000 not found',
    });
    expect(await fail('contact.update', { id: foreign.id, title: 'x' })).toEqual({ code: 'NOT_FOUND', message: `person ${foreign.id} not found` });
    expect(await fail('contact.update', { id: c.id, email: 'Holder@contact-update.example' })).toEqual({
      code: 'CONFLICT',
      message: `email: held by ${holder.id}; add it there, or merge the two (directory.proposeMerge)`,
    });
    expect(await fail('contact.update', { id: c.id, phone: 'call me' })).toEqual({ code: 'BAD_REQUEST', message: 'phone: not a valid AU phone number' });
    expect((await fail('contact.update', { id: 'lst_abc', title: 'x' })).message).toMatch(/^id: must be a party id/);
    expect((await fail('contact.update', { id: c.id, nickname: 'x' })).message).toBe('nickname: unknown field');
    expect((await fail('contact.update', { id: c.id, title: 'x' }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('contact.delete', () => {
  it('archives (the party stays in the directory); again is changed:false with a noop event; merged and unknown refused', async () => {
    const c = await add({ name: 'Del Eted', email: 'del@eted.example' });
    const seq = await head(s.client);
    const gone = await call('contact.delete', { id: c.id });
    expect(gone).toMatchObject({ changed: true, contact: { id: c.id, archived: true, version: 2 } });
    expect((await call('directory.getPerson', { personId: c.id })).person.status).toBe('archived');
    expect(await call('contact.delete', { id: c.id })).toMatchObject({ changed: false, contact: { archived: true } });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['contact.party.delete', { partyId: c.id, kind: 'person', status: 'archived', version: 2 }],
      ['contact.party.delete', { partyId: c.id, kind: 'person', status: 'archived', version: 2, noop: true }],
    ]);
    const loser = await add({ name: 'Merged Away' });
    const survivor = await add({ name: 'Merged Into' });
    await markMerged(s, loser.id, survivor.id);
    const at = await head(s.client);
    expect(await fail('contact.delete', { id: loser.id })).toEqual({
      code: 'CONFLICT',
      message: `person ${loser.id} was merged into ${survivor.id}; write to ${survivor.id} instead`,
    });
    expect((await fail('contact.delete', { id: 'co_nobody000000000' })).code).toBe('NOT_FOUND');
    expect((await fail('contact.delete', { id: survivor.id }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(at);
  });
});
