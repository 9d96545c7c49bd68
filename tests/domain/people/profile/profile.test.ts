import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../../helpers/calls.js';

/** profile.*: fields, phone as E.164, links, expertise, working hours, sections; who may write whose. */

const CANARY = 'CANARY-7f3a-profile';

let s: TestServer;
let me: string;
let human: { apiKey: string; principal: { id: string } };
let agent: { apiKey: string; principal: { id: string } };
let other: TestClient;
beforeAll(async () => {
  s = await testServer();
  me = (await s.client.get('org/whoami')).body.principal.id;
  human = await s.client.mint({ scopes: ['org.read', 'org.write'], principalKind: 'human' }, 'colleague');
  agent = await s.client.mint({ tier: 'agent' }, 'bot');
  other = await otherOrg(s);
});
afterAll(() => s.close());

const ok = async (method: string, params: Record<string, unknown>, key?: string, idem?: string) =>
  expectOk(method, await s.client.rpc(method, params, { key, idem }));
const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;

describe('profile fields', () => {
  it('a member who never wrote one has an empty profile at version 1', async () => {
    const { profile } = await ok('profile.get', { memberId: me });
    expect(profile).toMatchObject({
      memberId: me,
      headline: null,
      phone: null,
      links: [],
      expertise: [],
      workingHours: null,
      avatar: null,
      sections: [],
      version: 1,
      updatedAt: null,
    });
  });

  it('update: phone to E.164, links, expertise deduplicated, working hours; one event naming the fields only', async () => {
    const before = await head(s.client);
    const res = await ok('profile.update', {
      memberId: me,
      headline: `Close lead ${CANARY}`,
      bio: `Loves ledgers. ${CANARY}`,
      pronouns: `they/them ${CANARY}`,
      phone: '+49 30 901820',
      links: [{ label: `GitHub ${CANARY}`, url: `https://github.com/${CANARY}` }],
      expertise: ['Payables', 'payables', ` ${CANARY} `],
      workingHours: {
        mon: [
          { start: '09:00', end: '12:00' },
          { start: '13:00', end: '17:30' },
        ],
        sat: [],
      },
    });
    expect(res.changed).toBe(true);
    expect(res.profile).toMatchObject({ phone: '+4930901820', expertise: ['Payables', CANARY], version: 2 });
    expect(res.profile.workingHours.days).toEqual({
      mon: [
        { start: '09:00', end: '12:00' },
        { start: '13:00', end: '17:30' },
      ],
    });
    const events = await eventsAfter(s.client, before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'profile.fields.update', entity_id: me });
    expect(events[0].payload.fields).toEqual(['headline', 'bio', 'pronouns', 'phone', 'links', 'expertise', 'workingHours']);
    expect(JSON.stringify(events[0])).not.toContain(CANARY);
    expect(JSON.stringify(events[0])).not.toContain('901820');
  });

  it('the same values again: changed false, an event with noop; null clears a field', async () => {
    const before = await head(s.client);
    const same = await ok('profile.update', { memberId: me, phone: '+4930901820', expertise: ['Payables', CANARY] });
    expect(same.changed).toBe(false);
    const cleared = await ok('profile.update', { memberId: me, pronouns: null, ifVersion: 2 });
    expect(cleared).toMatchObject({ changed: true, profile: { pronouns: null, version: 3 } });
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.payload.noop ?? false, e.payload.fields])).toEqual([
      ['profile.fields.update', true, []],
      ['profile.fields.update', false, ['pronouns']],
    ]);
  });

  it('bad input -> BAD_REQUEST naming the field, stale ifVersion -> CONFLICT; nothing appended', async () => {
    const seq = await head(s.client);
    expect((await err('profile.update', { memberId: me, phone: '12345' })).message).toMatch(/^phone: not a valid phone number/);
    expect((await err('profile.update', { memberId: me, phone: '+1 555' })).message).toMatch(/^phone: /);
    expect((await err('profile.update', { memberId: me, links: [{ label: 'x', url: 'http://example.com' }] })).message).toMatch(
      /^links\.0\.url: must be an https/,
    );
    expect((await err('profile.update', { memberId: me, links: Array(11).fill({ label: 'x', url: 'https://a.example' }) })).message).toMatch(
      /^links: must be at most 10/,
    );
    expect((await err('profile.update', { memberId: me, expertise: Array.from({ length: 31 }, (_, i) => `t${i}`) })).message).toMatch(/^expertise: /);
    expect((await err('profile.update', { memberId: me, workingHours: { mon: [{ start: '10:00', end: '09:00' }] } })).message).toMatch(
      /end must be after start/,
    );
    expect(
      (
        await err('profile.update', {
          memberId: me,
          workingHours: {
            mon: [
              { start: '09:00', end: '12:00' },
              { start: '11:00', end: '13:00' },
            ],
          },
        })
      ).message,
    ).toMatch(/^workingHours\.mon\.1: /);
    expect((await err('profile.update', { memberId: me, workingHours: { someday: [] } })).message).toMatch(/^workingHours\.someday: unknown field/);
    expect((await err('profile.update', { memberId: me, colour: 'red' })).message).toMatch(/^colour: unknown field/);
    expect((await err('profile.update', { memberId: me, headline: 'x', ifVersion: 1 })).code).toBe('CONFLICT');
    expect(await head(s.client)).toBe(seq);
  });

  it('own profile or an agent’s; another human’s needs the admin scope (FORBIDDEN_SCOPE saying why)', async () => {
    expect((await ok('profile.update', { memberId: human.principal.id, headline: 'mine' }, human.apiKey)).changed).toBe(true);
    expect((await ok('profile.update', { memberId: agent.principal.id, headline: 'the bot' }, human.apiKey)).changed).toBe(true);
    const denied = await err('profile.update', { memberId: me, headline: 'hijack' }, human.apiKey);
    expect(denied.code).toBe('FORBIDDEN_SCOPE');
    expect(denied.message).toMatch(/^missing scope admin for profile\.update: usr_\w+ is another human's profile/);
    expect((await err('profile.addSection', { memberId: me, title: 't', body: 'b' }, agent.apiKey)).code).toBe('FORBIDDEN_SCOPE');
    expect((await ok('profile.update', { memberId: agent.principal.id, pronouns: 'it' }, agent.apiKey)).changed).toBe(true);
    // The admin may change anyone's; everyone with org.read may read.
    expect((await ok('profile.update', { memberId: human.principal.id, headline: 'set by admin' })).changed).toBe(true);
    expect((await ok('profile.get', { memberId: me }, human.apiKey)).profile.headline).toContain('Close lead');
  });

  it("unknown or another org's member -> NOT_FOUND; an archived one -> CONFLICT", async () => {
    const foreign = expectOk('member.create', await other.rpc('member.create', { name: 'Foreign' })).member;
    for (const id of [foreign.id, 'usr_unknown1']) {
      expect((await err('profile.get', { memberId: id })).code).toBe('NOT_FOUND');
      expect((await err('profile.update', { memberId: id, headline: 'x' })).code).toBe('NOT_FOUND');
      expect((await err('profile.addSection', { memberId: id, title: 'x', body: 'y' })).code).toBe('NOT_FOUND');
    }
    const gone = (await ok('member.create', { name: 'Leaver' })).member;
    await ok('member.archive', { memberId: gone.id });
    expect((await err('profile.update', { memberId: gone.id, headline: 'x' })).message).toMatch(/archived/);
  });
});

