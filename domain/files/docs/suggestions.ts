import type { z } from 'zod';
import { ApiError, conflict, notFound } from '../../../protocol/errors.js';
import { docs as c, type Suggestion } from '../../../protocol/methods/files/docs.js';
import { one, type Queryable } from '../../../db/types.js';
import { decodeCursor, encodeCursor, timeAndId } from '../../core/cursor.js';
import { handler } from '../../core/handler.js';
import { closePendingApprovals } from '../../approval/index.js';
import { roleRank } from '../access.js';
import { blocksToMarkdown } from './markdown.js';
import { applyOps, opsFromJson, staleTargets, type OpChange, type Targets } from './ops.js';
import { commitForCall, docAccess, headOf, headWithBlocks } from './revise.js';
import { blockNode, loadBlocks, type DocState } from './store.js';

/*
 * files.docSuggestions and files.docSuggestResolve: edits proposed against a base revision, listed with each op's
 * blocks before and after, accepted as a new revision or rejected. Stale is computed, never stored: an open
 * suggestion is stale while a block (or tab) it changes differs at the head from its base, and accepting it is
 * CONFLICT changing nothing. An agent's accept holds for a human (agents suggest, humans accept); the
 * action class is the method's own, files.doc_suggest_resolve, as the signature law requires.
 */

interface SuggestionRow {
  suggestion_id: string;
  file_id: string;
  base_revision: number;
  ops: Record<string, unknown>[];
  op_count: number;
  targets: Targets;
  changes: (Omit<OpChange, 'before' | 'after'> & { before: [string, string][]; after: [string, string][] })[];
  status: 'open' | 'accepted' | 'rejected';
  author_id: string;
  created_at: string | Date;
  resolved_by: string | null;
  resolved_at: string | Date | null;
  revision: number | null;
}

const COLUMNS = 'suggestion_id, file_id, base_revision, ops, op_count, targets, changes, status, author_id, created_at, resolved_by, resolved_at, revision';
const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

/** Suggestions as the contract shows them: before/after as Markdown, stale computed against `head`. */
async function shape(q: Queryable, orgId: string, fileId: string, rows: readonly SuggestionRow[], head: DocState): Promise<z.infer<typeof Suggestion>[]> {
  const hashes = rows.flatMap((r) => r.changes.flatMap((ch) => [...ch.before, ...ch.after].map(([, h]) => h)));
  const blocks = await loadBlocks(q, orgId, fileId, hashes);
  const md = (refs: [string, string][]) => (refs.length === 0 ? null : blocksToMarkdown(refs.map(([, h]) => blockNode(blocks.get(h)!))));
  return rows.map((r) => {
    const stale = r.status === 'open' ? staleTargets(r.targets, head.tabs) : [];
    return {
      id: r.suggestion_id,
      fileId: r.file_id,
      baseRevision: Number(r.base_revision),
      status: r.status === 'open' && stale.length > 0 ? 'stale' : r.status,
      staleBlocks: stale,
      opCount: Number(r.op_count),
      changes: r.changes.map((ch) => ({
        index: ch.index,
        op: ch.op,
        tabId: ch.tabId,
        blockIds: (ch.op === 'insert' ? ch.after : ch.before).map(([id]) => id),
        before: ch.op === 'insert' ? null : md(ch.before),
        after: ch.after.length === 0 ? null : md(ch.after),
      })),
      authorId: r.author_id,
      createdAt: iso(r.created_at)!,
      resolvedBy: r.resolved_by,
      resolvedAt: iso(r.resolved_at),
      revision: r.revision === null ? null : Number(r.revision),
    };
  });
}

export const docSuggestions = handler(c.docSuggestions, async (ctx, p) => {
  await docAccess(ctx, p.fileId, 'viewer', false);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  const after = p.cursor === undefined ? null : decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
  const status = p.status === 'stale' ? 'open' : p.status;
  const rows = await ctx.q.query<SuggestionRow>(
    `SELECT ${COLUMNS} FROM doc_suggestions
      WHERE org_id = $1 AND file_id = $2 AND ($3::text IS NULL OR status = $3)
        AND ($4::timestamptz IS NULL OR (created_at, suggestion_id) < ($4::timestamptz, $5::text))
      ORDER BY created_at DESC, suggestion_id DESC LIMIT $6`,
    [ctx.orgId, p.fileId, status ?? null, after?.[0] ?? null, after?.[1] ?? null, p.limit],
  );
  const shaped = await shape(ctx.q, ctx.orgId, p.fileId, rows, head);
  // open and stale split the open rows: a page may then hold fewer than limit (nextCursor goes on).
  const suggestions = p.status === 'open' || p.status === 'stale' ? shaped.filter((s) => s.status === p.status) : shaped;
  const last = rows[rows.length - 1];
  return { suggestions, nextCursor: rows.length === p.limit ? encodeCursor([iso(last.created_at)!, last.suggestion_id]) : null };
});

