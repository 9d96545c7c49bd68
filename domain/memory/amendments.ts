import { one } from '../../db/types.js';
import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import { memory as c } from '../../protocol/methods/memory.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { actionClassOf, closePendingApprovals } from '../approval/index.js';
import { activeHumansWithRole } from '../people/index.js';
import {
  AMENDMENT_COLUMNS,
  appended,
  BLOCK_COLUMNS,
  insertVersion,
  loadBlock,
  occurrences,
  shared,
  toAmendment,
  toBlock,
  valueHash,
  type AmendmentRow,
  type BlockRow,
} from './model.js';

/*
 * Amendments: no lost shared-memory writes. A proposal names the version it was made on; a replace quotes the text it
 * replaces, which must be there exactly once when proposed and still there when merged (else CONFLICT stale), and an
 * append commutes. The owner or an admin decides, never the proposer; an agent merging into a block other
 * principals load holds for a human, as writing it would.
 */

export const proposeAmendment = handler(c.proposeAmendment, async (ctx, p) => {
  const block = await loadBlock(ctx.q, ctx.orgId, p.blockId, ctx.principal, 'FOR UPDATE');
  const version = Number(block.version);
  if (block.read_only && block.owner_id !== ctx.principal.id) {
    throw conflict(`memory block ${block.block_id} is read-only: only its owner (${block.owner_id}) changes it, with memory.author`);
  }
  if (p.baseVersion !== undefined && p.baseVersion !== version) {
    throw conflict(`memory block ${block.block_id} is at version ${version}, not ${p.baseVersion}: read it (memory.list) and propose on version ${version}`);
  }
  let value: string;
  if (p.op === 'replace') {
    if (p.oldText === undefined) throw badRequest('oldText', 'required with op replace: the text replaced, quoted exactly');
    const n = occurrences(block.value, p.oldText);
    if (n === 0) {
      throw conflict(`oldText is not in memory block ${block.block_id} (version ${version}): read it (memory.list) and quote what is there now`);
    }
    if (n > 1) throw badRequest('oldText', `matches ${n} places in the block: quote more of the text around it so it matches once`);
    value = block.value.replace(p.oldText, () => p.newText);
  } else {
    if (p.oldText !== undefined) throw badRequest('oldText', 'only with op replace');
    if (p.newText === '') throw badRequest('newText', 'must be at least 1 character to append');
    value = appended(block.value, p.newText);
  }
  const limit = Number(block.char_limit);
  if (value.length > limit) throw badRequest('newText', `the block would be ${value.length - limit} characters over limit ${limit}`);
  const row = one(
    await ctx.q.query<AmendmentRow>(
      `INSERT INTO memory_amendments (org_id, amendment_id, block_id, base_version, op, old_text, new_text, reason, proposer_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${AMENDMENT_COLUMNS}`,
      [ctx.orgId, newId('mam'), block.block_id, version, p.op, p.oldText ?? null, p.newText, p.reason, ctx.principal.id, ctx.deps.clock.now().toISOString()],
    ),
  );
  await ctx.emit('memory.amendment.propose', row.amendment_id, { amendmentId: row.amendment_id, blockId: block.block_id, baseVersion: version, op: p.op });
  return { amendment: toAmendment(row) };
});

