import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { onPostgres, type TestClient } from '../../helpers/harness.js';
import { err, eventsAfter, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newOrg, newPerson } from './kit.js';

/** directory.linkParty and unlinkParty (the canary server: its logs are checked too). */

const CANARY = 'zqlinkcanary4410';
let s: CanaryServer;
let other: TestClient;
let readOnly: string;
beforeAll(async () => {
  s = await canaryServer();
  other = await otherOrg(s);
  readOnly = await keyWith(s, ['org.read', 'directory.read']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>, key?: string) => ok(s.client, method, params, key);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);
const link = async (params: Record<string, unknown>) => (await call('directory.linkParty', params)).link;
const getPerson = async (personId: string) => (await call('directory.getPerson', { personId })).person;

describe('directory.linkParty', () => {
  it('works_at: the first is primary and sets the employer, primary:true moves it; the same link again is changed:false; one event each', async () => {
    const acme = await newOrg(s.client, { name: 'Acme Links' });
    const beta = await newOrg(s.client, { name: 'Beta Links' });
    const jane = await newPerson(s.client, { given: 'Jane', family: 'Linker' });
    const seq = await head(s.client);
    const first = await call('directory.linkParty', { fromId: jane.id, toId: acme.id, relation: 'works_at', role: 'CFO', since: '2020-01-01' });
    expect(first).toMatchObject({
      changed: true,
      link: { fromId: jane.id, toId: acme.id, relation: 'works_at', role: 'CFO', primary: true, since: '2020-01-01', until: null, status: 'active' },
    });
    expect((await getPerson(jane.id)).employer).toEqual({ id: acme.id, name: 'Acme Links' });
    const second = await link({ fromId: jane.id, toId: beta.id, relation: 'works_at' });
    expect(second.primary).toBe(false);
    const again = await call('directory.linkParty', { fromId: jane.id, toId: acme.id, relation: 'works_at', role: 'CFO' });
    expect(again).toMatchObject({ changed: false, link: { id: first.link.id } });
    const promoted = await call('directory.linkParty', { fromId: jane.id, toId: beta.id, relation: 'works_at', primary: true });
    expect(promoted).toMatchObject({ changed: true, link: { id: second.id, primary: true } });
    const after = await getPerson(jane.id);
    expect(after.employer).toEqual({ id: beta.id, name: 'Beta Links' });
    expect(after.version).toBe(4);
    expect(after.links.map((l: any) => [l.id, l.primary, l.direction])).toEqual([
      [second.id, true, 'out'],
      [first.link.id, false, 'out'],
    ]);
    // The organisation sees the link from its side.
    expect((await call('directory.getOrg', { orgId: acme.id })).org.links).toEqual([
      expect.objectContaining({ id: first.link.id, direction: 'in', other: { id: jane.id, kind: 'person', displayName: 'Jane Linker' } }),
    ]);
    const events = await eventsAfter(s.client, seq);
    const base = { fromId: jane.id, relation: 'works_at' };
    expect(events.map((e) => [e.kind, e.entity_id, e.payload])).toEqual([
      ['directory.link.create', first.link.id, { linkId: first.link.id, ...base, toId: acme.id, primary: true }],
      ['directory.link.create', second.id, { linkId: second.id, ...base, toId: beta.id, primary: false }],
      ['directory.link.create', first.link.id, { linkId: first.link.id, ...base, toId: acme.id, primary: true, noop: true }],
      ['directory.link.create', second.id, { linkId: second.id, ...base, toId: beta.id, primary: true }],
    ]);
  });

  it('an idempotency key replays the stored frame; another role on an active link is a CONFLICT naming the way forward', async () => {
    const co = await newOrg(s.client, { name: 'Replay Links' });
    const p = await newPerson(s.client, { given: 'Rep', family: 'Lay' });
    const firstRes = await s.client.rpc('directory.linkParty', { fromId: p.id, toId: co.id, relation: 'works_at', role: 'Buyer' }, { idem: 'link-replay-1' });
    const at = await head(s.client);
    const again = await s.client.rpc('directory.linkParty', { fromId: p.id, toId: co.id, relation: 'works_at', role: 'Buyer' }, { idem: 'link-replay-1' });
    expect(again.body.result).toEqual(firstRes.body.result);
    expect(await head(s.client)).toBe(at);
    const clash = await fail('directory.linkParty', { fromId: p.id, toId: co.id, relation: 'works_at', role: 'Head buyer' });
    expect(clash).toEqual({
      code: 'CONFLICT',
      message: `an active works_at link ${firstRes.body.result.link.id} between ${p.id} and ${co.id} has another role; end it (directory.unlinkParty) and link again`,
    });
    expect(await head(s.client)).toBe(at);
  });

  it('the other relations: kinds checked, reporting and subsidiary cycles refused, partner_of is the same link both ways', async () => {
    const [a, b, c2] = [await newPerson(s.client, { given: 'Ann' }), await newPerson(s.client, { given: 'Ben' }), await newPerson(s.client, { given: 'Cy' })];
    const [parent, sub, subsub] = [
      await newOrg(s.client, { name: 'Parent Group' }),
      await newOrg(s.client, { name: 'Sub One' }),
      await newOrg(s.client, { name: 'Sub Two' }),
    ];
    await link({ fromId: a.id, toId: b.id, relation: 'reports_to' });
    await link({ fromId: b.id, toId: c2.id, relation: 'reports_to' });
    await link({ fromId: c2.id, toId: a.id, relation: 'assistant_of' });
    await link({ fromId: sub.id, toId: parent.id, relation: 'subsidiary_of' });
    await link({ fromId: subsub.id, toId: sub.id, relation: 'subsidiary_of' });
    const partner = await link({ fromId: parent.id, toId: a.id, relation: 'partner_of' });
    await link({ fromId: a.id, toId: parent.id, relation: 'client_of', role: 'Account lead' });
    const seq = await head(s.client);
    expect(await fail('directory.linkParty', { fromId: c2.id, toId: a.id, relation: 'reports_to' })).toEqual({
      code: 'BAD_REQUEST',
      message: 'toId: would make a reporting cycle',
    });
    expect((await fail('directory.linkParty', { fromId: parent.id, toId: subsub.id, relation: 'subsidiary_of' })).message).toBe(
      'toId: would make a subsidiary cycle',
    );
    expect((await fail('directory.linkParty', { fromId: a.id, toId: b.id, relation: 'works_at' })).message).toBe('toId: works_at needs an organisation (co_…)');
    expect((await fail('directory.linkParty', { fromId: parent.id, toId: sub.id, relation: 'works_at' })).message).toBe(
      'fromId: works_at needs a person (per_…)',
    );
    expect((await fail('directory.linkParty', { fromId: a.id, toId: parent.id, relation: 'reports_to' })).message).toBe(
      'toId: reports_to needs a person (per_…)',
    );
    expect((await fail('directory.linkParty', { fromId: a.id, toId: sub.id, relation: 'subsidiary_of' })).message).toBe(
      'fromId: subsidiary_of needs an organisation (co_…)',
    );
    expect((await fail('directory.linkParty', { fromId: a.id, toId: a.id, relation: 'client_of' })).message).toBe('toId: a party cannot be linked to itself');
    expect((await fail('directory.linkParty', { fromId: a.id, toId: b.id, relation: 'reports_to', primary: true })).message).toBe(
      'primary: only a works_at link has a primary',
    );
    expect((await fail('directory.linkParty', { fromId: a.id, toId: b.id, relation: 'knows' })).message).toMatch(/^relation: must be one of "works_at"/);
    expect((await fail('directory.linkParty', { fromId: a.id, toId: b.id, relation: 'client_of', since: '2020-13-01' })).message).toBe(
      'since: must be a date YYYY-MM-DD',
    );
    expect(await head(s.client)).toBe(seq);
    // partner_of said the other way round is the link already made.
    expect(await call('directory.linkParty', { fromId: a.id, toId: parent.id, relation: 'partner_of' })).toMatchObject({
      changed: false,
      link: { id: partner.id },
    });
  });

  it('a merged target is followed to its survivor; a merged or archived from, an archived target, unknown and foreign ids and a missing scope are refused, appending nothing', async () => {
    const survivor = await newOrg(s.client, { name: 'Survivor Co' });
    const mergedOrg = await newOrg(s.client, { name: 'Merged Co' });
    await markMerged(s, mergedOrg.id, survivor.id);
    const p = await newPerson(s.client, { given: 'Follow', family: 'Me' });
    expect(await call('directory.linkParty', { fromId: p.id, toId: mergedOrg.id, relation: 'works_at' })).toMatchObject({
      changed: true,
      link: { toId: survivor.id },
    });
    const events = await eventsAfter(s.client, (await head(s.client)) - 1);
    expect(events[0].payload).toMatchObject({ toId: survivor.id, followedFrom: mergedOrg.id });
    const keeper = await newPerson(s.client, { given: 'Keeper' });
    const gone = await newPerson(s.client, { given: 'Gone' });
    await markMerged(s, gone.id, keeper.id);
    const shelved = await newOrg(s.client, { name: 'Shelved Co' });
    await call('directory.archiveOrg', { orgId: shelved.id });
    const archivedPerson = await newPerson(s.client, { given: 'Archived' });
    await call('directory.archivePerson', { personId: archivedPerson.id });
    const foreign = (await ok(other, 'directory.createOrg', { name: 'Theirs' })).org;
    const seq = await head(s.client);
    expect(await fail('directory.linkParty', { fromId: gone.id, toId: survivor.id, relation: 'works_at' })).toEqual({
      code: 'CONFLICT',
      message: `person ${gone.id} was merged into ${keeper.id}; write to ${keeper.id} instead`,
    });
    expect((await fail('directory.linkParty', { fromId: archivedPerson.id, toId: survivor.id, relation: 'works_at' })).message).toMatch(
      /is archived; restore it/,
    );
    expect(await fail('directory.linkParty', { fromId: p.id, toId: shelved.id, relation: 'works_at' })).toEqual({
      code: 'CONFLICT',
      message: `toId: organisation ${shelved.id} is archived; restore it (directory.archiveOrg with archived: false) first`,
    });
    expect(await fail('directory.linkParty', { fromId: p.id, toId: foreign.id, relation: 'works_at' })).toEqual({
      code: 'NOT_FOUND',
      message: `organisation ${foreign.id} not found`,
    });
    expect((await fail('directory.linkParty', { fromId: 'per_nobody', toId: survivor.id, relation: 'works_at' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.linkParty', { fromId: p.id, toId: survivor.id, relation: 'works_at', extra: 1 })).message).toBe('extra: unknown field');
    expect((await fail('directory.linkParty', { fromId: p.id, toId: survivor.id, relation: 'works_at' }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });

  it.skipIf(!onPostgres)(
    'racing links that together close a reporting loop (PostgreSQL only: skipped on PGlite, one connection): one wins, the other is refused',
    async () => {
      // Several rounds: a deadlock between the two (each holding the row the other's link points at) shows up as a CONFLICT.
      for (let round = 0; round < 5; round++) {
        const x = await newPerson(s.client, { given: 'Race', family: `X${round}` });
        const y = await newPerson(s.client, { given: 'Race', family: `Y${round}` });
        const results = await Promise.all([
          s.client.rpc('directory.linkParty', { fromId: x.id, toId: y.id, relation: 'reports_to' }),
          s.client.rpc('directory.linkParty', { fromId: y.id, toId: x.id, relation: 'reports_to' }),
        ]);
        expect(results.map((r) => r.status).sort(), results.map((r) => r.raw).join(' ')).toEqual([200, 400]);
        expect(results.find((r) => r.status === 400)!.body.error.message).toBe('toId: would make a reporting cycle');
      }
    },
  );
});

describe('directory.unlinkParty', () => {
  it('ends a link, keeping it as history; the next oldest works_at becomes primary and the employer follows; ended again is changed:false', async () => {
    const first = await newOrg(s.client, { name: 'First Employer' });
    const second = await newOrg(s.client, { name: 'Second Employer' });
    const p = await newPerson(s.client, { given: 'Mover', worksAt: { orgId: first.id } });
    const primary = (await getPerson(p.id)).links[0];
    const other2 = await link({ fromId: p.id, toId: second.id, relation: 'works_at', since: '2021-03-01' });
    const seq = await head(s.client);
    const ended = await call('directory.unlinkParty', { linkId: primary.id, until: '2024-12-31' });
    expect(ended).toMatchObject({ changed: true, newPrimaryId: other2.id, link: { id: primary.id, status: 'ended', until: '2024-12-31', primary: false } });
    expect(ended.link.endedAt).not.toBeNull();
    const now = await getPerson(p.id);
    expect(now.employer).toEqual({ id: second.id, name: 'Second Employer' });
    expect(now.links.map((l: any) => l.id)).toEqual([other2.id]);
    const again = await call('directory.unlinkParty', { linkId: primary.id });
    expect(again).toMatchObject({ changed: false, newPrimaryId: null, link: { status: 'ended', until: '2024-12-31' } });
    const last = await call('directory.unlinkParty', { linkId: other2.id });
    expect(last.link.until).toBe(new Date().toISOString().slice(0, 10));
    expect((await getPerson(p.id)).employer).toBeNull();
    // History: the ended links are still rows, and linking again makes a new one.
    const relinked = await link({ fromId: p.id, toId: first.id, relation: 'works_at' });
    expect(relinked.id).not.toBe(primary.id);
    const events = await eventsAfter(s.client, seq);
    const base = { fromId: p.id, relation: 'works_at' };
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['directory.link.end', { linkId: primary.id, ...base, toId: first.id, newPrimaryId: other2.id }],
      ['directory.link.end', { linkId: primary.id, ...base, toId: first.id, newPrimaryId: null, noop: true }],
      ['directory.link.end', { linkId: other2.id, ...base, toId: second.id, newPrimaryId: null }],
      ['directory.link.create', { linkId: relinked.id, ...base, toId: first.id, primary: true }],
    ]);
  });

  it('until before since, in the future, unknown and foreign links and a missing scope are refused, appending nothing; an archived party may end its links', async () => {
    const co = await newOrg(s.client, { name: 'Until Co' });
    const p = await newPerson(s.client, { given: 'Until' });
    const l = await link({ fromId: p.id, toId: co.id, relation: 'works_at', since: '2022-05-01' });
    const theirCo = (await ok(other, 'directory.createOrg', { name: 'Their Co' })).org;
    const theirs = (await ok(other, 'directory.createPerson', { given: 'Their', worksAt: { orgId: theirCo.id } })).person.links[0];
    const seq = await head(s.client);
    expect(await fail('directory.unlinkParty', { linkId: l.id, until: '2022-04-30' })).toEqual({
      code: 'BAD_REQUEST',
      message: "until: before the link's since (2022-05-01)",
    });
    expect((await fail('directory.unlinkParty', { linkId: l.id, until: '2999-01-01' })).message).toBe('until: in the future; a link ends on or before today');
    expect(await fail('directory.unlinkParty', { linkId: theirs.id })).toEqual({ code: 'NOT_FOUND', message: `link ${theirs.id} not found` });
    expect((await fail('directory.unlinkParty', { linkId: 'plk_nothing' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.unlinkParty', { linkId: 'per_x' })).message).toMatch(/^linkId: must be an id of the form plk_/);
    expect((await fail('directory.unlinkParty', { linkId: l.id }, readOnly)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
    await call('directory.archivePerson', { personId: p.id });
    expect((await call('directory.unlinkParty', { linkId: l.id })).changed).toBe(true);
  });
});

describe('directory links: the redaction canary', () => {
  it('no role reaches an event or a log line', async () => {
    const co = await newOrg(s.client, { name: `Canary Co ${CANARY}` });
    const p = await newPerson(s.client, { given: `Canary${CANARY}` });
    const l = await link({ fromId: p.id, toId: co.id, relation: 'works_at', role: `Role ${CANARY}` });
    await link({ fromId: p.id, toId: co.id, relation: 'client_of', role: `Client ${CANARY}` });
    expect((await fail('directory.linkParty', { fromId: p.id, toId: co.id, relation: 'works_at', role: `Other ${CANARY}` })).code).toBe('CONFLICT');
    await call('directory.unlinkParty', { linkId: l.id });
    expectNoCanary(CANARY, { ledger: await s.ledgerText(), logs: s.logs() });
  });
});
