import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, head, ok } from '../../../helpers/calls.js';
import { ownerOf, person, type Person } from '../../../helpers/people.js';

/*
 * The governance test kit beyond decisions: people of known standing for the charter, compacts and policies, an
 * agent with a sponsor (persona.generateAgentId, then a key for it), and the ledger around one call.
 */

/** A human who writes the charter and decides approvals, without the admin scope. */
export const CHARTER_DECIDER = ['org.read', 'org.write', 'charter.write', 'decision.write', 'approval.request', 'approval.decide'];

export interface GovOrg {
  s: TestServer;
  /** The org's admin (s.client's key). */
  admin: Person;
  ceo: Person;
  cfo: Person;
  /** A human who writes the charter but cannot decide approvals. */
  staff: Person;
  agent: Person;
  agent2: Person;
  reader: Person;
}

export async function govOrg(): Promise<GovOrg> {
  const s = await testServer();
  return {
    s,
    admin: await ownerOf(s),
    ceo: await person(s, 'Cleo CEO', { scopes: CHARTER_DECIDER, principalKind: 'human' }),
    cfo: await person(s, 'Carl CFO', { scopes: CHARTER_DECIDER, principalKind: 'human' }),
    staff: await person(s, 'Stan Staff', { scopes: ['org.read', 'org.write', 'charter.write', 'decision.write', 'approval.request'], principalKind: 'human' }),
    agent: await person(s, 'charter agent', { tier: 'agent' }),
    agent2: await person(s, 'ops agent', { tier: 'agent' }),
    reader: await person(s, 'reader', { tier: 'reader' }),
  };
}

/** An agent sponsored by `sponsorId`, with an agent key. */
export async function sponsoredAgent(s: TestServer, sponsorId: string, name = 'Sponsored Bot'): Promise<Person> {
  const gen = await ok(s, 'persona.generateAgentId', { name, role: 'Clerk', goal: 'Keep the books tidy', sponsorId });
  const minted = await s.client.mint({ tier: 'agent', principalId: gen.agent.id } as never, `${name} key`);
  return { id: gen.agent.id, key: minted.apiKey };
}

/** Run `fn` and return the events it appended. */
export async function appended(s: TestServer, fn: () => Promise<unknown>): Promise<any[]> {
  const seq = await head(s.client);
  await fn();
  return eventsAfter(s.client, seq);
}

/** charter.get as a caller. */
export const charterGet = (s: TestServer, params: Record<string, unknown> = {}, key?: string) => ok(s, 'charter.get', params, key);
