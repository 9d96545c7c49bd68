import { ApiError, badRequest } from '../../../protocol/errors.js';
import { docs as c } from '../../../protocol/methods/files/docs.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { roleRank } from '../access.js';
import { applyOps, opsToJson, resolveOps, type Applied } from './ops.js';
import { commitForCall, docAccess, headWithBlocks } from './revise.js';
import { compose, loadRevision, saveBlocks } from './store.js';

/*
 * files.docWriteRevision: ops by block id against the revision the caller read. Editors write revisions; mode
 * suggest (commenters and up), or an agent writing a review-mode doc, files a suggestion instead (agents
 * suggest, humans accept). Blocks changed since the base are CONFLICT naming them; untouched ones merge onto the
 * head. The event carries ids, counts and hashes only.
 */

/** Per op, the blocks it left (an insert's new ids; none for a delete). */
const resultsOf = (applied: Applied) => applied.changes.map((ch) => ({ blockIds: ch.after.map((b) => b.id) }));

export const docWriteRevision = handler(c.docWriteRevision, async (ctx, p) => {
  const { file, role } = await docAccess(ctx, p.fileId, 'viewer', true);
  const suggest = p.mode === 'suggest' || (ctx.principal.kind === 'agent' && file.review_mode);
  const need = suggest ? 'commenter' : 'editor';
  if (roleRank(role) < roleRank(need)) {
    const hint = !suggest && roleRank(role) >= roleRank('commenter') ? 'send mode "suggest" to propose the edit, or ask a manager of it for editor' : `ask a manager of it to share it with you as ${need}`;
    throw new ApiError('FORBIDDEN_SCOPE', `missing role ${need} on ${p.fileId} (you are ${role}): ${hint}`);
  }
  const ops = resolveOps(p.ops);
  const { head, blocks } = await headWithBlocks(ctx.q, ctx.orgId, p.fileId);
  if (p.baseRevision > head.revision) throw badRequest('baseRevision', `revision ${p.baseRevision} is ahead of the head (${head.revision}): read the doc again`);
  const base = p.baseRevision === head.revision ? head : (await loadRevision(ctx.q, ctx.orgId, p.fileId, p.baseRevision))!;
  const applied = applyOps(ops, { head: head.tabs, base: base.tabs, baseRevision: base.revision, headRevision: head.revision, blocks });
  const ids = { fileId: p.fileId, baseRevision: p.baseRevision, ops: p.ops.length };
  const unchanged = applied.changedBlocks.length === 0;

  if (suggest) {
    if (unchanged) {
      await ctx.emit('files.doc.suggest', p.fileId, { ...ids, suggestionId: null, blocks: 0, noop: true });
      return { outcome: 'unchanged', revision: head.revision, contentSha256: head.contentSha256, suggestionId: null, changedBlocks: [], results: resultsOf(applied), changed: false };
    }
    compose(applied.tabs, blocks, 'ops'); // the size limit holds for what would be accepted
    const suggestionId = newId('sug');
    // The proposed blocks are stored now (content-addressed): the listing shows them, an accept re-applies the ops.
    await saveBlocks(ctx.q, ctx.orgId, p.fileId, applied.added);
    const changes = applied.changes.map((ch) => ({ ...ch, before: ch.before.map((b) => [b.id, b.hash]), after: ch.after.map((b) => [b.id, b.hash]) }));
    await ctx.q.query(
      `INSERT INTO doc_suggestions (org_id, suggestion_id, file_id, base_revision, ops, op_count, targets, changes, author_id, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8::jsonb, $9, $10)`,
      [ctx.orgId, suggestionId, p.fileId, p.baseRevision, JSON.stringify(opsToJson(applied.normalized)), ops.length, JSON.stringify(applied.targets), JSON.stringify(changes),
        ctx.principal.id, ctx.deps.clock.now().toISOString()],
    );
    await ctx.emit('files.doc.suggest', p.fileId, { ...ids, suggestionId, blocks: applied.changedBlocks.length, reviewMode: file.review_mode });
    return {
      outcome: 'suggested',
      revision: head.revision,
      contentSha256: head.contentSha256,
      suggestionId,
      changedBlocks: applied.changedBlocks,
      results: resultsOf(applied),
      changed: true,
    };
  }

  if (unchanged) {
    await ctx.emit('files.doc.revise', p.fileId, { ...ids, revision: head.revision, contentSha256: head.contentSha256, blocks: 0, noop: true });
    return { outcome: 'unchanged', revision: head.revision, contentSha256: head.contentSha256, suggestionId: null, changedBlocks: [], results: resultsOf(applied), changed: false };
  }
  const state = await commitForCall(ctx, p.fileId, head, applied.tabs, blocks, applied.added, { source: 'edit', baseRevision: p.baseRevision, ops: ops.length }, 'ops');
  await ctx.emit('files.doc.revise', p.fileId, { ...ids, revision: state.revision, contentSha256: state.contentSha256, sizeBytes: state.sizeBytes, blocks: applied.changedBlocks.length });
  return {
    outcome: 'revised',
    revision: state.revision,
    contentSha256: state.contentSha256,
    suggestionId: null,
    changedBlocks: applied.changedBlocks,
    results: resultsOf(applied),
    changed: true,
  };
});
