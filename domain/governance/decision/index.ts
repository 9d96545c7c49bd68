import type { z } from 'zod';
import { ApiError, badRequest } from '../../../protocol/errors.js';
import { decision as c } from '../../../protocol/methods/decision.js';
import { one } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { activeHumansWithRole, getMembers } from '../../people/index.js';
import { readRights } from '../rights.js';
import { adopt, reverse, supersede } from './adopt.js';
import { listComments } from './comments.js';
import {
  checkLinks,
  contentHash,
  contentOf,
  getDecision,
  isOpen,
  ref,
  refreshOpenStatus,
  refuseClosed,
  refuseStale,
  SIGNATURE_COLUMNS,
  toComment,
  toDecision,
  toSignature,
  type CommentRow,
  type Content,
  type SignatureRow,
  COMMENT_COLUMNS,
} from './model.js';
import { counts, mayBlock, rightOf } from './requirements.js';
import { decisionReads } from './list.js';
import { decisionReferences } from './references.js';
import { decisionWaiting } from './waiting.js';

/*
 * decision.*: proposals, versions, comments, adjustment requests and signatures (adopt, supersede and reverse in
 * adopt.ts). Events carry ids, numbers, versions, statuses, counts and hashes: never a title, context, decision,
 * consequences, outcome, reason or comment body.
 */

export { decisionReads } from './list.js';

type ProposeParams = z.output<typeof c.propose.params>;

/** An amendment is charter operations: only a decision about the charter carries one. */
function checkAmendment(content: Content): void {
  if (content.amendment !== null && content.area !== 'charter' && !content.area.startsWith('charter.')) throw badRequest('amendment', 'area charter only');
}

async function insertVersion(ctx: HandlerCtx, decisionId: string, version: number, content: Content, hash: string): Promise<void> {
  await ctx.q.query('INSERT INTO decision_versions (org_id, decision_id, version, content, content_hash, proposed_by) VALUES ($1, $2, $3, $4::jsonb, $5, $6)', [
    ctx.orgId,
    decisionId,
    version,
    JSON.stringify(content),
    hash,
    ctx.principal.id,
  ]);
}

async function proposeNew(ctx: HandlerCtx, p: ProposeParams) {
  for (const field of ['title', 'area', 'decision'] as const) {
    if (p[field] === undefined) throw badRequest(field, 'required for a new decision (without decisionId)');
  }
  const content: Content = {
    title: p.title!,
    area: p.area!,
    context: p.context ?? null,
    decision: p.decision!,
    consequences: p.consequences ?? null,
    amendment: p.amendment ?? null,
    links: p.links ?? [],
  };
  checkAmendment(content);
  await checkLinks(ctx.q, ctx.orgId, content.links);
  const counter = one(
    await ctx.q.query<{ last_number: number }>(
      `INSERT INTO decision_counters (org_id, last_number) VALUES ($1, 1)
     ON CONFLICT (org_id) DO UPDATE SET last_number = decision_counters.last_number + 1 RETURNING last_number`,
      [ctx.orgId],
    ),
  );
  const decisionId = newId('dec');
  const hash = contentHash(content);
  await ctx.q.query(
    `INSERT INTO decisions (org_id, decision_id, number, title, area, context, decision, consequences, amendment, links, content_hash, driver)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12)`,
    [
      ctx.orgId,
      decisionId,
      counter.last_number,
      content.title,
      content.area,
      content.context,
      content.decision,
      content.consequences,
      content.amendment === null ? null : JSON.stringify(content.amendment),
      JSON.stringify(content.links),
      hash,
      ctx.principal.id,
    ],
  );
  await insertVersion(ctx, decisionId, 1, content, hash);
  const row = await getDecision(ctx.q, ctx.orgId, decisionId);
  await ctx.emit('decision.record.propose', decisionId, {
    decisionId,
    number: Number(row.number),
    version: 1,
    contentHash: hash,
    status: row.status,
    amendment: content.amendment !== null,
    links: content.links.length,
  });
  return { decision: toDecision(row), changed: true };
}

