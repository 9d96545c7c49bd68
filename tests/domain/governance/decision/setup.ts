import { expect } from 'vitest';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { ok } from '../../../helpers/calls.js';
import { person, type Person } from '../../../helpers/people.js';

/*
 * The decision family's test kit: a server with people of known standing, a proposal in one call, and the first
 * half of the hold flow (hold -> approval.request by the caller); held and approved are the shared words.
 */

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

let n = 0;
/** A fresh proposal in an area; returns the decision. */
export async function proposal(s: TestServer, key: string | undefined, area: string, extra: Record<string, unknown> = {}): Promise<any> {
  n++;
  return (await ok(s, 'decision.propose', { title: `Decision ${n}`, area, decision: `We do thing ${n}.`, ...extra }, key)).decision;
}

/** File the hold's approval as the requester: its approval view. */
export async function file(s: TestServer, approval: any, requesterKey: string): Promise<any> {
  const { actionClass, payloadHash, subject } = approval;
  return ok(s, 'approval.request', { actionClass, payloadHash, subject }, requesterKey);
}

/** GET /decision.list?id=…: the full record. */
export async function record(s: TestServer, id: string, key?: string): Promise<any> {
  const res = await s.client.get('decision.list', { id }, { key });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  return res.body;
}
