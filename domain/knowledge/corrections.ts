import { one } from '../../db/types.js';
import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { knowledge as c } from '../../protocol/methods/knowledge.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { scheduleEmbedding } from './vectors.js';
import { requireSources, verifiedHold } from './append.js';
import { ENTRY_COLUMNS, insertEntry, insertRevision, loadEntry, bodyHash, requireActive, servedTo, toEntry, type EntryRow } from './model.js';

/*
 * Explicit corrections, never automatic: invalidate (it was never true, or must no longer be used), replace (the
 * world changed: the old entry is closed at the new one's validFrom and linked to it, in one act), rewrite (the
 * same meaning in better words, or a human's verification). An agent changing a verified entry holds for a human.
 */

export const invalidate = handler(c.invalidate, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const row = await loadEntry(ctx.q, ctx.orgId, p.entryId, 'FOR UPDATE');
  const served = await servedTo(ctx.q, ctx.orgId, p.entryId);
  const counts = { servedTo: served.length, servedSearches: served.reduce((n, s) => n + s.searches, 0) };
  if (row.status === 'invalidated') {
    await ctx.emit('knowledge.entry.invalidate', row.entry_id, { entryId: row.entry_id, reason: row.invalidated_reason, ...counts, noop: true });
    return { entry: toEntry(row, now), servedTo: served, changed: false };
  }
  const proof = await verifiedHold(ctx, row, 'invalidates', p);
  const saved = one(
    await ctx.q.query<EntryRow>(
      `UPDATE knowledge_entries SET status = 'invalidated', invalidated_reason = $3, invalidated_by = $4, invalidated_at = $5, updated_at = $5
      WHERE org_id = $1 AND entry_id = $2 RETURNING ${ENTRY_COLUMNS}`,
      [ctx.orgId, p.entryId, p.reason, ctx.principal.id, now.toISOString()],
    ),
  );
  await ctx.emit('knowledge.entry.invalidate', row.entry_id, {
    entryId: row.entry_id,
    reason: p.reason,
    was: row.status,
    revision: Number(row.revision),
    ...counts,
    approvalId: proof?.approvalId ?? null,
  });
  return { entry: toEntry(saved, now), servedTo: served, changed: true };
});

export const replace = handler(c.replace, async (ctx, p) => {
  requireSources(ctx, p.sources);
  const now = ctx.deps.clock.now();
  const row = await loadEntry(ctx.q, ctx.orgId, p.entryId, 'FOR UPDATE');
  requireActive(row, 'replace');
  const validFrom = p.validFrom ? new Date(p.validFrom).toISOString() : now.toISOString();
  if (validFrom <= new Date(row.valid_from).toISOString()) {
    throw badRequest('validFrom', `must be after the replaced entry's validFrom (${new Date(row.valid_from).toISOString()})`);
  }
  if (row.valid_until !== null && validFrom > new Date(row.valid_until).toISOString()) {
    throw conflict(
      `knowledge entry ${row.entry_id} stopped being valid at ${new Date(row.valid_until).toISOString()}, before ${validFrom}: append the new fact (knowledge.append) instead`,
    );
  }
  const proof = await verifiedHold(ctx, row, 'replaces', p);
  const entryId = newId('kn');
  const verified = ctx.principal.kind === 'human';
  // The successor first (the old row names it), then the old one closed at the successor's start.
  const entry = await insertEntry(ctx.q, ctx.orgId, {
    entryId,
    body: p.body,
    kind: row.kind,
    subjectIds: row.subject_ids,
    sources: p.sources,
    verified,
    authorId: ctx.principal.id,
    validFrom,
    validUntil: row.valid_until === null ? null : new Date(row.valid_until).toISOString(),
    at: now.toISOString(),
    supersedes: row.entry_id,
    approvalId: proof?.approvalId ?? null,
  });
  const closed = one(
    await ctx.q.query<EntryRow>(
      `UPDATE knowledge_entries SET status = 'superseded', superseded_by = $3, valid_until = $4, updated_at = $5
      WHERE org_id = $1 AND entry_id = $2 RETURNING ${ENTRY_COLUMNS}`,
      [ctx.orgId, row.entry_id, entryId, validFrom, now.toISOString()],
    ),
  );
  scheduleEmbedding(ctx, entryId);
  await ctx.emit('knowledge.entry.replace', entryId, {
    entryId,
    replacedId: row.entry_id,
    replacedRevision: Number(row.revision),
    verified,
    sources: p.sources.length,
    approvalId: proof?.approvalId ?? null,
  });
  return { entry: toEntry(entry, now), replaced: toEntry(closed, now) };
});

export const rewrite = handler(c.rewrite, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  if (p.verify !== undefined && ctx.principal.kind !== 'human') {
    throw new ApiError(
      'FORBIDDEN_SCOPE',
      `missing role human on ${p.entryId}: only a human verifies an entry (an agent's rewrite leaves verified as it is); ask a human to confirm it`,
    );
  }
  if (p.body === undefined && p.verify === undefined) throw badRequest('body', 'required unless verify is given');
  const row = await loadEntry(ctx.q, ctx.orgId, p.entryId, 'FOR UPDATE');
  requireActive(row, 'rewrite');
  const revision = Number(row.revision);
  if (p.ifRevision !== undefined && p.ifRevision !== revision) {
    throw conflict(`knowledge entry ${row.entry_id} is at revision ${revision}, not ${p.ifRevision}: search it again and retry with ifRevision ${revision}`);
  }
  const body = p.body ?? row.body;
  // A human's words are verified; an agent's rewording keeps what the entry was (approved, if it was verified).
  const verified = p.verify ?? (ctx.principal.kind === 'human' && p.body !== undefined ? true : row.verified);
  if (bodyHash(body) === row.body_hash && body === row.body && verified === row.verified) {
    await ctx.emit('knowledge.entry.rewrite', row.entry_id, { entryId: row.entry_id, revision, verified, noop: true });
    return { entry: toEntry(row, now), changed: false };
  }
  const proof = await verifiedHold(ctx, row, 'rewrites', p);
  const next = revision + 1;
  const saved = one(
    await ctx.q.query<EntryRow>(
      `UPDATE knowledge_entries SET body = $3, body_hash = $4, verified = $5, verified_by = CASE WHEN $5 THEN coalesce($6, verified_by) ELSE NULL END,
            revision = $7, updated_at = $8
      WHERE org_id = $1 AND entry_id = $2 RETURNING ${ENTRY_COLUMNS}`,
      [ctx.orgId, row.entry_id, body, bodyHash(body), verified, ctx.principal.kind === 'human' && verified ? ctx.principal.id : null, next, now.toISOString()],
    ),
  );
  await insertRevision(ctx.q, ctx.orgId, {
    entryId: row.entry_id,
    revision: next,
    body,
    verified,
    by: ctx.principal.id,
    at: now.toISOString(),
    approvalId: proof?.approvalId ?? null,
  });
  if (body !== row.body) scheduleEmbedding(ctx, row.entry_id);
  await ctx.emit('knowledge.entry.rewrite', row.entry_id, {
    entryId: row.entry_id,
    revision: next,
    verified,
    reworded: body !== row.body,
    approvalId: proof?.approvalId ?? null,
  });
  return { entry: toEntry(saved, now), changed: true };
});