describe('profile sections', () => {
  it('add (idempotent by key), insert at a position, move, delete to a tombstone; events carry no text', async () => {
    const subject = (await ok('member.create', { name: 'Section Person' })).member.id;
    const before = await head(s.client);
    const a = (await ok('profile.addSection', { memberId: subject, title: `A ${CANARY}`, body: `# a\n${CANARY}` }, undefined, 'psec-a')).section;
    const replay = await s.client.rpc('profile.addSection', { memberId: subject, title: `A ${CANARY}`, body: `# a\n${CANARY}` }, { idem: 'psec-a' });
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body.result.section.id).toBe(a.id);
    expect(a.id).toMatch(/^psec_/);
    const b = (await ok('profile.addSection', { memberId: subject, title: 'B', body: 'b' })).section;
    const c = (await ok('profile.addSection', { memberId: subject, title: 'C', body: 'c', position: 0 })).section;
    expect(c.position).toBe(0);
    let order = (await ok('profile.get', { memberId: subject })).profile.sections.map((x: { id: string }) => x.id);
    expect(order).toEqual([c.id, a.id, b.id]);
    const moved = await ok('profile.updateSection', { sectionId: c.id, position: 2, body: `moved ${CANARY}` });
    expect(moved).toMatchObject({ changed: true, section: { position: 2, version: 2 } });
    order = (await ok('profile.get', { memberId: subject })).profile.sections.map((x: { id: string }) => x.id);
    expect(order).toEqual([a.id, b.id, c.id]);
    expect((await ok('profile.updateSection', { sectionId: b.id, title: 'B' })).changed).toBe(false);
    const del = await ok('profile.deleteSection', { sectionId: a.id });
    expect(del.section).toMatchObject({ status: 'deleted', title: '', body: '' });
    expect((await ok('profile.deleteSection', { sectionId: a.id })).changed).toBe(false);
    expect((await err('profile.updateSection', { sectionId: a.id, body: 'x' })).code).toBe('CONFLICT');
    const live = (await ok('profile.get', { memberId: subject })).profile.sections;
    expect(live.map((x: { id: string; position: number }) => [x.id, x.position])).toEqual([
      [b.id, 0],
      [c.id, 1],
    ]);
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => e.kind)).toEqual([
      'profile.section.add',
      'profile.section.add',
      'profile.section.add',
      'profile.section.update',
      'profile.section.update',
      'profile.section.delete',
      'profile.section.delete',
    ]);
    expect(events[4].payload.noop).toBe(true);
    expect(events[6].payload.noop).toBe(true);
    expect(JSON.stringify(events)).not.toContain(CANARY);
  });

  it('at most 20 live sections (CONFLICT saying what to do); unknown section -> NOT_FOUND', async () => {
    const subject = (await ok('member.create', { name: 'Many Sections' })).member.id;
    for (let i = 0; i < 20; i++) await ok('profile.addSection', { memberId: subject, title: `S${i}`, body: '' });
    const full = await err('profile.addSection', { memberId: subject, title: 'one more', body: '' });
    expect(full.code).toBe('CONFLICT');
    expect(full.message).toMatch(/20 sections.*delete one/);
    expect((await err('profile.updateSection', { sectionId: 'psec_nope', body: 'x' })).code).toBe('NOT_FOUND');
    expect((await err('profile.deleteSection', { sectionId: 'task_nope' })).message).toMatch(/^sectionId: must be an id of the form psec_/);
  });

  it('no event of the org shows the canary', async () => {
    expect(JSON.stringify(await allEvents(s.client))).not.toContain(CANARY);
  });
});
