import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS } from '../../../../domain/deployed.js';
import { METHODS } from '../../../../protocol/registry.js';
import { testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { head, otherOrg } from '../../../helpers/calls.js';

/*
 * The misuse rows every method of the ten people families shares (issue 17, "Done means"), run over all of them
 * from their contract examples: another org's id -> NOT_FOUND with nothing appended; an unknown field ->
 * BAD_REQUEST naming it; R methods append no event. Each family's own tests cover its wrong states and field
 * errors; this file makes sure none of the 34 methods was left out of the shared rows.
 */

const FAMILIES = ['member', 'team', 'hierarchy', 'profile', 'persona', 'user', 'admin', 'invitation', 'notification', 'billing'];
const PEOPLE = [...METHOD_HANDLERS.entries()].filter(([name]) => FAMILIES.includes(name.split('.')[0]));

/** The param naming the record a method acts on, by the id kind it takes. */
const SUBJECTS: Record<string, 'human' | 'agent' | 'team' | 'invitation' | 'section'> = {
  memberId: 'human',
  userId: 'human',
  agentId: 'agent',
  teamId: 'team',
  invitationId: 'invitation',
  sectionId: 'section',
};

let s: TestServer;
let other: TestClient;
/** Records of the other org, one per kind of subject. */
const foreign: Record<string, string> = {};

beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  foreign.human = (await other.ok('member.create', { name: 'Foreign Person' })).member.id;
  const who = await other.get('org/whoami');
  foreign.agent = (
    await other.ok('persona.generateAgentId', { name: 'Foreign agent', role: 'Clerk', goal: 'File things', sponsorId: who.body.principal.id })
  ).agent.id;
  foreign.team = (await other.ok('team.create', { name: 'Foreign team' })).team.id;
  foreign.invitation = (await other.ok('invitation.create', { email: 'foreign.invitee@example.com', role: 'member' })).invitation.id;
  foreign.section = (await other.ok('profile.addSection', { memberId: foreign.human, title: 'Foreign', body: 'Not yours.' })).section.id;
});
afterAll(() => s?.close());

/** The example with its subject id swapped for the other org's record of that kind (none: undefined). */
function foreignParams(example: Record<string, unknown>): Record<string, unknown> | undefined {
  const field = Object.keys(example).find((k) => k in SUBJECTS);
  if (!field) return undefined;
  const { ifVersion: _v, ...rest } = example;
  return { ...rest, [field]: foreign[SUBJECTS[field]] };
}

describe('people families: the shared misuse rows', () => {
  it('covers the 34 methods of the ten families', () => {
    expect(PEOPLE.map(([n]) => n).sort()).toEqual([...METHODS.keys()].filter((n) => FAMILIES.includes(n.split('.')[0])).sort());
    expect(PEOPLE).toHaveLength(34);
  });

  const withSubject = PEOPLE.filter(([, h]) => foreignParams(h.contract.example as Record<string, unknown>) !== undefined);

  it(`another org's id -> NOT_FOUND, nothing appended (${withSubject.length} methods that act on one record)`, async () => {
    expect(withSubject.length).toBeGreaterThanOrEqual(20);
    for (const [name, h] of withSubject) {
      const params = foreignParams(h.contract.example as Record<string, unknown>)!;
      const before = await head(s.client);
      const res = await s.client.rpc(name, params);
      expect(res.body.error?.code, `${name} ${JSON.stringify(params)}: ${res.raw.slice(0, 300)}`).toBe('NOT_FOUND');
      expect(res.status, name).toBe(404);
      expect(await head(s.client), `${name}: a refused call appends nothing`).toBe(before);
    }
  });

  it('an unknown field -> BAD_REQUEST naming it, for every method', async () => {
    for (const [name, h] of PEOPLE) {
      const res = await s.client.rpc(name, { ...(h.contract.example as object), surpriseField: 1 });
      expect(res.body.error?.code, `${name}: ${res.raw.slice(0, 300)}`).toBe('BAD_REQUEST');
      expect(res.body.error.message, name).toMatch(/surpriseField/);
    }
  });

  it('R methods append no event', async () => {
    const reads = PEOPLE.filter(([name]) => METHODS.get(name)!.flags.includes('R'));
    expect(reads.map(([n]) => n).sort()).toEqual([
      'member.get',
      'member.getEditorOptions',
      'member.list',
      'notification.getPreferences',
      'profile.get',
      'team.list',
    ]);
    const me = (await s.client.get('org/whoami')).body.principal.id;
    const before = await head(s.client);
    for (const [name, h] of reads) {
      const example = h.contract.example as Record<string, unknown>;
      const params = 'memberId' in example ? { ...example, memberId: me } : name === 'member.getEditorOptions' ? {} : example;
      const res = await s.client.rpc(name, params);
      expect(res.body.ok, `${name}: ${res.raw.slice(0, 300)}`).toBe(true);
    }
    expect(await head(s.client)).toBe(before);
  });
});
