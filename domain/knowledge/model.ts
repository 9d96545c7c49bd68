import type { z } from 'zod';
import { conflict, notFound } from '../../protocol/errors.js';
import { sha256Hex } from '../../protocol/hashing.js';
import type { Entry, Source } from '../../protocol/methods/knowledge.js';
import { one, type Queryable } from '../../db/types.js';

/* Entries as rows: the current revision on knowledge_entries, every revision's words on knowledge_entry_revisions. */

export type EntryOut = z.output<typeof Entry>;
export type SourceIn = z.output<typeof Source>;

export interface EntryRow {
  entry_id: string;
  body: string;
  kind: EntryOut['kind'];
  subject_ids: string[];
  sources: SourceIn[] | string;
  body_hash: string;
  verified: boolean;
  verified_by: string | null;
  author_id: string;
  status: 'active' | 'invalidated' | 'superseded';
  valid_from: string | Date;
  valid_until: string | Date | null;
  recorded_at: string | Date;
  revision: number;
  supersedes: string | null;
  superseded_by: string | null;
  invalidated_reason: EntryOut['invalidatedReason'];
}

export const ENTRY_COLUMNS = `entry_id, body, kind, subject_ids, sources, body_hash, verified, verified_by, author_id, status, valid_from, valid_until,
  recorded_at, revision, supersedes, superseded_by, invalidated_reason`;

const iso = (v: string | Date): string => new Date(v).toISOString();

/** Whitespace folded: "the same words" for the exact-duplicate check, whatever the spacing. */
export const bodyHash = (body: string): string => sha256Hex(body.trim().replace(/\s+/g, ' '));

export function toEntry(r: EntryRow, now: Date): EntryOut {
  const expired = r.status === 'active' && r.valid_until !== null && new Date(r.valid_until) <= now;
  return {
    id: r.entry_id,
    body: r.body,
    kind: r.kind,
    subjectIds: r.subject_ids,
    sources: typeof r.sources === 'string' ? (JSON.parse(r.sources) as SourceIn[]) : r.sources,
    verified: r.verified,
    verifiedBy: r.verified_by,
    authorId: r.author_id,
    status: expired ? 'expired' : r.status,
    validFrom: iso(r.valid_from),
    validUntil: r.valid_until === null ? null : iso(r.valid_until),
    recordedAt: iso(r.recorded_at),
    revision: Number(r.revision),
    supersedes: r.supersedes,
    supersededBy: r.superseded_by,
    invalidatedReason: r.invalidated_reason,
  };
}

