import { directory as c } from '../../protocol/methods/directory/index.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import { conflict } from '../../protocol/errors.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { mustHold } from '../people/index.js';
import { undoLog } from './merge-log.js';
import { lockPair, mergeSummary, proposePair } from './merge-propose.js';
import { refreshAround, runMerge } from './merge-run.js';
import { MERGE_COLUMNS, MERGE_FROM, getMerge, toMerge, type MergeRow } from './merge-view.js';
import { bumpParty, getPartyRow, noun, type PartyRow } from './model.js';
import { rolesOf } from './roles.js';

/*
 * directory.proposeMerge, executeMerge, revertMerge, listMerges. Events carry ids, statuses, scores, reason codes,
 * field names and counts: never a name, a value or a preview.
 */

/** A merge at or above this score may run for an agent without a human's signature (same email or same number). */
const UNSIGNED_SCORE = 90;
/** Roles whose move decides who is billed or paid: merging a party that holds one is a human's call. */
const GUARDED_FAMILIES = new Set(['books', 'crm']);

/**
 * The merge row locked after its parties, in the order proposePair locks them (parties by id, then the proposal),
 * so a proposal revised while it is executed or reverted waits instead of deadlocking.
 */
async function lockMerge(ctx: HandlerCtx, mergeId: string): Promise<MergeRow> {
  const peek = await getMerge(ctx.q, ctx.orgId, mergeId);
  for (const id of [peek.survivor_id, peek.merged_id].sort()) await getPartyRow(ctx.q, ctx.orgId, id, true);
  return getMerge(ctx.q, ctx.orgId, mergeId, true);
}

const ids = (m: MergeRow) => ({ mergeId: m.merge_id, kind: m.kind, survivorId: m.survivor_id, mergedId: m.merged_id });

export const proposeMerge = handler(c.proposeMerge, async (ctx, p) => {
  const { row, changed, revised } = await proposePair(ctx.deps.families, ctx.q, ctx.orgId, {
    survivorId: p.survivorId,
    mergedId: p.mergedId,
    fieldChoices: p.fieldChoices ?? {},
    proposedBy: ctx.principal.id,
  });
  await ctx.emit('directory.merge.propose', row.merge_id, {
    ...ids(row),
    score: Number(row.score),
    reasons: row.reasons,
    fieldChoices: Object.keys(row.field_choices).sort(),
    survivorVersion: Number(row.survivor_version),
    mergedVersion: Number(row.merged_version),
    ...(revised ? { revised: true } : {}),
    ...(changed ? {} : { noop: true }),
  });
  return { merge: toMerge(row), changed };
});

async function dismiss(ctx: HandlerCtx, m: MergeRow) {
  if (m.status === 'dismissed') {
    await ctx.emit('directory.merge.dismiss', m.merge_id, { ...ids(m), noop: true });
    return { merge: toMerge(m), changed: false };
  }
  if (m.status !== 'proposed') {
    throw conflict(
      `merge ${m.merge_id} is ${m.status}; only a proposed merge is dismissed${m.status === 'executed' ? ' (revert it with directory.revertMerge)' : ''}`,
    );
  }
  await ctx.q.query(
    `UPDATE directory_merges SET status = 'dismissed', decided_by = $3, dismissed_at = now(), updated_at = now() WHERE org_id = $1 AND merge_id = $2`,
    [ctx.orgId, m.merge_id, ctx.principal.id],
  );
  const merge = toMerge(await getMerge(ctx.q, ctx.orgId, m.merge_id));
  await ctx.emit('directory.merge.dismiss', m.merge_id, ids(m));
  return { merge, changed: true };
}

/** The pair must be as the proposal saw it: neither merged since, neither edited since. */
function requireAsProposed(m: MergeRow, s: PartyRow, l: PartyRow): void {
  for (const [row, version] of [
    [s, m.survivor_version],
    [l, m.merged_version],
  ] as const) {
    if (Number(row.version) !== Number(version)) {
      throw conflict(
        `${noun(row.kind)} ${row.party_id} changed since merge ${m.merge_id} was proposed (version ${row.version}, proposed at ${version}); ` +
          `propose it again (directory.proposeMerge) to review the new preview, then execute`,
      );
    }
  }
}

