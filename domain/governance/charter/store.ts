import { conflict, notFound } from '../../../protocol/errors.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { one, type Queryable } from '../../../db/types.js';
import { applyDelta, canonicalOf, deltaOf, EMPTY_CHARTER, hashOf, type CharterDoc, type Delta } from './document.js';

/*
 * How charter versions are kept (charters, charter_versions). The head document is stored whole on the charter
 * row; each version stores either a snapshot or the delta from its parent. A snapshot is taken when the delta
 * chain since the last one reaches 50 versions or outgrows the document itself, so a charter at its 256 KB limit
 * edited 10,000 times keeps about the bytes its edits changed plus a snapshot per such chain (rather than 2.5 GB
 * of whole copies), and reading any version costs one snapshot plus deltas smaller than it.
 */

const CHAIN_MAX = 50;

export interface HeadRow {
  charter_id: string;
  version: number;
  content_hash: string;
  parent_hash: string | null;
  document: CharterDoc;
  size_bytes: number;
  chain_length: number;
  chain_bytes: number;
  updated_by: string | null;
  updated_at: string | null;
}

const HEAD_COLUMNS = 'charter_id, version, content_hash, parent_hash, document, size_bytes, chain_length, chain_bytes, updated_by, updated_at';

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** One charter per org: its id is derived from the org's, so a hold and its retry name the same charter before it exists. */
export const charterIdOf = (orgId: string): string => `chr_${sha256Hex(`charter:${orgId}`).slice(0, 16)}`;

const EMPTY_HASH = hashOf(EMPTY_CHARTER);

/** The charter of an org as it stands before any write: version 0, empty. */
export const emptyHead = (orgId: string): HeadRow => ({
  charter_id: charterIdOf(orgId),
  version: 0,
  content_hash: EMPTY_HASH,
  parent_hash: null,
  document: EMPTY_CHARTER,
  size_bytes: Buffer.byteLength(canonicalOf(EMPTY_CHARTER)),
  chain_length: 0,
  chain_bytes: 0,
  updated_by: null,
  updated_at: null,
});

const normalise = (r: HeadRow): HeadRow => ({
  ...r,
  version: Number(r.version),
  document: json(r.document),
  size_bytes: Number(r.size_bytes),
  chain_length: Number(r.chain_length),
  chain_bytes: Number(r.chain_bytes),
  updated_at: r.updated_at === null ? null : new Date(r.updated_at).toISOString(),
});

/** The head, unlocked (reads); version 0 when nothing was written. */
export async function readHead(q: Queryable, orgId: string): Promise<HeadRow> {
  const [row] = await q.query<HeadRow>(`SELECT ${HEAD_COLUMNS} FROM charters WHERE org_id = $1`, [orgId]);
  return row ? normalise(row) : emptyHead(orgId);
}

/** The head locked FOR UPDATE for a write (created empty, version 0, by the org's first write). */
export async function lockCharter(q: Queryable, orgId: string): Promise<HeadRow> {
  const e = emptyHead(orgId);
  await q.query(
    `INSERT INTO charters (org_id, charter_id, version, content_hash, parent_hash, document, size_bytes)
     VALUES ($1, $2, 0, $3, NULL, $4::jsonb, $5) ON CONFLICT (org_id) DO NOTHING`,
    [orgId, e.charter_id, e.content_hash, JSON.stringify(e.document), e.size_bytes],
  );
  const row = one(await q.query<HeadRow>(`SELECT ${HEAD_COLUMNS} FROM charters WHERE org_id = $1 FOR UPDATE`, [orgId]), 'the charter head');
  return normalise(row);
}

/** A write names the head it was written against: another is a CONFLICT naming the head. */
export function checkBase(head: HeadRow, baseVersion: number | undefined): void {
  if (baseVersion === undefined || baseVersion === head.version) return;
  throw conflict(
    `the charter is at version ${head.version} (content ${head.content_hash.slice(0, 12)}), not ${baseVersion}: ` +
      `read it (charter.get${baseVersion < head.version ? ` {diffFrom: ${baseVersion}}` : ''}) and retry against baseVersion ${head.version}`,
  );
}

export interface VersionInfo {
  method: string;
  binding: boolean;
  by: string;
  decisionId?: string | null;
  approvalId?: string | null;
}

/** Record `next` as the head's next version (the caller holds the head FOR UPDATE). Returns the new head. */
export async function commitVersion(q: Queryable, orgId: string, head: HeadRow, next: CharterDoc, info: VersionInfo): Promise<HeadRow> {
  const text = canonicalOf(next);
  const size = Buffer.byteLength(text, 'utf8');
  const hash = sha256Hex(text);
  const version = head.version + 1;
  const delta = deltaOf(head.document, next);
  const deltaText = JSON.stringify(delta);
  const deltaBytes = Buffer.byteLength(deltaText, 'utf8');
  const snapshot = head.version === 0 || head.chain_length + 1 >= CHAIN_MAX || head.chain_bytes + deltaBytes >= size;
  await q.query(
    `INSERT INTO charter_versions (org_id, version, content_hash, parent_hash, method, binding, decision_id, approval_id, created_by, snapshot, delta, size_bytes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12)`,
    [
      orgId,
      version,
      hash,
      head.version === 0 ? null : head.content_hash,
      info.method,
      info.binding,
      info.decisionId ?? null,
      info.approvalId ?? null,
      info.by,
      snapshot ? text : null,
      snapshot ? null : deltaText,
      size,
    ],
  );
  const row = one(
    await q.query<HeadRow>(
      `UPDATE charters SET version = $2, content_hash = $3, parent_hash = $4, document = $5::jsonb, size_bytes = $6, chain_length = $7, chain_bytes = $8,
            updated_by = $9, updated_at = now()
      WHERE org_id = $1 RETURNING ${HEAD_COLUMNS}`,
      [
        orgId,
        version,
        hash,
        head.version === 0 ? null : head.content_hash,
        text,
        size,
        snapshot ? 0 : head.chain_length + 1,
        snapshot ? 0 : head.chain_bytes + deltaBytes,
        info.by,
      ],
    ),
  );
  await trackSections(q, orgId, delta, version);
  await projectAuthority(q, orgId, delta);
  return normalise(row);
}

