import { expect } from 'vitest';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { TestClient, freshOrg, type TestServer } from './harness.js';

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
