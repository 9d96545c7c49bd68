import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { err, eventsAfter, expectOk, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newOrg, newPerson } from './kit.js';

/** directory.createPerson, createOrg, updatePerson, updateOrg, archivePerson, archiveOrg, getPerson, getOrg. */

let s: TestServer;
let other: TestClient;
let noWrite: string;
let noRead: string;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  noWrite = await keyWith(s, ['org.read', 'directory.read']);
  noRead = await keyWith(s, ['org.read', 'directory.write']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>) => ok(s.client, method, params);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);

describe('directory.createPerson', () => {
  it('creates with channels and an employer; one event of ids and counts; an I replay answers the same frame', async () => {
    const acme = await newOrg(s.client, { name: 'Acme Widgets Pty Ltd', website: 'acme-widgets.com.au' });
    const seq = await head(s.client);
    const res = await call('directory.createPerson', {
      given: 'Jane',
      family: 'Doe',
      title: 'CFO',
      worksAt: { orgId: acme.id, role: 'Finance' },
      channels: [
        { kind: 'email', value: 'Jane.Doe@Acme-Widgets.com.au', label: 'work' },
        { kind: 'phone', value: '0412 345 001' },
        { kind: 'phone', value: '(02) 9876 0001', primary: true },
        { kind: 'im', service: 'slack', value: '@jane' },
      ],
      tags: ['VIP', 'vip', 'Finance'],
      addresses: [{ lines: ['1 Main St'], locality: 'Sydney', region: 'NSW', postcode: '2000', country: 'AU' }],
      notes: 'Met at the expo',
    });
    expect(res).toMatchObject({ changed: true, possibleDuplicates: [] });
    const jane = res.person;
    expect(jane).toMatchObject({
      kind: 'person',
      status: 'active',
      displayName: 'Jane Doe',
      given: 'Jane',
      family: 'Doe',
      title: 'CFO',
      tags: ['vip', 'finance'],
      employer: { id: acme.id, name: 'Acme Widgets Pty Ltd' },
      email: 'Jane.Doe@Acme-Widgets.com.au',
      phone: '(02) 9876 0001',
      origin: 'manual',
      notes: 'Met at the expo',
      version: 1,
    });
    expect(jane.id).toMatch(/^per_/);
    expect(jane.channels.map((c: any) => [c.kind, c.key, c.primary])).toEqual([
      ['email', 'jane.doe@acme-widgets.com.au', true],
      ['im', 'slack:@jane', true],
      ['phone', '+61298760001', true],
      ['phone', '+61412345001', false],
    ]);
    expect(jane.links).toEqual([
      expect.objectContaining({
        relation: 'works_at',
        direction: 'out',
        role: 'Finance',
        primary: true,
        other: { id: acme.id, kind: 'org', displayName: 'Acme Widgets Pty Ltd' },
      }),
    ]);
    const events = await eventsAfter(s.client, seq);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'directory.person.create',
      entity_id: jane.id,
      payload: { partyId: jane.id, channels: 4, tags: 2, worksAt: acme.id, possibleDuplicates: [], version: 1, origin: 'manual' },
    });

    const first = await s.client.rpc('directory.createPerson', { given: 'Replay', family: 'Once' }, { idem: 'dir-create-1' });
    const at = await head(s.client);
    const again = await s.client.rpc('directory.createPerson', { given: 'Replay', family: 'Once' }, { idem: 'dir-create-1' });
    expect(again.body.result).toEqual(first.body.result);
    expect(await head(s.client)).toBe(at);
  });

  it('an email another active person holds is a CONFLICT naming them; archived holders and organisations do not count', async () => {
    const holder = await newPerson(s.client, { given: 'Hold', family: 'Er', channels: [{ kind: 'email', value: 'held@example.net' }] });
    const seq = await head(s.client);
    const clash = await fail('directory.createPerson', {
      given: 'Other',
      channels: [
        { kind: 'phone', value: '0412 345 002' },
        { kind: 'email', value: 'HELD@example.net' },
      ],
    });
    expect(clash).toMatchObject({ code: 'CONFLICT' });
    expect(clash.message).toBe(`channels.1.value: held by ${holder.id}; add it there, or merge the two (directory.proposeMerge)`);
    expect(await head(s.client)).toBe(seq);
    // The gmail key: dots and +tags are the same mailbox.
    await newPerson(s.client, { given: 'Gee', channels: [{ kind: 'email', value: 'gee.mail@gmail.com' }] });
    expect((await fail('directory.createPerson', { given: 'Gee2', channels: [{ kind: 'email', value: 'GeeMail+x@googlemail.com' }] })).code).toBe('CONFLICT');
    await call('directory.archivePerson', { personId: holder.id });
    const again = await newPerson(s.client, { given: 'Second', channels: [{ kind: 'email', value: 'held@example.net' }] });
    expect(again.email).toBe('held@example.net');
    await newOrg(s.client, { name: 'Shared Inbox Co', channels: [{ kind: 'email', value: 'info@shared-inbox.example' }] });
    await newPerson(s.client, { given: 'Reads', family: 'Info', channels: [{ kind: 'email', value: 'info@shared-inbox.example' }] });
  });

  it('bad input, foreign or archived employer, missing scope: the field named, nothing appended', async () => {
    const foreign = (await ok(other, 'directory.createOrg', { name: 'Foreign Co' })).org;
    const gone = await newOrg(s.client, { name: 'Gone Pty Ltd' });
    await call('directory.archiveOrg', { orgId: gone.id });
    const seq = await head(s.client);
    expect((await fail('directory.createPerson', { given: 'X', colour: 'red' })).message).toBe('colour: unknown field');
    expect((await fail('directory.createPerson', {})).message).toBe('given: required');
    expect((await fail('directory.createPerson', { given: 'X', channels: [{ kind: 'email', value: 'not-an-email' }] })).message).toBe(
      'channels.0.value: not a valid email address',
    );
    expect(
      (
        await fail('directory.createPerson', {
          given: 'X',
          channels: [
            { kind: 'email', value: 'a@b.co' },
            { kind: 'phone', value: '12345' },
          ],
        })
      ).message,
    ).toBe('channels.1.value: not a valid AU phone number');
    expect((await fail('directory.createPerson', { given: 'X', country: 'NZ', channels: [{ kind: 'phone', value: '12345' }] })).message).toBe(
      'channels.0.value: not a valid NZ phone number',
    );
    expect(
      (
        await fail('directory.createPerson', {
          given: 'X',
          channels: [
            { kind: 'phone', value: '0412345003' },
            { kind: 'phone', value: '+61 412 345 003' },
          ],
        })
      ).message,
    ).toBe('channels.1.value: the same phone as channels.0');
    expect((await fail('directory.createPerson', { given: 'X', channels: [{ kind: 'fax', value: '1' }] })).message).toMatch(
      /^channels\.0\.kind: must be one of/,
    );
    expect((await fail('directory.createPerson', { given: 'X', worksAt: { orgId: 'per_abc' } })).message).toMatch(
      /^worksAt\.orgId: must be an id of the form co_/,
    );
    expect(await fail('directory.createPerson', { given: 'X', worksAt: { orgId: foreign.id } })).toEqual({
      code: 'NOT_FOUND',
      message: `organisation ${foreign.id} not found`,
    });
    const archived = await fail('directory.createPerson', { given: 'X', worksAt: { orgId: gone.id } });
    expect(archived.code).toBe('CONFLICT');
    expect(archived.message).toMatch(new RegExp(`^worksAt.orgId: organisation ${gone.id} is archived; restore it \\(directory.archiveOrg`));
    expect((await fail('directory.createPerson', { given: 'X' }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.createOrg', () => {
  it('creates with website domain, identifiers and channels; hints duplicates; a held identifier is a CONFLICT', async () => {
    const seq = await head(s.client);
    const res = await call('directory.createOrg', {
      name: 'Globex Corporation',
      legalName: 'Globex Corporation Pty Ltd',
      website: 'https://www.globex.com.au/contact',
      identifiers: { abn: '51 824 753 556', vat: 'gb 123 456 789' },
      country: 'AU',
      channels: [
        { kind: 'email', value: 'accounts@globex.com.au' },
        { kind: 'phone', value: '1300 655 506' },
      ],
      tags: ['Supplier'],
    });
    const globex = res.org;
    expect(globex).toMatchObject({
      kind: 'org',
      displayName: 'Globex Corporation',
      legalName: 'Globex Corporation Pty Ltd',
      website: 'https://www.globex.com.au/contact',
      domain: 'globex.com.au',
      identifiers: { abn: '51824753556', vat: 'GB123456789' },
      country: 'AU',
      email: 'accounts@globex.com.au',
      tags: ['supplier'],
    });
    expect(globex.id).toMatch(/^co_/);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['directory.org.create', { partyId: globex.id, origin: 'manual', channels: 2, tags: 1, identifiers: ['abn', 'vat'], possibleDuplicates: [], version: 1 }],
    ]);
    const held = await fail('directory.createOrg', { name: 'Globex Two', identifiers: { abn: '51824753556' } });
    expect(held).toEqual({
      code: 'CONFLICT',
      message: `identifiers.abn: held by ${globex.id}; update that organisation, or merge the two (directory.proposeMerge)`,
    });
    const hinted = await call('directory.createOrg', { name: 'Globex Sales', website: 'sales.globex.com.au' });
    expect(hinted.possibleDuplicates).toEqual([{ partyId: globex.id, kind: 'org', displayName: 'Globex Corporation', score: 95, reasons: ['same_domain'] }]);
    const seq2 = await head(s.client);
    expect((await fail('directory.createOrg', { name: 'X', identifiers: { abn: '12 345 678 901' } })).message).toMatch(/^identifiers\.abn: not a valid ABN/);
    expect((await fail('directory.createOrg', { name: 'X', identifiers: { 'ABN!': '1' } })).message).toMatch(/^identifiers\.ABN!: /);
    expect((await fail('directory.createOrg', { name: 'X', website: 'mailto:x@y.z' })).message).toBe('website: not a web address');
    expect((await fail('directory.createOrg', { name: 'X', country: 'Australia' })).message).toMatch(/^country: must be an ISO 3166-1/);
    expect((await fail('directory.createOrg', { name: 'X' }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq2);
  });
});

describe('directory.updatePerson', () => {
  it('renames keep an alias, derived names follow, null clears; no-op and stale ifVersion', async () => {
    const p = await newPerson(s.client, { given: 'Jon', family: 'Smyth', title: 'Buyer' });
    const seq = await head(s.client);
    const renamed = await call('directory.updatePerson', { personId: p.id, given: 'John', family: 'Smith', title: null, ifVersion: 1 });
    expect(renamed).toMatchObject({ changed: true, person: { displayName: 'John Smith', aliases: ['Jon Smyth'], title: null, version: 2 } });
    const custom = await call('directory.updatePerson', { personId: p.id, displayName: 'Johnny S.', aliases: ['Jon Smyth', 'JS'] });
    expect(custom.person).toMatchObject({ displayName: 'Johnny S.', aliases: ['Jon Smyth', 'JS', 'John Smith'] });
    // A name set by hand stays when given changes; renaming back to an alias takes it out of the aliases.
    const kept = await call('directory.updatePerson', { personId: p.id, given: 'Jonathan' });
    expect(kept.person).toMatchObject({ displayName: 'Johnny S.', given: 'Jonathan' });
    const back = await call('directory.updatePerson', { personId: p.id, displayName: 'JS' });
    expect(back.person.aliases).toEqual(['Jon Smyth', 'John Smith', 'Johnny S.']);
    const same = await call('directory.updatePerson', { personId: p.id, displayName: 'JS', tags: [] });
    expect(same.changed).toBe(false);
    const stale = await fail('directory.updatePerson', { personId: p.id, title: 'x', ifVersion: 1 });
    expect(stale).toEqual({ code: 'CONFLICT', message: `person ${p.id} is at version 5, not 1: read it again and retry with ifVersion 5` });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.fields, e.payload.noop ?? false])).toEqual([
      ['directory.person.update', ['given', 'family', 'displayName', 'title', 'aliases'], false],
      ['directory.person.update', ['displayName', 'aliases'], false],
      ['directory.person.update', ['given'], false],
      ['directory.person.update', ['displayName', 'aliases'], false],
      ['directory.person.update', [], true],
    ]);
  });

  it('archived, merged, foreign, unknown, bad input, missing scope', async () => {
    const a = await newPerson(s.client, { given: 'Arch' });
    const survivor = await newPerson(s.client, { given: 'Survivor' });
    const loser = await newPerson(s.client, { given: 'Loser' });
    await markMerged(s, loser.id, survivor.id);
    await call('directory.archivePerson', { personId: a.id });
    const foreign = (await ok(other, 'directory.createPerson', { given: 'Foreign' })).person;
    const seq = await head(s.client);
    expect(await fail('directory.updatePerson', { personId: a.id, title: 'x' })).toEqual({
      code: 'CONFLICT',
      message: `person ${a.id} is archived; restore it (directory.archivePerson with archived: false) first`,
    });
    expect(await fail('directory.updatePerson', { personId: loser.id, title: 'x' })).toEqual({
      code: 'CONFLICT',
      message: `person ${loser.id} was merged into ${survivor.id}; write to ${survivor.id} instead`,
    });
    for (const id of [foreign.id, 'per_unknown'])
      expect(await fail('directory.updatePerson', { personId: id, title: 'x' })).toEqual({ code: 'NOT_FOUND', message: `person ${id} not found` });
    expect((await fail('directory.updatePerson', { personId: survivor.id, given: '' })).message).toMatch(/^given: must be at least 1/);
    expect((await fail('directory.updatePerson', { personId: survivor.id, addresses: [{ lines: [], zip: '2000' }] })).message).toBe(
      'addresses.0.zip: unknown field',
    );
    expect((await fail('directory.updatePerson', { personId: survivor.id }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.updateOrg', () => {
  it('a rename keeps an alias and re-indexes its people; website, identifiers set and removed; held identifier; no-op', async () => {
    const initech = await newOrg(s.client, { name: 'Initech', identifiers: { acn: '123 456 789' } });
    const peter = await newPerson(s.client, { given: 'Peter', family: 'Gibbons', worksAt: { orgId: initech.id } });
    const held = await newOrg(s.client, { name: 'Holder', identifiers: { vat: 'NL123' } });
    const seq = await head(s.client);
    const res = await call('directory.updateOrg', {
      orgId: initech.id,
      name: 'Initrode',
      website: 'initrode.example.com',
      identifiers: { acn: null, abn: '53 004 085 616' },
    });
    expect(res.org).toMatchObject({ displayName: 'Initrode', aliases: ['Initech'], domain: 'example.com', identifiers: { abn: '53004085616' }, version: 2 });
    expect((await call('directory.getPerson', { personId: peter.id })).person.employer).toEqual({ id: initech.id, name: 'Initrode' });
    const found = await call('directory.search', { q: 'initrode', kinds: ['person'] });
    expect(found.hits.map((h: any) => h.party.id)).toEqual([peter.id]);
    expect((await call('directory.updateOrg', { orgId: initech.id, website: null })).org).toMatchObject({ website: null, domain: null });
    expect(await fail('directory.updateOrg', { orgId: initech.id, identifiers: { vat: 'nl 123' } })).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`held by ${held.id}`),
    });
    const same = await call('directory.updateOrg', { orgId: initech.id, name: 'Initrode', identifiers: { abn: '53004085616' } });
    expect(same.changed).toBe(false);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.fields])).toEqual([
      ['directory.org.update', ['name', 'website', 'domain', 'aliases', 'identifiers']],
      ['directory.org.update', ['website', 'domain']],
      ['directory.org.update', []],
    ]);
    expect((await fail('directory.updateOrg', { orgId: initech.id, name: 'x', ifVersion: 1 })).code).toBe('CONFLICT');
    expect((await fail('directory.updateOrg', { orgId: 'co_unknown', name: 'x' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.updateOrg', { orgId: initech.id, website: 'http://' })).message).toBe('website: not a web address');
    expect((await fail('directory.updateOrg', { orgId: initech.id }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
  });
});

describe('directory.archivePerson and archiveOrg', () => {
  it('archive, repeat as a no-op, restore; a restore that would make two holders of an email is a CONFLICT', async () => {
    const p = await newPerson(s.client, { given: 'Ann', channels: [{ kind: 'email', value: 'ann@archive.example' }] });
    const seq = await head(s.client);
    expect(await call('directory.archivePerson', { personId: p.id })).toMatchObject({ changed: true, person: { status: 'archived', version: 2 } });
    expect(await call('directory.archivePerson', { personId: p.id, archived: true })).toMatchObject({ changed: false });
    const taker = await newPerson(s.client, { given: 'Ann2', channels: [{ kind: 'email', value: 'ann@archive.example' }] });
    const clash = await fail('directory.archivePerson', { personId: p.id, archived: false });
    expect(clash).toEqual({
      code: 'CONFLICT',
      message: `personId: an email of ${p.id} is now held by ${taker.id}; archive it, or merge the two (directory.proposeMerge)`,
    });
    await call('directory.archivePerson', { personId: taker.id });
    expect(await call('directory.archivePerson', { personId: p.id, archived: false })).toMatchObject({ changed: true, person: { status: 'active' } });
    const events = (await eventsAfter(s.client, seq)).filter((e) => e.kind === 'directory.person.archive');
    expect(events.map((e) => [e.entity_id, e.payload.status, e.payload.noop ?? false])).toEqual([
      [p.id, 'archived', false],
      [p.id, 'archived', true],
      [taker.id, 'archived', false],
      [p.id, 'active', false],
    ]);
  });

  it('organisations likewise; merged, unknown, foreign, missing scope', async () => {
    const o = await newOrg(s.client, { name: 'Archivable', identifiers: { lei: 'ABCDEF1234567890XYZ1' } });
    expect(await call('directory.archiveOrg', { orgId: o.id })).toMatchObject({ changed: true, org: { status: 'archived' } });
    const taker = await newOrg(s.client, { name: 'Taker', identifiers: { lei: 'abcdef1234567890xyz1' } });
    expect((await fail('directory.archiveOrg', { orgId: o.id, archived: false })).message).toBe(
      `orgId: its lei is now held by ${taker.id}; archive it, or merge the two (directory.proposeMerge)`,
    );
    const loser = await newOrg(s.client, { name: 'Merged Away' });
    await markMerged(s, loser.id, taker.id);
    const foreign = (await ok(other, 'directory.createOrg', { name: 'Theirs' })).org;
    const seq = await head(s.client);
    expect((await fail('directory.archiveOrg', { orgId: loser.id })).message).toBe(
      `organisation ${loser.id} was merged into ${taker.id}; write to ${taker.id} instead`,
    );
    expect((await fail('directory.archiveOrg', { orgId: foreign.id })).code).toBe('NOT_FOUND');
    expect((await fail('directory.archivePerson', { personId: 'per_nobody' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.archiveOrg', { orgId: o.id, archived: 'yes' })).message).toBe('archived: expected boolean, got string');
    expect((await fail('directory.archiveOrg', { orgId: o.id }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect((await fail('directory.archivePerson', { personId: 'per_nobody' }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.getPerson and getOrg', () => {
  it('the record with channels, links both ways, awareness; a merged id answers a tombstone; reads append nothing', async () => {
    const co = await newOrg(s.client, { name: 'Readable Co', channels: [{ kind: 'phone', value: '02 9999 0001' }] });
    const p = await newPerson(s.client, { given: 'Rita', family: 'Reader', worksAt: { orgId: co.id } });
    const loser = await newPerson(s.client, { given: 'Rita', family: 'Old' });
    await markMerged(s, loser.id, p.id);
    const seq = await head(s.client);
    const got = await call('directory.getOrg', { orgId: co.id });
    expect(got.org).toMatchObject({
      id: co.id,
      phone: '02 9999 0001',
      links: [{ relation: 'works_at', direction: 'in', other: { id: p.id, kind: 'person', displayName: 'Rita Reader' } }],
    });
    expect((await ok(s.client, 'directory.getPerson', { personId: p.id }, noWrite)).person).toMatchObject({ id: p.id, employer: { id: co.id } });
    const tomb = await call('directory.getPerson', { personId: loser.id });
    expect(tomb.person).toEqual({ id: loser.id, kind: 'person', status: 'merged', mergedInto: p.id, mergedAt: expect.any(String) });
    expect(await head(s.client)).toBe(seq);
    const foreign = (await ok(other, 'directory.createPerson', { given: 'Hidden' })).person;
    expect(await fail('directory.getPerson', { personId: foreign.id })).toEqual({ code: 'NOT_FOUND', message: `person ${foreign.id} not found` });
    expect((await fail('directory.getOrg', { orgId: 'co_missing' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.getPerson', { personId: co.id })).message).toMatch(/^personId: must be an id of the form per_/);
    expect((await fail('directory.getPerson', { personId: p.id }, noRead)).message).toMatch(/missing scope directory\.read for directory\.getPerson/);
    expect((await fail('directory.getOrg', { orgId: co.id }, noRead)).code).toBe('FORBIDDEN_SCOPE');
    expectOk('directory.getOrg', await s.client.rpc('directory.getOrg', { orgId: co.id }));
  });
});
