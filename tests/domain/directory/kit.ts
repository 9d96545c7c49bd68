import { ok } from '../../helpers/calls.js';
import type { TestClient, TestServer } from '../../helpers/harness.js';

/** The directory tests' own words: parties to work on, a merge's tombstone, a key of chosen scopes. */

/** A new directory party of kind person or org (not a member of the org: see `person` in tests/helpers). */
export const newPerson = async (client: TestClient, params: Record<string, unknown>) => (await ok(client, 'directory.createPerson', params)).person;
export const newOrg = async (client: TestClient, params: Record<string, unknown>) => (await ok(client, 'directory.createOrg', params)).org;

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
