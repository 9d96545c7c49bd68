import { expect } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { eventsAfter, head } from '../../helpers/calls.js';
import { ok, person, type Person } from '../decision/setup.js';

/*
 * The governance test kit beyond decisions: people of known standing for the charter, compacts and policies, an
 * agent with a sponsor (persona.generateAgentId, then a key for it), and the ledger around one call.
 */

export { approved, err, file, held, ok, person, proposal, record, rpc, setRights, type Person } from '../decision/setup.js';

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
  const who = (await s.client.get('org/whoami')).body;
  return {
    s,
    admin: { id: who.principal.id, key: s.org.adminKey },
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

/** Run a call that must be refused: the error, and nothing appended. */
export async function refusedQuietly(s: TestServer, method: string, params: unknown, key: string | undefined, code: string, message?: string | RegExp) {
  const seq = await head(s.client);
  const res = await s.client.rpc(method, params, { key });
  expect(res.body.ok, `${method} should fail: ${res.raw.slice(0, 300)}`).toBe(false);
  expect(res.body.error.code, res.raw.slice(0, 300)).toBe(code);
  if (typeof message === 'string') expect(res.body.error.message).toBe(message);
  else if (message) expect(res.body.error.message).toMatch(message);
  expect(await head(s.client), `${method} refused but appended`).toBe(seq);
  return res.body.error;
}

/** charter.get as a caller. */
export const charterGet = (s: TestServer, params: Record<string, unknown> = {}, key?: string) => ok(s, 'charter.get', params, key);