/** Every section id ever added, and when it went: a deleted one is known as gone, not unknown. */
async function trackSections(q: Queryable, orgId: string, delta: Delta, version: number): Promise<void> {
  const entries = Object.entries(delta.sections ?? {});
  const added = entries.filter(([, s]) => s !== null).map(([id]) => id);
  const removed = entries.filter(([, s]) => s === null).map(([id]) => id);
  if (added.length > 0) {
    await q.query(
      `INSERT INTO charter_section_ids (org_id, section_id, added_version) SELECT $1, id, $3 FROM unnest($2::text[]) AS id
       ON CONFLICT (org_id, section_id) DO NOTHING`,
      [orgId, added, version],
    );
  }
  if (removed.length > 0) {
    await q.query('UPDATE charter_section_ids SET deleted_version = $3 WHERE org_id = $1 AND section_id = ANY($2::text[])', [orgId, removed, version]);
  }
}

/** The head's authority (roles, autonomy, reportsTo) where the rights read it. */
async function projectAuthority(q: Queryable, orgId: string, delta: Delta): Promise<void> {
  for (const [principalId, c] of Object.entries(delta.colleagues ?? {})) {
    if (c === null) {
      await q.query('DELETE FROM charter_authority WHERE org_id = $1 AND principal_id = $2', [orgId, principalId]);
      continue;
    }
    await q.query(
      `INSERT INTO charter_authority (org_id, principal_id, roles, autonomy, reports_to) VALUES ($1, $2, $3::text[], $4, $5)
       ON CONFLICT (org_id, principal_id) DO UPDATE SET roles = EXCLUDED.roles, autonomy = EXCLUDED.autonomy, reports_to = EXCLUDED.reports_to`,
      [orgId, principalId, c.roles, c.autonomy, c.reportsTo],
    );
  }
}

/** A section id's standing: live in the head, gone since a version, or never this org's. */
export async function sectionStanding(
  q: Queryable,
  orgId: string,
  sectionId: string,
): Promise<{ known: false } | { known: true; deletedVersion: number | null }> {
  const [row] = await q.query<{ deleted_version: number | null }>('SELECT deleted_version FROM charter_section_ids WHERE org_id = $1 AND section_id = $2', [
    orgId,
    sectionId,
  ]);
  if (!row) return { known: false };
  return { known: true, deletedVersion: row.deleted_version === null ? null : Number(row.deleted_version) };
}

export interface VersionRow {
  version: number;
  content_hash: string;
  parent_hash: string | null;
  method: string;
  binding: boolean;
  decision_id: string | null;
  approval_id: string | null;
  created_by: string;
  created_at: string;
}

export const VERSION_COLUMNS = 'version, content_hash, parent_hash, method, binding, decision_id, approval_id, created_by, created_at';

/** The document at `version`, rebuilt from the newest snapshot at or before it; NOT_FOUND past the head. */
export async function documentAt(q: Queryable, orgId: string, head: HeadRow, version: number): Promise<CharterDoc> {
  if (version > head.version) throw notFound(`charter version ${version} (the head is version ${head.version})`);
  if (version === head.version) return head.document;
  if (version === 0) return EMPTY_CHARTER;
  const rows = await q.query<{ version: number; content_hash: string; snapshot: CharterDoc | string | null; delta: Delta | string | null }>(
    `SELECT version, content_hash, snapshot, delta FROM charter_versions
      WHERE org_id = $1 AND version <= $2
        AND version >= (SELECT max(version) FROM charter_versions WHERE org_id = $1 AND version <= $2 AND snapshot IS NOT NULL)
      ORDER BY version`,
    [orgId, version],
  );
  let doc: CharterDoc | null = null;
  for (const r of rows) doc = r.snapshot !== null ? json(r.snapshot) : applyDelta(doc!, json(r.delta!));
  const last = rows.at(-1);
  if (!doc || !last || Number(last.version) !== version) throw new Error(`charter version ${version} of ${orgId} cannot be rebuilt`);
  // The chain is checked as it is read: a rebuilt version must hash to what was recorded.
  if (hashOf(doc) !== last.content_hash) throw new Error(`charter version ${version} of ${orgId} rebuilds to another content hash`);
  return doc;
}

/** One version's record (null for version 0). */
export async function versionRow(q: Queryable, orgId: string, version: number): Promise<VersionRow | null> {
  const [row] = await q.query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM charter_versions WHERE org_id = $1 AND version = $2`, [orgId, version]);
  return row ?? null;
}

/** Versions newest first, below `before` (exclusive). */
export async function historyPage(q: Queryable, orgId: string, before: number | null, limit: number): Promise<VersionRow[]> {
  return q.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM charter_versions WHERE org_id = $1 AND ($2::int IS NULL OR version < $2) ORDER BY version DESC LIMIT $3`,
    [orgId, before, limit],
  );
}
