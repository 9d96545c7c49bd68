import { mutate, ok, otherOrg } from '../../helpers/calls.js';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { ownerOf, person, type Person } from '../../helpers/people.js';

/*
 * The calendar family's org, shared by the events, find-a-time, iTIP and meetings tests: humans and agents in known
 * zones, an agent sponsored by a human, a reader key and another org; and the words to make events and check calls.
 * Keep these exports stable: four helpers build on them.
 */

export interface CalOrg {
  s: TestServer;
  /** The org's creator (admin), Europe/London. */
  owner: Person;
  /** Member, Europe/Berlin. */
  berlin: Person;
  /** Member, America/New_York. */
  newYork: Person;
  /** Member, Australia/Sydney. */
  sydney: Person;
  /** Agent, sponsored by berlin, zone Europe/Berlin. */
  agent: Person;
  /** A second agent with no sponsor. */
  loneAgent: Person;
  /** The viewer tier: calendar.read, no write. */
  viewer: Person;
  /** Another org's admin client (NOT_FOUND checks). */
  other: TestClient;
}

/** Run SQL on the test database (fixtures only: sponsors and zones the API sets elsewhere). */
export const sql = (s: TestServer, text: string, args: unknown[] = []) => s.runtime.db.query(text, args);

/** Set a member's zone (member.timezone). */
export const setZone = (s: TestServer, who: Person, zone: string) =>
  sql(s, 'UPDATE principals SET timezone = $3 WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, who.id, zone]);

/** Make `sponsor` the sponsor of `agent` (what persona.generateAgentId records). */
export const setSponsor = (s: TestServer, agent: Person, sponsor: Person) =>
  sql(s, 'UPDATE principals SET sponsor_id = $3 WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, agent.id, sponsor.id]);

/** Give a member a work email (members receive invitations there when notify is all). */
export const setEmail = (s: TestServer, who: Person, email: string) =>
  sql(s, 'UPDATE principals SET email = $3 WHERE org_id = $1 AND principal_id = $2', [s.org.orgId, who.id, email]);

export async function calOrg(opts: Parameters<typeof testServer>[0] = {}): Promise<CalOrg> {
  const s = await testServer(opts);
  const o: CalOrg = {
    s,
    owner: await ownerOf(s),
    berlin: await person(s, 'Bea Berlin', { tier: 'member' }),
    newYork: await person(s, 'Ned York', { tier: 'member' }),
    sydney: await person(s, 'Syd Ney', { tier: 'member' }),
    agent: await person(s, 'Cal Agent', { tier: 'agent' }),
    loneAgent: await person(s, 'Lone Agent', { tier: 'agent' }),
    viewer: await person(s, 'Vera Viewer', { tier: 'viewer' }),
    other: await otherOrg(s),
  };
  await setZone(s, o.owner, 'Europe/London');
  await setZone(s, o.berlin, 'Europe/Berlin');
  await setZone(s, o.newYork, 'America/New_York');
  await setZone(s, o.sydney, 'Australia/Sydney');
  await setZone(s, o.agent, 'Europe/Berlin');
  await setSponsor(s, o.agent, o.berlin);
  return o;
}

/** A timed start or end: wall clock in a zone. */
export const at = (dateTime: string, timeZone: string) => ({ dateTime, timeZone });
/** An all-day start or end. */
export const day = (date: string) => ({ date });

/** Create an event as `who` (default the owner) through calendar.create: the whole result ({event, conflicts, invitations}). */
export async function createEvent(o: { s: TestServer; owner: Person }, params: Record<string, unknown>, who?: Person) {
  const { result } = await mutate(o.s, 'calendar.create', { title: 'Planning', notify: 'none', ...params }, 'calendar.event.create', {
    key: (who ?? o.owner).key,
  });
  return result;
}

/** A one-hour timed event in a zone (default Europe/Berlin) at a wall clock: the event. */
export async function hourAt(o: { s: TestServer; owner: Person }, wall: string, extra: Record<string, unknown> = {}, who?: Person, zone = 'Europe/Berlin') {
  const end = new Date(new Date(`${wall}Z`).getTime() + 3_600_000).toISOString().slice(0, 19);
  return (await createEvent(o, { start: at(wall, zone), end: at(end, zone), ...extra }, who)).event;
}

/** calendar.list singleEvents over a window as `who`: the items. */
export async function listItems(o: { s: TestServer }, from: string, to: string, extra: Record<string, unknown> = {}, key?: string) {
  return (await ok(o.s, 'calendar.list', { from, to, singleEvents: true, ...extra }, key)).items as any[];
}