export const mergeAmendment = handler(c.mergeAmendment, async (ctx, p) => {
  const [found] = await ctx.q.query<AmendmentRow>(`SELECT ${AMENDMENT_COLUMNS} FROM memory_amendments WHERE org_id = $1 AND amendment_id = $2`, [
    ctx.orgId,
    p.amendmentId,
  ]);
  if (!found) throw notFound(`amendment ${p.amendmentId}`);
  const block = await loadBlock(ctx.q, ctx.orgId, found.block_id, ctx.principal, 'FOR UPDATE').catch((e: unknown) => {
    throw e instanceof ApiError && e.code === 'NOT_FOUND' ? notFound(`amendment ${p.amendmentId}`) : e;
  });
  const a = one(
    await ctx.q.query<AmendmentRow>(`SELECT ${AMENDMENT_COLUMNS} FROM memory_amendments WHERE org_id = $1 AND amendment_id = $2 FOR UPDATE`, [
      ctx.orgId,
      p.amendmentId,
    ]),
  );
  if (a.proposer_id === ctx.principal.id) {
    throw conflict(`you proposed amendment ${a.amendment_id}: the block's owner (${block.owner_id}) or an admin merges or rejects it, never its proposer`);
  }
  const admin = ctx.principal.kind === 'human' && (await activeHumansWithRole(ctx.q, ctx.orgId, ['admin'])).includes(ctx.principal.id);
  if (block.owner_id !== ctx.principal.id && !admin) {
    throw new ApiError('FORBIDDEN_SCOPE', `missing role owner on ${block.block_id}: its owner (${block.owner_id}) or an org admin decides its amendments`);
  }
  const done = p.decision === 'merge' ? 'merged' : 'rejected';
  const kind = p.decision === 'merge' ? 'memory.amendment.merge' : 'memory.amendment.reject';
  const ids = { amendmentId: a.amendment_id, blockId: block.block_id };
  if (a.status !== 'open') {
    if (a.status !== done) throw conflict(`amendment ${a.amendment_id} was already ${a.status} by ${a.decided_by}: propose a new one`);
    await ctx.emit(kind, a.amendment_id, { ...ids, version: Number(block.version), sha256: block.sha256, noop: true });
    return { amendment: toAmendment(a), block: toBlock(block), changed: false };
  }
  const now = ctx.deps.clock.now().toISOString();
  if (p.decision === 'reject') {
    const saved = one(
      await ctx.q.query<AmendmentRow>(
        `UPDATE memory_amendments SET status = 'rejected', decided_by = $3, decided_at = $4 WHERE org_id = $1 AND amendment_id = $2 RETURNING ${AMENDMENT_COLUMNS}`,
        [ctx.orgId, a.amendment_id, ctx.principal.id, now],
      ),
    );
    // An agent's merge held for a human is dead now: its approval closes, so no human decides it.
    await closePendingApprovals(ctx.q, ctx.orgId, {
      actionClasses: [actionClassOf(ctx.method.name)],
      subjectIds: [a.amendment_id],
      status: 'withdrawn',
      by: ctx.principal.id,
      note: `amendment ${a.amendment_id} was rejected by ${ctx.principal.id}`,
    });
    await ctx.emit(kind, a.amendment_id, { ...ids, baseVersion: Number(a.base_version) });
    return { amendment: toAmendment(saved), block: toBlock(block), changed: true };
  }
  const version = Number(block.version);
  let value: string;
  if (a.op === 'replace') {
    const n = occurrences(block.value, a.old_text!);
    if (n !== 1) {
      throw conflict(
        `amendment ${a.amendment_id} is stale: its oldText is ${n === 0 ? 'no longer' : `now ${n} times`} in memory block ${block.block_id} ` +
          `(version ${version}; proposed on version ${Number(a.base_version)}): reject it and propose again on version ${version}`,
      );
    }
    value = block.value.replace(a.old_text!, () => a.new_text);
  } else {
    value = appended(block.value, a.new_text);
  }
  const limit = Number(block.char_limit);
  if (value.length > limit) {
    throw conflict(
      `merging amendment ${a.amendment_id} would put memory block ${block.block_id} ${value.length - limit} characters over limit ${limit}: reject it, or raise the limit (memory.author)`,
    );
  }
  const sha256 = valueHash(value);
  const proof =
    ctx.principal.kind === 'agent' && shared(block)
      ? await ctx.requireSignature({
          actionClass: actionClassOf(ctx.method.name),
          subjectId: a.amendment_id,
          summary: `An agent merges amendment ${a.amendment_id} (${a.op}) into memory block ${block.block_id} as version ${version + 1}, which other principals load`,
          params: p,
        })
      : null;
  const saved = one(
    await ctx.q.query<BlockRow>(
      `UPDATE memory_blocks SET value = $3, version = $4, sha256 = $5, updated_at = $6, updated_by = $7 WHERE org_id = $1 AND block_id = $2 RETURNING ${BLOCK_COLUMNS}`,
      [ctx.orgId, block.block_id, value, version + 1, sha256, now, ctx.principal.id],
    ),
  );
  await insertVersion(ctx.q, ctx.orgId, {
    blockId: block.block_id,
    version: version + 1,
    value,
    sha256,
    by: ctx.principal.id,
    at: now,
    amendmentId: a.amendment_id,
    approvalId: proof?.approvalId ?? null,
  });
  const merged = one(
    await ctx.q.query<AmendmentRow>(
      `UPDATE memory_amendments SET status = 'merged', decided_by = $3, decided_at = $4, merged_version = $5 WHERE org_id = $1 AND amendment_id = $2
     RETURNING ${AMENDMENT_COLUMNS}`,
      [ctx.orgId, a.amendment_id, ctx.principal.id, now, version + 1],
    ),
  );
  await ctx.emit(kind, a.amendment_id, { ...ids, baseVersion: Number(a.base_version), version: version + 1, sha256, approvalId: proof?.approvalId ?? null });
  return { amendment: toAmendment(merged), block: toBlock(saved), changed: true };
});
