import { clientOf, ok, type Caller } from './calls.js';
import { testServer, type TestServer } from './harness.js';

/** People of known standing for the family tests, and the decision rights that name them. */

/** A member of the test org with a key of its own: its principal id and the key. */
export interface Person {
  id: string;
  key: string;
}

/** Mint a key for a new member (a tier, or explicit scopes and kind). */
export async function person(on: Caller, name: string, spec: { tier: string } | { scopes: string[]; principalKind: 'human' | 'agent' }): Promise<Person> {
  const minted = await clientOf(on).mint(spec, name);
  return { id: minted.principal.id, key: minted.apiKey };
}

/** The org's creator: the admin human whose key the caller's client holds. */
export async function ownerOf(on: Caller): Promise<Person> {
  const client = clientOf(on);
  return { id: (await client.get('org/whoami')).body.principal.id as string, key: client.defaultKey };
}

/** The usual people: the org's admin (its creator), two members, an agent and a read-only viewer. */
export interface Cast {
  s: TestServer;
  owner: Person;
  mia: Person;
  max: Person;
  agent: Person;
  /** The viewer tier: every read scope, no write. */
  viewer: Person;
}

/** opts: the test server's (a family's settings, an AI clock). */
export async function castServer(opts: Parameters<typeof testServer>[0] = {}): Promise<Cast> {
  const s = await testServer(opts);
  return {
    s,
    owner: await ownerOf(s),
    mia: await person(s, 'Mia Member', { tier: 'member' }),
    max: await person(s, 'Max Member', { tier: 'member' }),
    agent: await person(s, 'Agent A', { tier: 'agent' }),
    viewer: await person(s, 'Vera Viewer', { tier: 'viewer' }),
  };
}

/** Declare the org's decision rights (governance.set_decision_rights). */
export async function setRights(on: Caller, rights: unknown[]): Promise<void> {
  await ok(on, 'governance.set_decision_rights', { rights });
}
