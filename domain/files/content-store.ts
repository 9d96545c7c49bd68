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

/** The revision tables of the native kinds (org_id, file_id, revision, content_sha256, size_bytes, and their parts). */
export type RevisionTable = 'doc_revisions' | 'sheet_revisions' | 'deck_revisions';

export interface RevisionHead<P> {
  revision: number;
  contentSha256: string;
  sizeBytes: number;
  /** The revision's own column: a doc's or sheet's tabs, a deck's slides. */
  parts: P;
  /** The `extra` column asked for (a sheet's feeds), else undefined. */
  extra?: unknown;
}

/** A revision (default the latest) with its parts column, or undefined when there is none such. */
export async function loadRevisionRow<P>(
  q: Queryable,
  table: RevisionTable,
  column: 'tabs' | 'slides',
  orgId: string,
  fileId: string,
  revision?: number,
  extra?: 'feeds',
): Promise<RevisionHead<P> | undefined> {
  const [row] = await q.query<{ revision: number; parts: P; content_sha256: string; size_bytes: number; extra?: unknown }>(
    `SELECT revision, ${column} AS parts, content_sha256, size_bytes${extra ? `, ${extra} AS extra` : ''} FROM ${table} WHERE org_id = $1 AND file_id = $2
       ${revision === undefined ? '' : 'AND revision = $3'} ORDER BY revision DESC LIMIT 1`,
    revision === undefined ? [orgId, fileId] : [orgId, fileId, revision],
  );
  if (!row) return undefined;
  return { revision: Number(row.revision), contentSha256: row.content_sha256, sizeBytes: Number(row.size_bytes), parts: row.parts, extra: row.extra };
}