export async function loadEntry(q: Queryable, orgId: string, entryId: string, lock: '' | 'FOR UPDATE' = ''): Promise<EntryRow> {
  const [row] = await q.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM knowledge_entries WHERE org_id = $1 AND entry_id = $2 ${lock}`, [orgId, entryId]);
  if (!row) throw notFound(`knowledge entry ${entryId}`);
  return row;
}

export async function entriesByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<EntryRow[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM knowledge_entries WHERE org_id = $1 AND entry_id = ANY($2::text[])`, [orgId, ids]);
  const byId = new Map(rows.map((r) => [r.entry_id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** CONFLICT for a closed entry, naming the way forward (its successor, or a new entry). */
export function requireActive(r: EntryRow, act: string): void {
  if (r.status === 'superseded') {
    throw conflict(`knowledge entry ${r.entry_id} is superseded by ${r.superseded_by}: ${act} ${r.superseded_by} instead`);
  }
  if (r.status === 'invalidated') {
    throw conflict(`knowledge entry ${r.entry_id} was invalidated (${r.invalidated_reason}): append a new entry (knowledge.append) instead`);
  }
}

export async function insertRevision(
  q: Queryable,
  orgId: string,
  r: { entryId: string; revision: number; body: string; verified: boolean; by: string; at: string; approvalId: string | null },
): Promise<void> {
  await q.query(
    `INSERT INTO knowledge_entry_revisions (org_id, entry_id, revision, body, verified, written_by, written_at, approval_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [orgId, r.entryId, r.revision, r.body, r.verified, r.by, r.at, r.approvalId],
  );
}

export interface NewEntry {
  entryId: string;
  body: string;
  kind: string;
  subjectIds: readonly string[];
  sources: readonly SourceIn[];
  verified: boolean;
  authorId: string;
  validFrom: string;
  validUntil: string | null;
  at: string;
  supersedes: string | null;
  approvalId: string | null;
}

export async function insertEntry(q: Queryable, orgId: string, e: NewEntry): Promise<EntryRow> {
  const row = one(
    await q.query<EntryRow>(
      `INSERT INTO knowledge_entries (org_id, entry_id, body, kind, subject_ids, sources, body_hash, verified, verified_by, author_id, valid_from,
                                    valid_until, recorded_at, supersedes, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, $14, $13) RETURNING ${ENTRY_COLUMNS}`,
      [
        orgId,
        e.entryId,
        e.body,
        e.kind,
        e.subjectIds,
        JSON.stringify(e.sources),
        bodyHash(e.body),
        e.verified,
        e.verified ? e.authorId : null,
        e.authorId,
        e.validFrom,
        e.validUntil,
        e.at,
        e.supersedes,
      ],
    ),
  );
  await insertRevision(q, orgId, { entryId: e.entryId, revision: 1, body: e.body, verified: e.verified, by: e.authorId, at: e.at, approvalId: e.approvalId });
  return row;
}

/** Words of four letters or more, lower-cased and unique: what possibleDuplicates compares. */
export function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? []).slice(0, 400));
}

/**
 * Active entries sharing most of the body's words (Jaccard >= 0.5 of their words of four letters or more): found
 * by the full-text index (any of the body's first 24 distinct words), compared in full here.
 */
export async function possibleDuplicates(q: Queryable, orgId: string, body: string, exclude: string): Promise<{ entryId: string; similarity: number }[]> {
  const words = wordsOf(body);
  const probe = [...words].slice(0, 24);
  if (probe.length === 0) return [];
  // Letters and digits only, so the words are a valid tsquery joined by |.
  const rows = await q.query<{ entry_id: string; body: string }>(
    `SELECT entry_id, body FROM knowledge_entries
      WHERE org_id = $1 AND status = 'active' AND entry_id <> $3 AND search_doc @@ to_tsquery('wops_search', $2)
      ORDER BY ts_rank_cd(search_doc, to_tsquery('wops_search', $2)) DESC, entry_id LIMIT 20`,
    [orgId, probe.join(' | '), exclude],
  );
  return rows
    .map((r) => {
      const other = wordsOf(r.body);
      const shared = [...words].filter((w) => other.has(w)).length;
      return { entryId: r.entry_id, similarity: Math.round((shared / (words.size + other.size - shared)) * 100) / 100 };
    })
    .filter((d) => d.similarity >= 0.5)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, 5);
}

/** Who was served an entry, by the searches recorded (ks_ rows): invalidate's servedTo. */
export async function servedTo(q: Queryable, orgId: string, entryId: string) {
  const rows = await q.query<{ actor_id: string; searches: number; revisions: number[]; last_at: string | Date }>(
    `SELECT s.actor_id, count(*)::int AS searches, array_agg(DISTINCT r.revision ORDER BY r.revision) AS revisions, max(s.searched_at) AS last_at
       FROM knowledge_search_results r JOIN knowledge_searches s ON s.org_id = r.org_id AND s.search_id = r.search_id
      WHERE r.org_id = $1 AND r.entry_id = $2
      GROUP BY s.actor_id ORDER BY max(s.searched_at) DESC, s.actor_id`,
    [orgId, entryId],
  );
  return rows.map((r) => ({ principalId: r.actor_id, searches: Number(r.searches), revisions: r.revisions.map(Number), lastServedAt: iso(r.last_at) }));
}
