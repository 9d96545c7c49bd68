import { badRequest } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';
import { scorePair } from './dedupe.js';
import { checkChoices, type Choices } from './merge-fields.js';
import { getMerge, previewMerge, savePreview, type MergeRow } from './merge-view.js';
import { noun, requireWritableParty, type PartyRow } from './model.js';
import type { FamilySet } from '../core/family.js';

/*
 * Proposing a merge (directory.proposeMerge, and the books import's proposals): one open proposal per pair. The
 * same proposal again changes nothing; another direction, other fieldChoices or parties edited since revise the
 * open one (score, preview and the versions it was made against), so the preview a human reads is the merge
 * that runs.
 */

export interface Proposal {
  survivorId: string;
  mergedId: string;
  fieldChoices: Choices;
  /** A principal id, or "" for the system. */
  proposedBy: string;
}

const canon = (o: Record<string, unknown>) => JSON.stringify(Object.entries(o).sort(([x], [y]) => x.localeCompare(y)));
const a = (kind: PartyRow['kind']) => (kind === 'org' ? 'an organisation' : 'a person');

/** Lock the pair in a fixed order (two proposals of one pair cannot deadlock); refuse merged ids and mixed kinds. */
export async function lockPair(q: Queryable, orgId: string, survivorId: string, mergedId: string): Promise<{ s: PartyRow; l: PartyRow }> {
  if (survivorId === mergedId) throw badRequest('mergedId', 'is the survivor itself; name two parties');
  const rows = new Map<string, PartyRow>();
  for (const id of [survivorId, mergedId].sort()) rows.set(id, await requireWritableParty(q, orgId, id, { allowArchived: true }));
  const s = rows.get(survivorId)!;
  const l = rows.get(mergedId)!;
  if (s.kind !== l.kind)
    throw badRequest('mergedId', `${mergedId} is ${a(l.kind)} and ${survivorId} ${a(s.kind)}; only two persons or two organisations merge`);
  return { s, l };
}

export async function proposePair(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  p: Proposal,
): Promise<{ row: MergeRow; changed: boolean; revised: boolean }> {
  const { s, l } = await lockPair(q, orgId, p.survivorId, p.mergedId);
  checkChoices(s.kind, p.fieldChoices);
  const choices = Object.fromEntries(
    Object.entries(p.fieldChoices)
      .filter(([, v]) => v !== undefined)
      .sort(([x], [y]) => x.localeCompare(y)),
  );
  const [open] = await q.query<{
    merge_id: string;
    survivor_id: string;
    field_choices: Record<string, string>;
    survivor_version: number;
    merged_version: number;
  }>(
    `SELECT merge_id, survivor_id, field_choices, survivor_version, merged_version FROM directory_merges
      WHERE org_id = $1 AND status = 'proposed' AND least(survivor_id, merged_id) = least($2, $3) AND greatest(survivor_id, merged_id) = greatest($2, $3)
      FOR UPDATE`,
    [orgId, p.survivorId, p.mergedId],
  );
  const versions = { s: Number(s.version), l: Number(l.version) };
  if (
    open &&
    open.survivor_id === p.survivorId &&
    canon(open.field_choices) === canon(choices) &&
    Number(open.survivor_version) === versions.s &&
    Number(open.merged_version) === versions.l
  ) {
    return { row: await getMerge(q, orgId, open.merge_id), changed: false, revised: false };
  }
  const { score, reasons } = await scorePair(q, orgId, p.survivorId, p.mergedId);
  const mergeId = open?.merge_id ?? newId('mrg');
  if (open) {
    await q.query(
      `UPDATE directory_merges SET survivor_id = $3, merged_id = $4, score = $5, reasons = $6::jsonb, field_choices = $7::jsonb, survivor_version = $8,
              merged_version = $9, updated_at = now() WHERE org_id = $1 AND merge_id = $2`,
      [orgId, mergeId, p.survivorId, p.mergedId, score, JSON.stringify(reasons), JSON.stringify(choices), versions.s, versions.l],
    );
  } else {
    await q.query(
      `INSERT INTO directory_merges (org_id, merge_id, kind, survivor_id, merged_id, score, reasons, field_choices, survivor_version, merged_version, proposed_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11)`,
      [orgId, mergeId, s.kind, p.survivorId, p.mergedId, score, JSON.stringify(reasons), JSON.stringify(choices), versions.s, versions.l, p.proposedBy],
    );
  }
  await savePreview(
    q,
    orgId,
    mergeId,
    await previewMerge(families, q, orgId, { mergeId, survivorId: p.survivorId, mergedId: p.mergedId, fieldChoices: choices }),
  );
  return { row: await getMerge(q, orgId, mergeId), changed: true, revised: Boolean(open) };
}

/** The hold's words: what would be merged into what, at which versions, and the roles it moves. */
export function mergeSummary(m: MergeRow, s: PartyRow, l: PartyRow, roles: readonly { role: string; refId: string | null }[]): string {
  const held = roles.length ? `; books/CRM roles ${[...new Set(roles.map((r) => r.refId ?? r.role))].join(', ')}` : '';
  return (
    `Merge ${noun(l.kind)} "${l.display_name}" (${l.party_id}, version ${l.version}) into "${s.display_name}" (${s.party_id}, version ${s.version}): ` +
    `score ${m.score}${m.reasons.length ? ` (${m.reasons.join(', ')})` : ''}${held}`
  );
}
