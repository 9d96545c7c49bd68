import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { bodyHash, insertEntry, type SourceIn } from './model.js';
import { scheduleEmbedding } from './vectors.js';

/*
 * Entries another family appends as part of its own act (meetings.record's decisions): unverified whoever records
 * them (a meeting's words are a source, not a human's confirmation), in the caller's transaction, with no knowledge
 * event: the calling family's one event names the entry ids. The same words, kind and source as an active entry are
 * that entry, so an amend does not double a decision. A new entry's embedding is queued through the caller's call
 * (ctx.schedule, before its event), as knowledge.append queues its own.
 */

export interface QuietEntry {
  body: string;
  kind: 'fact' | 'decision' | 'preference' | 'procedure' | 'note';
  subjectIds: readonly string[];
  sources: readonly SourceIn[];
  authorId: string;
  at: Date;
}

/** The calling handler's context, as much of it as an entry needs. */
export type QuietCtx = Pick<HandlerCtx, 'q' | 'orgId' | 'deps' | 'schedule'>;

/** The entry's id, and whether it was appended now (false: an active entry with the same words and source stood). */
export async function appendUnverifiedEntry(ctx: QuietCtx, e: QuietEntry): Promise<{ entryId: string; appended: boolean }> {
  const { q, orgId } = ctx;
  const hash = bodyHash(e.body);
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('knowledge:' || $1 || ':' || $2))`, [orgId, hash]);
  const ref = e.sources[0]?.ref ?? null;
  const [same] = await q.query<{ entry_id: string }>(
    `SELECT entry_id FROM knowledge_entries
      WHERE org_id = $1 AND body_hash = $2 AND status = 'active' AND kind = $3 AND ($4::text IS NULL OR sources @> jsonb_build_array(jsonb_build_object('ref', $4::text)))
      ORDER BY recorded_at, entry_id LIMIT 1`,
    [orgId, hash, e.kind, ref],
  );
  if (same) return { entryId: same.entry_id, appended: false };
  const entryId = newId('kn');
  const at = e.at.toISOString();
  await insertEntry(q, orgId, {
    entryId,
    body: e.body,
    kind: e.kind,
    subjectIds: [...new Set(e.subjectIds)],
    sources: e.sources,
    verified: false,
    authorId: e.authorId,
    validFrom: at,
    validUntil: null,
    at,
    supersedes: null,
    approvalId: null,
  });
  scheduleEmbedding(ctx, entryId);
  return { entryId, appended: true };
}
