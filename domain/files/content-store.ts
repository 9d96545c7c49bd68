import type { Queryable } from '../../db/types.js';

/**
 * Native kinds keep their parts content-addressed, once per file and hash (a doc's blocks, a deck's slides): the
 * part's canonical JSON and its plain text. Stored parts are never changed: the same hash is the same bytes.
 */
export interface HashedPart {
  hash: string;
  body: string;
  plain: string;
}

/** The tables holding hashed parts (their columns: org_id, file_id, hash, body, plain). */
export type PartTable = 'doc_blocks' | 'deck_slides';

/** Store parts; those already stored are left as they are. */
export async function saveParts(q: Queryable, table: PartTable, orgId: string, fileId: string, parts: Iterable<HashedPart>): Promise<void> {
  const unique = new Map<string, HashedPart>();
  for (const p of parts) unique.set(p.hash, p);
  if (unique.size === 0) return;
  const list = [...unique.values()];
  await q.query(
    `INSERT INTO ${table} (org_id, file_id, hash, body, plain)
     SELECT $1, $2, h, b, p FROM unnest($3::text[], $4::text[], $5::text[]) AS u(h, b, p)
     ON CONFLICT (org_id, file_id, hash) DO NOTHING`,
    [orgId, fileId, list.map((p) => p.hash), list.map((p) => p.body), list.map((p) => p.plain)],
  );
}
