import { expect } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { expectOk, person } from '../../helpers/calls.js';

export { person };

/*
 * The decision family's test kit: a server with people of known standing, rights to declare, a proposal in one
 * call, and the hold flow (hold -> approval.request by the caller -> approval.resolve by a human -> approvalId).
 */

export interface Person {
  id: string;
  key: string;
}

/** A human who signs and decides (decision.write, approval.decide) without the admin scope, so never by override. */
export const DECIDER_SCOPES = ['org.read', 'decision.write', 'approval.request', 'approval.decide'];

export interface Org {
  s: TestServer;
  ceo: Person;
  cfo: Person;
  /** A human with decision.write only: neither a decider nor a signatory unless rights name them. */
  staff: Person;
  agent: Person;
  agent2: Person;
  reader: Person;
}


export async function decisionOrg(): Promise<Org> {
  const s = await testServer();
  return {
    s,
    ceo: await person(s, 'Cleo CEO', { scopes: DECIDER_SCOPES, principalKind: 'human' }),
    cfo: await person(s, 'Carl CFO', { scopes: DECIDER_SCOPES, principalKind: 'human' }),
    staff: await person(s, 'Stan Staff', { scopes: ['org.read', 'decision.write', 'approval.request'], principalKind: 'human' }),
    agent: await person(s, 'pricing agent', { tier: 'agent' }),
    agent2: await person(s, 'ops agent', { tier: 'agent' }),
    reader: await person(s, 'reader', { tier: 'reader' }),
  };
}

export async function setRights(s: TestServer, rights: unknown[]): Promise<void> {
  expectOk('governance.set_decision_rights', await s.client.rpc('governance.set_decision_rights', { rights }));
}

export const rpc = (s: TestServer, method: string, params: unknown, key?: string, idem?: string) => s.client.rpc(method, params, { key, idem });

/** A call that must succeed, checked against its contract. */
export async function ok(s: TestServer, method: string, params: unknown, key?: string, idem?: string): Promise<any> {
  return expectOk(method, await rpc(s, method, params, key, idem));
}

/** A call that must fail: its error {code, message}. */
export async function err(s: TestServer, method: string, params: unknown, key?: string): Promise<{ code: string; message: string }> {
  const res = await rpc(s, method, params, key);
  expect(res.body.ok, `${method} should fail: ${res.raw.slice(0, 300)}`).toBe(false);
  return res.body.error;
}

let n = 0;
/** A fresh proposal in an area; returns the decision. */
export async function proposal(s: TestServer, key: string | undefined, area: string, extra: Record<string, unknown> = {}): Promise<any> {
  n++;
  return (await ok(s, 'decision.propose', { title: `Decision ${n}`, area, decision: `We do thing ${n}.`, ...extra }, key)).decision;
}

/** A call that must answer a hold frame: its approval block. */
export async function held(s: TestServer, method: string, params: unknown, key: string): Promise<any> {
  const res = await rpc(s, method, params, key);
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
  expect(res.body.result.status, `${method} should hold: ${res.raw.slice(0, 300)}`).toBe('approval_required');
  return res.body.result.approval;
}

/** File the hold's approval as the requester: its approval view. */
export async function file(s: TestServer, approval: any, requesterKey: string): Promise<any> {
  const { actionClass, payloadHash, subject } = approval;
  return ok(s, 'approval.request', { actionClass, payloadHash, subject }, requesterKey);
}

/** File and have `deciderKey` approve it: the approvalId. */
export async function approved(s: TestServer, approval: any, requesterKey: string, deciderKey: string): Promise<string> {
  const filed = await file(s, approval, requesterKey);
  await ok(s, 'approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, deciderKey);
  return filed.approvalId;
}

/** GET /decision.list?id=…: the full record. */
export async function record(s: TestServer, id: string, key?: string): Promise<any> {
  const res = await s.client.get('decision.list', { id }, { key });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  return res.body;
}
