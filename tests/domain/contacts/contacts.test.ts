import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { err, eventsAfter, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newOrg, newPerson } from '../directory/kit.js';

/** contacts.upsert and GET /contacts.list: find-or-add a party by email or phone; the sync read by last change. */

let s: TestServer;
let other: TestClient;
let noKnowledge: string;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  noKnowledge = await keyWith(s, ['org.read', 'org.write', 'directory.read', 'directory.write']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>) => ok(s.client, method, params);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);
const upsert = (params: Record<string, unknown>) => call('contacts.upsert', { source: 'meetings', ...params });
const sync = async (query: Record<string, string | number>, key?: string) => {
  const res = await s.client.get('contacts.list', query, { key });
  return res;
};

describe('contacts.upsert', () => {
  it('creates a person with a stand-in name; the same address again matches (its key), a name fills the stand-in, never renames', async () => {
    const seq = await head(s.client);
    const made = await upsert({ email: 'Kai.Moana@Gmail.com' });
    expect(made).toMatchObject({
      created: true,
      matchedBy: null,
      filled: [],
      changed: true,
      contact: { kind: 'person', name: 'Kai.Moana@Gmail.com', email: 'Kai.Moana@Gmail.com' },
    });
    const id = made.contact.id;
    expect((await call('directory.getPerson', { personId: id })).person).toMatchObject({
      origin: 'contacts',
      channels: [expect.objectContaining({ source: 'contacts' })],
    });
    // Gmail folds dots and +tags: the same mailbox.
    const named = await upsert({ email: 'kaimoana+work@googlemail.com', name: 'Kai Moana', organisation: 'Tidewater Surf Co', source: 'email' });
    expect(named).toMatchObject({ created: false, matchedBy: 'email', filled: ['name', 'organisation'], changed: true });
    expect(named.contact).toMatchObject({ id, name: 'Kai Moana', organisation: 'Tidewater Surf Co', email: 'Kai.Moana@Gmail.com' });
    const renamed = await upsert({ email: 'kai.moana@gmail.com', name: 'Someone Else', organisation: 'Other Co' });
    expect(renamed).toMatchObject({
      created: false,
      matchedBy: 'email',
      filled: [],
      changed: false,
      contact: { name: 'Kai Moana', organisation: 'Tidewater Surf Co' },
    });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.entity_id, e.payload])).toEqual([
      [
        'contacts.party.upsert',
        id,
        {
          partyId: id,
          kind: 'person',
          created: true,
          matchedBy: null,
          filled: [],
          source: 'meetings',
          channels: 1,
          worksAt: null,
          employerCreated: false,
          possibleDuplicates: [],
          version: 1,
        },
      ],
      [
        'contacts.party.upsert',
        id,
        {
          partyId: id,
          kind: 'person',
          created: false,
          matchedBy: 'email',
          source: 'email',
          filled: ['name', 'organisation'],
          worksAt: named.contact.organisationId,
          version: 2,
        },
      ],
      [
        'contacts.party.upsert',
        id,
        { partyId: id, kind: 'person', created: false, matchedBy: 'email', source: 'meetings', filled: [], version: 2, noop: true },
      ],
    ]);
  });

  it('matches the one active person holding a phone; two holders or an organisation only: a new person; fills the email', async () => {
    const solo = await newPerson(s.client, { given: 'Rangi', family: 'Parata', channels: [{ kind: 'phone', value: '0412 555 301' }] });
    const byPhone = await upsert({ phone: '+61 412 555 301', email: 'rangi@parata.example' });
    expect(byPhone).toMatchObject({
      created: false,
      matchedBy: 'phone',
      filled: ['email'],
      contact: { id: solo.id, name: 'Rangi Parata', email: 'rangi@parata.example' },
    });
    await newPerson(s.client, { given: 'Twin', family: 'One', channels: [{ kind: 'phone', value: '0412 555 302' }] });
    await newPerson(s.client, { given: 'Twin', family: 'Two', channels: [{ kind: 'phone', value: '0412 555 302' }] });
    const shared = await upsert({ phone: '0412555302', name: 'Twin Three' });
    expect(shared).toMatchObject({ created: true, contact: { name: 'Twin Three', phone: '0412555302' } });
    expect(shared.contact.id).toMatch(/^per_/);
    // An email an organisation holds matches the organisation (persons first, then organisations).
    const co = await newOrg(s.client, { name: 'Shoreline Books', channels: [{ kind: 'email', value: 'hello@shoreline-books.example' }] });
    expect(await upsert({ email: 'HELLO@shoreline-books.example', name: 'Reception' })).toMatchObject({
      created: false,
      matchedBy: 'email',
      filled: [],
      contact: { id: co.id, kind: 'org' },
    });
    // A merged holder: its survivor.
    const loser = await newPerson(s.client, { given: 'Old', family: 'Record', channels: [{ kind: 'email', value: 'old.record@merge.example' }] });
    const survivor = await newPerson(s.client, { given: 'New', family: 'Record' });
    await markMerged(s, loser.id, survivor.id);
    expect((await upsert({ email: 'old.record@merge.example' })).contact.id).toBe(survivor.id);
  });

  it('an I replay answers the stored frame; misuse: neither email nor phone, bad values, an archived holder, scope; nothing appended', async () => {
    const first = await s.client.rpc('contacts.upsert', { email: 'replay@upsert.example', source: 'calendar' }, { idem: 'upsert-1' });
    const at = await head(s.client);
    const again = await s.client.rpc('contacts.upsert', { email: 'replay@upsert.example', source: 'calendar' }, { idem: 'upsert-1' });
    expect(again.body.result).toEqual(first.body.result);
    expect(await head(s.client)).toBe(at);
    const archived = await newPerson(s.client, { given: 'Arch', family: 'Ived', channels: [{ kind: 'email', value: 'arch@ived.example' }] });
    await call('directory.archivePerson', { personId: archived.id });
    const seq = await head(s.client);
    expect((await fail('contacts.upsert', { name: 'X', source: 'email' })).message).toBe('email: an email or a phone is required');
    expect((await fail('contacts.upsert', { email: 'x@y.example' })).message).toBe('source: required');
    expect((await fail('contacts.upsert', { email: 'x@y.example', source: 'gossip' })).message).toMatch(/^source: must be one of/);
    expect(await fail('contacts.upsert', { email: 'nope', source: 'email' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'email: not a valid email address',
    });
    expect(await fail('contacts.upsert', { phone: '999', source: 'email' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'phone: not a valid AU phone number',
    });
    expect(await fail('contacts.upsert', { email: 'ARCH@ived.example', source: 'email' })).toEqual({
      code: 'CONFLICT',
      message: `email: held by person ${archived.id}, which is archived; restore it (directory.archivePerson with archived: false) first`,
    });
    expect((await fail('contacts.upsert', { email: 'x@y.example', source: 'email', title: 'CEO' })).message).toBe('title: unknown field');
    expect(await fail('contacts.upsert', { email: 'x@y.example', source: 'email' }, noKnowledge)).toEqual({
      code: 'FORBIDDEN_SCOPE',
      message: 'missing scope knowledge.write for contacts.upsert',
    });
    expect(await head(s.client)).toBe(seq);
  });
});

