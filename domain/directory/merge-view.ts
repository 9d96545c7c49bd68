import { notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import type { Choices } from './merge-fields.js';
import { runMerge, type MergeOutcome } from './merge-run.js';
import { getPartyRow, toParty, type PartyKind } from './model.js';
import type { FamilySet } from '../core/family.js';

/* Merge rows (directory_merges), their view, and the preview: the merge run in a savepoint, then rolled back. */

export interface MergeRow {
  merge_id: string;
  kind: PartyKind;
  survivor_id: string;
  merged_id: string;
  score: number;
  reasons: string[];
  field_choices: Record<string, 'survivor' | 'merged'>;
  preview: Record<string, unknown> | null;
  status: 'proposed' | 'executed' | 'reverted' | 'dismissed';
  survivor_version: number;
  merged_version: number;
  stale: boolean;
  proposed_by: string;
  decided_by: string | null;
  created_at: string;
  updated_at: string;
  executed_at: string | null;
  reverted_at: string | null;
  dismissed_at: string | null;
}

/** Alias m, with the parties as sp and mp joined (stale: proposed, and a party's version moved since). */
export const MERGE_COLUMNS = `m.merge_id, m.kind, m.survivor_id, m.merged_id, m.score, m.reasons, m.field_choices, m.preview, m.status,
  m.survivor_version, m.merged_version, (m.status = 'proposed' AND (sp.version <> m.survivor_version OR mp.version <> m.merged_version)) AS stale,
  m.proposed_by, m.decided_by, m.created_at, m.updated_at, m.executed_at, m.reverted_at, m.dismissed_at`;
export const MERGE_FROM = `directory_merges m
  JOIN directory_parties sp ON sp.org_id = m.org_id AND sp.party_id = m.survivor_id
  JOIN directory_parties mp ON mp.org_id = m.org_id AND mp.party_id = m.merged_id`;

export async function getMerge(q: Queryable, orgId: string, mergeId: string, lock = false): Promise<MergeRow> {
  const [row] = await q.query<MergeRow>(`SELECT ${MERGE_COLUMNS} FROM ${MERGE_FROM} WHERE m.org_id = $1 AND m.merge_id = $2 ${lock ? 'FOR UPDATE OF m' : ''}`, [
    orgId,
    mergeId,
  ]);
  if (!row) throw notFound(`merge ${mergeId}`);
  return row;
}

const iso = (t: string | null) => (t ? new Date(t).toISOString() : null);

export const toMerge = (r: MergeRow) => ({
  id: r.merge_id,
  kind: r.kind,
  survivorId: r.survivor_id,
  mergedId: r.merged_id,
  status: r.status,
  score: Number(r.score),
  reasons: r.reasons,
  fieldChoices: r.field_choices,
  preview: r.preview,
  survivorVersion: Number(r.survivor_version),
  mergedVersion: Number(r.merged_version),
  stale: r.stale,
  proposedBy: r.proposed_by,
  decidedBy: r.decided_by,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  executedAt: iso(r.executed_at),
  revertedAt: iso(r.reverted_at),
  dismissedAt: iso(r.dismissed_at),
});

export interface Preview extends MergeOutcome {
  survivor: ReturnType<typeof toParty>;
}

/**
 * What executing would do, exactly: the merge run (other families' hooks included) inside a savepoint, the
 * survivor read as it would be, then everything rolled back. The merge row must exist (its log rows point at it).
 */
export async function previewMerge(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  m: { mergeId: string; survivorId: string; mergedId: string; fieldChoices: Choices },
): Promise<Preview> {
  await q.query('SAVEPOINT merge_preview');
  try {
    const outcome = await runMerge(families, q, orgId, m);
    return { survivor: toParty(await getPartyRow(q, orgId, m.survivorId)), ...outcome };
  } finally {
    await q.query('ROLLBACK TO SAVEPOINT merge_preview');
    await q.query('RELEASE SAVEPOINT merge_preview');
  }
}

/** Store a proposal's preview. */
export async function savePreview(q: Queryable, orgId: string, mergeId: string, preview: Preview): Promise<void> {
  await q.query('UPDATE directory_merges SET preview = $3::jsonb WHERE org_id = $1 AND merge_id = $2', [orgId, mergeId, JSON.stringify(preview)]);
}
