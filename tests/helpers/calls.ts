import { expect } from 'vitest';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { TestClient, freshOrg, testServer, type TestServer } from './harness.js';

/** Call checks shared by the family test kits: results against the contract, the ledger head, other orgs. */

type Res = { status: number; body: any; raw: string; headers: Record<string, unknown> };

/** The result of a successful call, checked against the method's contract result schema. */
export function expectOk(method: string, res: Res): any {
  expect(res.status, `${method}: ${res.raw.slice(0, 500)}`).toBe(200);
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 500)}`).toBe(true);
  const schema = METHOD_HANDLERS.get(method)?.contract.result;
  expect(schema, `${method} has a result schema`).toBeDefined();
  const parsed = schema!.safeParse(res.body.result);
  expect(parsed.error?.issues ?? [], `${method} result matches its contract`).toEqual([]);
  return res.body.result;
}

export async function head(client: TestClient, key?: string): Promise<number> {
  const snap = await client.get('snapshot', {}, { key });
  expect(snap.status).toBe(200);
  return snap.body.head.seq as number;
}

/** Events appended after `afterSeq`. */
export async function eventsAfter(client: TestClient, afterSeq: number, key?: string): Promise<any[]> {
  const page = await client.get('events', { cursor: afterSeq, limit: 500 }, { key });
  expect(page.status).toBe(200);
  return page.body.events;
}

/** A second org with its own admin client, for another-org -> NOT_FOUND checks. */
export async function otherOrg(s: TestServer): Promise<TestClient> {
  const org = await freshOrg(s.runtime, 'other');
  return new TestClient(s.app, org.adminKey);
}

/* Calls against a test server for the family kits: each checks what the ledger gained. */

export const rpc = (s: TestServer, method: string, params: unknown, key?: string, idem?: string) => s.client.rpc(method, params, { key, idem });

/** A call that must succeed, checked against its contract. */
export async function ok(s: TestServer, method: string, params: unknown, key?: string, idem?: string): Promise<any> {
  return expectOk(method, await rpc(s, method, params, key, idem));
}

/** A mutation that must succeed appending exactly one event of `kind`: the result and that event. */
export async function mutate(s: TestServer, method: string, params: unknown, kind: string, key?: string): Promise<{ result: any; event: any }> {
  const before = await head(s.client);
  const result = await ok(s, method, params, key);
  const events = await eventsAfter(s.client, before);
  expect(events.map((e) => e.kind), `${method} appends exactly one ${kind}`).toEqual([kind]);
  return { result, event: events[0] };
}

/** A call that must fail with `code`, appending nothing: its message. */
export async function refused(s: TestServer, method: string, params: unknown, code: string, key?: string): Promise<string> {
  const before = await head(s.client);
  const res = await rpc(s, method, params, key);
  expect(res.body.ok, `${method} should fail with ${code}: ${res.raw.slice(0, 300)}`).toBe(false);
  expect(res.body.error.code, res.raw.slice(0, 300)).toBe(code);
  expect(await head(s.client), `${method} refused with ${code} appends nothing`).toBe(before);
  return res.body.error.message;
}

/** A call that must answer a hold frame (appending only `holdKind`, when given): its approval block. */
export async function held(s: TestServer, method: string, params: unknown, key: string, holdKind?: string): Promise<any> {
  const before = await head(s.client);
  const res = await rpc(s, method, params, key);
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
  expect(res.body.result.status, `${method} should hold: ${res.raw.slice(0, 300)}`).toBe('approval_required');
  if (holdKind) expect((await eventsAfter(s.client, before)).map((e) => e.kind)).toEqual([holdKind]);
  return res.body.result.approval;
}

/** File the hold's approval as the requester and have `deciderKey` approve it: the approvalId. */
export async function approved(s: TestServer, approval: any, requesterKey: string, deciderKey: string): Promise<string> {
  const { actionClass, payloadHash, subject } = approval;
  const filed = await ok(s, 'approval.request', { actionClass, payloadHash, subject }, requesterKey);
  await ok(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, deciderKey);
  return filed.approvalId;
}

/** A member of the test org with a key of its own: its principal id and the key. */
export interface Person {
  id: string;
  key: string;
}

/** Mint a key for a new member (a tier, or explicit scopes and kind): the family kits' people. */
export async function person(s: TestServer, name: string, spec: { tier: string } | { scopes: string[]; principalKind: 'human' | 'agent' }): Promise<Person> {
  const minted = await s.client.mint(spec, name);
  return { id: minted.principal.id, key: minted.apiKey };
}

/** The family kits' usual people: the org's admin (its creator), two members, an agent and a read-only viewer. */
export interface Cast {
  s: TestServer;
  owner: Person;
  mia: Person;
  max: Person;
  agent: Person;
  /** The viewer tier: every read scope, no write. */
  viewer: Person;
}

export async function castServer(): Promise<Cast> {
  const s = await testServer();
  const owner = { id: (await s.client.get('org/whoami')).body.principal.id as string, key: s.org.adminKey };
  return {
    s,
    owner,
    mia: await person(s, 'Mia Member', { tier: 'member' }),
    max: await person(s, 'Max Member', { tier: 'member' }),
    agent: await person(s, 'Agent A', { tier: 'agent' }),
    viewer: await person(s, 'Vera Viewer', { tier: 'viewer' }),
  };
}