describe.skipIf(!onPostgres)('contacts.upsert under concurrency (PostgreSQL; on PGlite one connection serialises every call, so it is skipped)', () => {
  it('eight upserts of one new address at once make one person; the others match it', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.client.rpc('contacts.upsert', { email: `race.${i % 2 ? 'A' : 'a'}@concurrent.example`, source: 'email' })),
    );
    const ok = results.map((r) => r.body.result);
    expect(results.every((r) => r.body.ok)).toBe(true);
    expect(ok.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(ok.map((r) => r.contact.id)).size).toBe(1);
  });

  it('two contact.adds naming one new organisation at once make one organisation', async () => {
    const results = await Promise.all([0, 1, 2, 3].map((i) => s.client.rpc('contact.add', { name: `Racer ${i}`, organisation: 'Brand New Racing Org' })));
    expect(results.every((r) => r.body.ok)).toBe(true);
    expect(new Set(results.map((r) => r.body.result.contact.organisationId)).size).toBe(1);
  });
});

describe('GET /contacts.list', () => {
  it('orders by (updatedAt, id); updatedSince brings archived contacts and merged tombstones; cursors; no event', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const t = Date.now().toString(36);
    const a = (await upsert({ email: `sync.a.${t}@sync.example`, name: `Sync Alpha ${t}` })).contact;
    const b = (await upsert({ email: `sync.b.${t}@sync.example`, name: `Sync Beta ${t}` })).contact;
    const c = (await upsert({ email: `sync.c.${t}@sync.example`, name: `Sync Gamma ${t}` })).contact;
    await call('contact.delete', { id: b.id });
    await markMerged(s, c.id, a.id);
    const seq = await head(s.client);
    const pages: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await sync({ updatedSince: since, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.raw).toBe(200);
      pages.push(...res.body.contacts);
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    const ids = pages.map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    // In change order: updatedAt never goes back (rows within one millisecond are ordered by the microseconds the
    // database keeps, which the cursor carries, so their ids need not be in order).
    const times = pages.map((x) => x.updatedAt);
    expect(times).toEqual([...times].sort());
    expect(pages.find((x) => x.id === a.id)).toMatchObject({ name: `Sync Alpha ${t}`, archived: false });
    expect(pages.find((x) => x.id === b.id)).toMatchObject({ archived: true });
    expect(pages.find((x) => x.id === c.id)).toEqual({ id: c.id, kind: 'person', merged: true, mergedInto: a.id, updatedAt: expect.any(String) });
    // Without updatedSince: active only. q narrows by name or by email.
    const active = await sync({ q: `sync ${t}`, limit: 500 });
    expect(active.body.contacts.map((x: any) => x.id)).toEqual([a.id]);
    expect((await sync({ q: `SYNC.A.${t}@sync.example` })).body.contacts.map((x: any) => x.id)).toEqual([a.id]);
    expect((await sync({ q: `Sync Alpah ${t}` })).body.contacts.map((x: any) => x.id)).toContain(a.id);
    expect(await head(s.client)).toBe(seq);
  });

  it('misuse: bad updatedSince, cursor, limit 501, unknown field, missing scope; another org sees none', async () => {
    expect((await sync({ updatedSince: 'yesterday' })).body.error.message).toMatch(/^updatedSince: must be an ISO 8601 date-time/);
    expect((await sync({ cursor: 'bogus' })).body.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'query.cursor: not a cursor this list returned (with these params)',
    });
    expect((await sync({ limit: 501 })).body.error.message).toBe('limit: must be at most 500');
    expect((await sync({ tag: 'x' })).body.error.message).toBe('tag: unknown field');
    const denied = await sync({}, noKnowledge);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'FORBIDDEN_SCOPE' });
    const foreign = await other.get('contacts.list', { updatedSince: '2000-01-01T00:00:00Z', limit: 500 });
    expect(foreign.body.contacts).toEqual([]);
  });
});