/** The driver's next version: given fields replace; signatures on older versions go stale, adjustment requests close. */
async function proposeNext(ctx: HandlerCtx, decisionId: string, p: ProposeParams) {
  const row = await getDecision(ctx.q, ctx.orgId, decisionId, 'FOR UPDATE');
  if (row.driver !== ctx.principal.id) {
    throw new ApiError(
      'CONFLICT',
      `decision ${ref(row)} is driven by ${row.driver}: only its driver proposes its next version; comment (decision.comment) or request an adjustment (decision.requestAdjustment) instead`,
    );
  }
  if (!isOpen(row)) refuseClosed(row, 'new versions');
  const current = contentOf(row);
  const next: Content = {
    title: p.title ?? current.title,
    area: p.area ?? current.area,
    context: p.context === undefined ? current.context : p.context,
    decision: p.decision ?? current.decision,
    consequences: p.consequences === undefined ? current.consequences : p.consequences,
    amendment: p.amendment === undefined ? current.amendment : p.amendment,
    links: p.links ?? current.links,
  };
  checkAmendment(next);
  if (p.links) {
    const self = p.links.findIndex((l) => l.target === decisionId);
    if (self >= 0) throw badRequest(`links.${self}.target`, 'a decision does not link to itself');
    await checkLinks(ctx.q, ctx.orgId, p.links);
  }
  const hash = contentHash(next);
  const base = { decisionId, number: Number(row.number) };
  if (hash === row.content_hash) {
    await ctx.emit('decision.record.propose', decisionId, { ...base, version: Number(row.version), contentHash: hash, status: row.status, noop: true });
    return { decision: toDecision(row), changed: false };
  }
  const version = Number(row.version) + 1;
  await ctx.q.query(
    `UPDATE decisions SET title = $3, area = $4, context = $5, decision = $6, consequences = $7, amendment = $8::jsonb, links = $9::jsonb,
            version = $10, content_hash = $11, status = 'proposed', updated_at = now()
      WHERE org_id = $1 AND decision_id = $2`,
    [
      ctx.orgId,
      decisionId,
      next.title,
      next.area,
      next.context,
      next.decision,
      next.consequences,
      next.amendment === null ? null : JSON.stringify(next.amendment),
      JSON.stringify(next.links),
      version,
      hash,
    ],
  );
  await insertVersion(ctx, decisionId, version, next, hash);
  const closed = await ctx.q.query(
    `UPDATE decision_comments SET resolved_at = now()
      WHERE org_id = $1 AND decision_id = $2 AND kind = 'adjustment' AND resolved_at IS NULL RETURNING 1`,
    [ctx.orgId, decisionId],
  );
  const [stale] = await ctx.q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM decision_signatures WHERE org_id = $1 AND decision_id = $2 AND version = $3',
    [ctx.orgId, decisionId, row.version],
  );
  const updated = await getDecision(ctx.q, ctx.orgId, decisionId);
  await ctx.emit('decision.record.propose', decisionId, {
    ...base,
    version,
    contentHash: hash,
    previousHash: row.content_hash,
    status: updated.status,
    staleSignatures: Number(stale?.n ?? 0),
    adjustmentsClosed: closed.length,
  });
  return { decision: toDecision(updated), changed: true };
}

export const propose = handler(c.propose, async (ctx, p) => (p.decisionId === undefined ? proposeNew(ctx, p) : proposeNext(ctx, p.decisionId, p)));

async function insertComment(ctx: HandlerCtx, decisionId: string, version: number, kind: 'comment' | 'adjustment', body: string): Promise<CommentRow> {
  const commentId = newId('dcm');
  const row = one(
    await ctx.q.query<CommentRow>(
      `INSERT INTO decision_comments (org_id, comment_id, decision_id, version, kind, body, author) VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${COMMENT_COLUMNS}`,
      [ctx.orgId, commentId, decisionId, version, kind, body, ctx.principal.id],
    ),
  );
  return row;
}

export const comment = handler(c.comment, async (ctx, p) => {
  const row = await getDecision(ctx.q, ctx.orgId, p.decisionId, 'FOR UPDATE');
  const added = await insertComment(ctx, p.decisionId, Number(row.version), 'comment', p.body);
  await ctx.emit('decision.comment.add', p.decisionId, {
    decisionId: p.decisionId,
    commentId: added.comment_id,
    version: Number(row.version),
    kind: 'comment',
  });
  return { comment: toComment(added), changed: true };
});

export const requestAdjustment = handler(c.requestAdjustment, async (ctx, p) => {
  const row = await getDecision(ctx.q, ctx.orgId, p.decisionId, 'FOR UPDATE');
  const resolved = rightOf((await readRights(ctx.q, ctx.orgId)).rights, row);
  if (!(await mayBlock(ctx.q, ctx.orgId, row, resolved, ctx.principal))) {
    throw new ApiError(
      'CONFLICT',
      `only a signatory (agree: ${(resolved.right.agree ?? []).join(', ') || 'none'}) or a decider (decidedBy ${resolved.right.decidedBy}) of decision ${ref(row)} ` +
        `may block its adoption; ${ctx.principal.id} is neither: comment instead (decision.comment)`,
    );
  }
  if (!isOpen(row)) refuseClosed(row, 'adjustment requests');
  refuseStale(row, p.version);
  const added = await insertComment(ctx, p.decisionId, p.version, 'adjustment', p.body);
  await ctx.q.query(`UPDATE decisions SET status = 'adjustment_requested', updated_at = now() WHERE org_id = $1 AND decision_id = $2`, [
    ctx.orgId,
    p.decisionId,
  ]);
  const updated = await getDecision(ctx.q, ctx.orgId, p.decisionId);
  await ctx.emit('decision.adjustment.request', p.decisionId, {
    decisionId: p.decisionId,
    commentId: added.comment_id,
    version: p.version,
    status: updated.status,
  });
  return { decision: toDecision(updated), comment: toComment(added), changed: true };
});

