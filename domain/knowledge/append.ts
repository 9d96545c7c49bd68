import { badRequest } from '../../protocol/errors.js';
import { knowledge as c } from '../../protocol/methods/knowledge.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { scheduleEmbedding } from './vectors.js';
import { actionClassOf, type SignatureProof } from '../approval/index.js';
import { bodyHash, ENTRY_COLUMNS, insertEntry, possibleDuplicates, toEntry, type EntryRow } from './model.js';

/*
 * knowledge.append: an entry with its sources. Agents must cite, since what they append steers other agents; a
 * human's entry is verified (they are the source). The same words, kind and subjects as an active entry are that
 * entry (changed:false), so an agent that learns the same thing twice does not double it.
 */

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/** BAD_REQUEST unless an agent's entry cites at least one source. */
export function requireSources(ctx: HandlerCtx, sources: readonly unknown[]): void {
  if (ctx.principal.kind === 'agent' && sources.length === 0) {
    throw badRequest('sources', "an agent's entry cites at least one source (kind and ref: a URL or a record id such as eml_…, fil_…, task_…)");
  }
}

/**
 * An agent changing what a human verified holds for a human (WORKSPACE 2: changing what others rely on); anyone
 * else, and unverified entries, go through. The summary is recomputed from the row on the retry.
 */
export async function verifiedHold(ctx: HandlerCtx, row: EntryRow, act: string, params: Record<string, unknown>): Promise<SignatureProof | null> {
  if (ctx.principal.kind !== 'agent' || !row.verified) return null;
  return ctx.requireSignature({
    actionClass: actionClassOf(ctx.method.name),
    subjectId: row.entry_id,
    summary: `An agent ${act} knowledge entry ${row.entry_id} (revision ${Number(row.revision)}), which a human verified`,
    params,
  });
}

export const append = handler(c.append, async (ctx, p) => {
  requireSources(ctx, p.sources);
  const now = ctx.deps.clock.now();
  const validFrom = p.validFrom ? new Date(p.validFrom).toISOString() : now.toISOString();
  const validUntil = p.validUntil ? new Date(p.validUntil).toISOString() : null;
  if (validUntil !== null && validUntil <= validFrom) throw badRequest('validUntil', `must be after validFrom (${validFrom})`);
  const subjectIds = [...new Set(p.subjectIds)];
  // Two appends of the same words race to the same check: one per org and body at a time.
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('knowledge:' || $1 || ':' || $2))`, [ctx.orgId, bodyHash(p.body)]);
  const same = (
    await ctx.q.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM knowledge_entries WHERE org_id = $1 AND body_hash = $2 AND status = 'active' AND kind = $3`, [
      ctx.orgId,
      bodyHash(p.body),
      p.kind,
    ])
  ).find((r) => sameSet(r.subject_ids, subjectIds));
  if (same) {
    await ctx.emit('knowledge.entry.append', same.entry_id, { entryId: same.entry_id, revision: Number(same.revision), noop: true });
    return { entry: toEntry(same, now), possibleDuplicates: [], changed: false };
  }
  const entryId = newId('kn');
  const verified = ctx.principal.kind === 'human';
  const duplicates = await possibleDuplicates(ctx.q, ctx.orgId, p.body, entryId);
  const row = await insertEntry(ctx.q, ctx.orgId, {
    entryId,
    body: p.body,
    kind: p.kind,
    subjectIds,
    sources: p.sources,
    verified,
    authorId: ctx.principal.id,
    validFrom,
    validUntil,
    at: now.toISOString(),
    supersedes: null,
    approvalId: null,
  });
  scheduleEmbedding(ctx, entryId);
  await ctx.emit('knowledge.entry.append', entryId, {
    entryId,
    kind: p.kind,
    verified,
    subjects: subjectIds.length,
    sources: p.sources.length,
    possibleDuplicates: duplicates.map((d) => d.entryId),
  });
  return { entry: toEntry(row, now), possibleDuplicates: duplicates, changed: true };
});