export const docSuggestResolve = handler(
  c.docSuggestResolve,
  async (ctx, p) => {
    const [row] = await ctx.q.query<SuggestionRow>(`SELECT ${COLUMNS} FROM doc_suggestions WHERE org_id = $1 AND suggestion_id = $2`, [ctx.orgId, p.suggestionId]);
    if (!row) throw notFound(`suggestion ${p.suggestionId}`);
    const { role } = await docAccess(ctx, row.file_id, 'commenter', true);
    const own = row.author_id === ctx.principal.id;
    if (roleRank(role) < roleRank('editor') && !(p.action === 'reject' && own)) {
      throw new ApiError('FORBIDDEN_SCOPE', `missing role editor on ${row.file_id} (you are ${role}): an editor ${p.action}s suggestions${p.action === 'reject' ? ' (its author may reject it)' : ''}`);
    }
    // Re-read under the doc's lock (docAccess locked the files row): the status cannot move under us now.
    const locked = one(await ctx.q.query<SuggestionRow>(`SELECT ${COLUMNS} FROM doc_suggestions WHERE org_id = $1 AND suggestion_id = $2 FOR UPDATE`, [ctx.orgId, p.suggestionId]));
    const { head, blocks } = await headWithBlocks(ctx.q, ctx.orgId, row.file_id);
    const ids = { fileId: row.file_id, suggestionId: p.suggestionId, baseRevision: Number(locked.base_revision), ops: Number(locked.op_count) };
    const blockCount = new Set(locked.changes.flatMap((ch) => [...ch.before, ...ch.after].map(([id]) => id))).size;
    const hold =
      p.action === 'accept' && ctx.principal.kind === 'agent'
        ? {
            actionClass: 'files.doc_suggest_resolve',
            subjectId: p.suggestionId,
            summary: `Accept suggestion ${p.suggestionId} by ${locked.author_id} on doc ${row.file_id}: ${ids.ops} op${ids.ops === 1 ? '' : 's'} changing ${blockCount} block${blockCount === 1 ? '' : 's'} becomes a new revision`,
            params: p,
          }
        : null;
    const want = p.action === 'accept' ? 'accepted' : 'rejected';
    const answer = async (changed: boolean, state: DocState) => {
      const now = one(await ctx.q.query<SuggestionRow>(`SELECT ${COLUMNS} FROM doc_suggestions WHERE org_id = $1 AND suggestion_id = $2`, [ctx.orgId, p.suggestionId]));
      return { suggestion: (await shape(ctx.q, ctx.orgId, row.file_id, [now], state))[0], revision: state.revision, contentSha256: state.contentSha256, changed };
    };

    if (locked.status === want) {
      if (hold) await ctx.verifyProof(hold);
      const out = await answer(false, head);
      await ctx.emit(`files.suggestion.${p.action}`, row.file_id, { ...ids, revision: head.revision, noop: true });
      return out;
    }
    if (locked.status !== 'open') {
      throw conflict(`suggestion ${p.suggestionId} is ${locked.status}${locked.status === 'accepted' ? ` (revision ${locked.revision})` : ''}: it cannot be ${want} now; propose the edit again (files.docWriteRevision) if it is still wanted`);
    }
    const at = ctx.deps.clock.now().toISOString();
    if (p.action === 'reject') {
      await ctx.q.query(`UPDATE doc_suggestions SET status = 'rejected', resolved_by = $3, resolved_at = $4 WHERE org_id = $1 AND suggestion_id = $2`, [ctx.orgId, p.suggestionId, ctx.principal.id, at]);
      // An agent's accept held for a human is dead now: its approval closes, so no human decides it.
      await closePendingApprovals(ctx.q, ctx.orgId, {
        actionClasses: ['files.doc_suggest_resolve'],
        subjectIds: [p.suggestionId],
        status: 'withdrawn',
        by: ctx.principal.id,
        note: `suggestion ${p.suggestionId} was rejected by ${ctx.principal.id}`,
      });
      const out = await answer(true, head);
      await ctx.emit('files.suggestion.reject', row.file_id, { ...ids, revision: head.revision, by: own ? 'author' : 'editor' });
      return out;
    }
    const stale = staleTargets(locked.targets, head.tabs);
    if (stale.length > 0) {
      throw conflict(
        `suggestion ${p.suggestionId} is stale: ${stale.slice(0, 20).join(', ')} changed since its base revision ${locked.base_revision} (the head is ${head.revision}); nothing was changed. Reject it, and propose the edit again against the head`,
      );
    }
    const proof = hold ? await ctx.requireSignature(hold) : null;
    // Its targets are as at its base, so its ops apply to the head as they did when it was made.
    const applied = applyOps(opsFromJson(locked.ops), { head: head.tabs, base: head.tabs, baseRevision: head.revision, headRevision: head.revision, blocks });
    const state = await commitForCall(
      ctx,
      row.file_id,
      head,
      applied.tabs,
      blocks,
      applied.added,
      { source: 'accept', baseRevision: Number(locked.base_revision), ops: Number(locked.op_count), suggestionId: p.suggestionId, authorId: locked.author_id, acceptedBy: ctx.principal.id },
      'suggestionId',
    );
    await ctx.q.query(`UPDATE doc_suggestions SET status = 'accepted', resolved_by = $3, resolved_at = $4, revision = $5 WHERE org_id = $1 AND suggestion_id = $2`, [
      ctx.orgId,
      p.suggestionId,
      ctx.principal.id,
      at,
      state.revision,
    ]);
    const out = await answer(true, state);
    await ctx.emit('files.suggestion.accept', row.file_id, {
      ...ids,
      revision: state.revision,
      contentSha256: state.contentSha256,
      blocks: applied.changedBlocks.length,
      ...(proof ? { approvalId: proof.approvalId } : {}),
    });
    return out;
  },
);
