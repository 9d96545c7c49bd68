import { expectOk } from '../../helpers/calls.js';
import type { TestClient, TestServer } from '../../helpers/harness.js';

/** Shared calls of the directory tests. */

export const ok = async (client: TestClient, method: string, params: Record<string, unknown>, key?: string) =>
  expectOk(method, await client.rpc(method, params, { key }));

export const err = async (client: TestClient, method: string, params: unknown, key?: string) => {
  const res = await client.rpc(method, params, { key });
  if (res.body.ok !== false) throw new Error(`${method} did not fail: ${res.raw.slice(0, 300)}`);
  return res.body.error as { code: string; message: string };
};

export const person = async (client: TestClient, params: Record<string, unknown>) => (await ok(client, 'directory.createPerson', params)).person;
export const org = async (client: TestClient, params: Record<string, unknown>) => (await ok(client, 'directory.createOrg', params)).org;

/**
 * What an executed merge leaves (directory.executeMerge is another part's): the merged party's row as a tombstone
 * naming the survivor. Written straight to the table so writes to a merged id can be tested here.
 */
export async function markMerged(s: TestServer, mergedId: string, survivorId: string): Promise<void> {
  await s.runtime.db.query(
    `UPDATE directory_parties SET status = 'merged', merged_into = $3, merged_at = now(), version = version + 1, updated_at = clock_timestamp() WHERE org_id = $1 AND party_id = $2`,
    [s.org.orgId, mergedId, survivorId],
  );
}

/** A key of the org holding only these scopes (FORBIDDEN_SCOPE checks). */
export const keyWith = async (s: TestServer, scopes: string[]) => (await s.client.mint({ scopes })).apiKey;