/**
 * A signature on the current version. Relayed (onBehalfOf another): a signature act held for that human alone, the
 * proof bound to the decision, the params (version, signer) and, through the summary the human read, the content hash.
 */
export const sign = handler(c.sign, async (ctx, p) => {
  const row = await getDecision(ctx.q, ctx.orgId, p.decisionId, 'FOR UPDATE');
  if (!isOpen(row)) refuseClosed(row, 'signatures');
  refuseStale(row, p.version);
  const relayed = p.onBehalfOf !== undefined && p.onBehalfOf !== ctx.principal.id;
  const signer = relayed ? p.onBehalfOf! : ctx.principal.id;
  let label = signer;
  if (relayed) {
    const [human] = await getMembers(ctx.q, ctx.orgId, [signer]);
    if (!human || human.kind !== 'human' || human.status !== 'active') throw badRequest('onBehalfOf', `no active human member ${signer} in this org`);
    // The relayed signature is that human's approval: someone who cannot decide approvals signs by calling.
    if (!(await activeHumansWithRole(ctx.q, ctx.orgId, ['admin', 'approver'])).includes(signer)) {
      throw badRequest(
        'onBehalfOf',
        `${signer} cannot decide approvals (role admin or approver), so cannot approve a relayed signature; they sign by calling decision.sign`,
      );
    }
    if (human.handle) label = `@${human.handle} (${signer})`;
  }
  const who = { id: signer, kind: relayed ? ('human' as const) : ctx.principal.kind };
  const hold = {
    actionClass: 'decision.sign',
    subjectId: row.decision_id,
    summary: `Sign decision D-${row.number} "${row.title.slice(0, 120)}" (version ${row.version}, content ${row.content_hash.slice(0, 12)}) as ${label}, relayed by ${ctx.principal.id}`,
    params: p,
    deciders: [signer],
  };
  const resolved = rightOf((await readRights(ctx.q, ctx.orgId)).rights, row);
  const countsFor = await counts(ctx.q, ctx.orgId, row, resolved, who);
  const [existing] = await ctx.q.query<SignatureRow>(
    `SELECT ${SIGNATURE_COLUMNS} FROM decision_signatures WHERE org_id = $1 AND decision_id = $2 AND version = $3 AND signer = $4`,
    [ctx.orgId, row.decision_id, p.version, signer],
  );
  const base = { decisionId: row.decision_id, version: p.version, contentHash: row.content_hash, signer, signerKind: who.kind, counts: countsFor };
  if (existing) {
    if (relayed) await ctx.verifyProof(hold);
    await ctx.emit('decision.signature.add', row.decision_id, { ...base, signatureId: existing.signature_id, noop: true });
    return { decision: toDecision(row), signature: toSignature(existing, Number(row.version)), counts: countsFor, changed: false };
  }
  const approvalId = relayed ? (await ctx.requireSignature(hold)).approvalId : null;
  const added = one(
    await ctx.q.query<SignatureRow>(
      `INSERT INTO decision_signatures (org_id, signature_id, decision_id, version, content_hash, signer, signer_kind, relayed_by, approval_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${SIGNATURE_COLUMNS}`,
      [ctx.orgId, newId('dsg'), row.decision_id, p.version, row.content_hash, signer, who.kind, relayed ? ctx.principal.id : null, approvalId],
    ),
  );
  // The signer's own adjustment requests on this version stop blocking: they signed it as it stands.
  await ctx.q.query(
    `UPDATE decision_comments SET resolved_at = now()
        WHERE org_id = $1 AND decision_id = $2 AND version = $3 AND author = $4 AND kind = 'adjustment' AND resolved_at IS NULL`,
    [ctx.orgId, row.decision_id, p.version, signer],
  );
  await refreshOpenStatus(ctx.q, ctx.orgId, row.decision_id);
  const updated = await getDecision(ctx.q, ctx.orgId, row.decision_id);
  await ctx.emit('decision.signature.add', row.decision_id, {
    ...base,
    signatureId: added.signature_id,
    relayedBy: relayed ? ctx.principal.id : null,
    approvalId,
    status: updated.status,
  });
  return { decision: toDecision(updated), signature: toSignature(added, Number(updated.version)), counts: countsFor, changed: true };
});

export const decisionHandlers = family('decision', { propose, comment, requestAdjustment, sign, adopt, supersede, reverse, listComments });

/** The decision family, as domain/deployed.ts lists it. */
export const decisionFamily: Family = {
  name: 'decision',
  methods: decisionHandlers,
  reads: decisionReads,
  contributes: { references: decisionReferences, waiting: decisionWaiting },
};