export const executeMerge = handler(c.executeMerge, async (ctx, p) => {
  const m = await lockMerge(ctx, p.mergeId);
  if (p.decision === 'dismiss') return dismiss(ctx, m);
  if (m.status === 'executed') {
    await ctx.emit('directory.merge.execute', m.merge_id, { ...ids(m), noop: true });
    return { merge: toMerge(m), changed: false };
  }
  if (m.status !== 'proposed') {
    throw conflict(`merge ${m.merge_id} is ${m.status}; propose the pair again (directory.proposeMerge) to merge them`);
  }
  const { s, l } = await lockPair(ctx.q, ctx.orgId, m.survivor_id, m.merged_id);
  requireAsProposed(m, s, l);
  const roles = [...(await rolesOf(ctx.deps.families, ctx.q, ctx.orgId, [s.party_id, l.party_id])).values()]
    .flat()
    .filter((r) => GUARDED_FAMILIES.has(r.family));
  const proof =
    mustHold(ctx.principal) && (Number(m.score) < UNSIGNED_SCORE || roles.length > 0)
      ? await ctx.requireSignature({
          actionClass: 'directory.execute_merge',
          subjectId: m.merge_id,
          summary: mergeSummary(m, s, l, roles),
          // The signed payload binds both parties' versions: an edit after the hold makes the proof fail.
          params: { ...p, survivorId: s.party_id, survivorVersion: Number(s.version), mergedId: l.party_id, mergedVersion: Number(l.version) },
        })
      : null;
  const outcome = await runMerge(ctx.deps.families, ctx.q, ctx.orgId, {
    mergeId: m.merge_id,
    survivorId: m.survivor_id,
    mergedId: m.merged_id,
    fieldChoices: m.field_choices,
  });
  await ctx.q.query(
    `UPDATE directory_merges SET status = 'executed', decided_by = $3, executed_at = now(), updated_at = now() WHERE org_id = $1 AND merge_id = $2`,
    [ctx.orgId, m.merge_id, ctx.principal.id],
  );
  const merge = toMerge(await getMerge(ctx.q, ctx.orgId, m.merge_id));
  await ctx.emit('directory.merge.execute', m.merge_id, {
    ...ids(m),
    score: Number(m.score),
    ...outcome.counts,
    roles: outcome.roles.length,
    referencesByFamily: outcome.references,
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { merge, changed: true };
});

export const revertMerge = handler(c.revertMerge, async (ctx, p) => {
  const m = await lockMerge(ctx, p.mergeId);
  if (m.status === 'reverted') {
    await ctx.emit('directory.merge.revert', m.merge_id, { ...ids(m), restored: 0, keptEdits: 0, noop: true });
    return { merge: toMerge(m), restored: 0, keptEdits: [], changed: false };
  }
  if (m.status !== 'executed') throw conflict(`merge ${m.merge_id} is ${m.status}; only an executed merge is reverted`);
  const [later] = await ctx.q.query<{ merge_id: string }>(
    `SELECT merge_id FROM directory_merges
      WHERE org_id = $1 AND status = 'executed' AND merge_id <> $2 AND (survivor_id = $3 OR merged_id = $3)
        AND executed_at >= (SELECT executed_at FROM directory_merges WHERE org_id = $1 AND merge_id = $2)
      ORDER BY executed_at DESC, merge_id LIMIT 1`,
    [ctx.orgId, m.merge_id, m.survivor_id],
  );
  if (later) throw conflict(`merge ${later.merge_id} was executed later on the survivor ${m.survivor_id}; revert it first (directory.revertMerge)`);
  const { restored, kept, rows } = await undoLog(ctx.q, ctx.orgId, m.merge_id);
  const links = rows.filter((r) => r.table === 'directory_links').map((r) => String(r.key.link_id));
  await refreshAround(ctx.q, ctx.orgId, [m.survivor_id, m.merged_id], links, m.kind);
  await bumpParty(ctx.q, ctx.orgId, m.survivor_id);
  await bumpParty(ctx.q, ctx.orgId, m.merged_id);
  await ctx.q.query(`UPDATE directory_merges SET status = 'reverted', reverted_at = now(), updated_at = now() WHERE org_id = $1 AND merge_id = $2`, [
    ctx.orgId,
    m.merge_id,
  ]);
  const merge = toMerge(await getMerge(ctx.q, ctx.orgId, m.merge_id));
  await ctx.emit('directory.merge.revert', m.merge_id, { ...ids(m), restored, keptEdits: kept.length });
  return { merge, restored, keptEdits: kept, changed: true };
});

export const listMerges = handler(c.listMerges, async (ctx, p) => {
  const where = ['m.org_id = $1'];
  const args: unknown[] = [ctx.orgId];
  const arg = (v: unknown) => `$${args.push(v)}`;
  if (p.status !== undefined) where.push(`m.status = ${arg(p.status)}`);
  if (p.partyId !== undefined) {
    await getPartyRow(ctx.q, ctx.orgId, p.partyId);
    const id = arg(p.partyId);
    where.push(`(m.survivor_id = ${id} OR m.merged_id = ${id})`);
  }
  if (p.cursor !== undefined) {
    const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
    where.push(`(m.created_at, m.merge_id) < (${arg(at)}::timestamptz, ${arg(id)})`);
  }
  const rows = await ctx.q.query<MergeRow & { at: string }>(
    `SELECT ${MERGE_COLUMNS}, to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at FROM ${MERGE_FROM}
      WHERE ${where.join(' AND ')} ORDER BY m.created_at DESC, m.merge_id DESC LIMIT ${arg(p.limit + 1)}`,
    args,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    merges: page.map(toMerge),
    nextCursor: rows.length > p.limit && last ? encodeCursor([last.at, last.merge_id]) : null,
  };
});
