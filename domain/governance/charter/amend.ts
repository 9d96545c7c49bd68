import { ApiError, badRequest, conflict } from '../../../protocol/errors.js';
import { canonicalJson } from '../../../protocol/hashing.js';
import { CHARTER_OP_PARAMS, charter as c, MAX_CHARTER_BYTES, type CharterOp } from '../../../protocol/methods/charter.js';
import { formatIssue } from '../../../protocol/schema.js';
import { handler } from '../../core/handler.js';
import { amendmentOf, markAmendmentApplied } from '../decision/amendment.js';
import { hashOf, sizeOf, type CharterDoc } from './document.js';
import { headView } from './get.js';
import { applyOp, type OpParams } from './ops.js';
import { checkBase, commitVersion, documentAt, lockCharter } from './store.js';

/*
 * charter.amend: the merge. An adopted decision's amendment (charter operations written against a version) is
 * applied in order to the head as one new version. The decision rights were exercised when the decision was
 * adopted, so the amendment runs for any charter writer. An operation is stale when it no longer applies (its
 * section gone, its key taken, its clause ids unknown) or, when the amendment names its base version, when what
 * it touches changed between that version and the head (a three-way check, as a merge would): CONFLICT.
 */

type Op = { op: CharterOp; params: Record<string, unknown> };

/** What an operation touches, as comparable text: the same in the base and the head means no one else changed it. */
function touched(doc: CharterDoc, op: Op): string {
  const p = op.params;
  switch (op.op) {
    case 'update':
      return canonicalJson({ title: p.title === undefined ? null : doc.title, mission: p.mission === undefined ? null : doc.mission });
    case 'addSection':
      return canonicalJson({
        key: doc.sections.find((s) => s.key === p.key)?.id ?? null,
        order: p.position === undefined ? null : doc.sections.map((s) => s.id),
      });
    case 'updateSection':
    case 'deleteSection':
    case 'updateClauses':
      return canonicalJson(doc.sections.find((s) => s.id === p.sectionId) ?? null);
    case 'reorderSections':
      return canonicalJson(doc.sections.map((s) => s.id));
    case 'editColleagueField': {
      const record = doc.colleagues.find((x) => x.principalId === p.principalId);
      return canonicalJson(record ? ((record as unknown as Record<string, unknown>)[p.field as string] ?? null) : null);
    }
  }
}

export const amend = handler(c.amend, async (ctx, p) => {
  const a = await amendmentOf(ctx.q, ctx.orgId, p.decisionId);
  const head = await lockCharter(ctx.q, ctx.orgId);
  const base = { charterId: head.charter_id, decisionId: a.decisionId };
  if (a.appliedCharterVersion !== null) {
    await ctx.emit('charter.document.amend', head.charter_id, {
      ...base,
      version: head.version,
      contentHash: head.content_hash,
      appliedVersion: a.appliedCharterVersion,
      noop: true,
    });
    return { charter: headView(head), decisionId: a.decisionId, ops: a.amendment?.ops.length ?? 0, changed: false };
  }
  if (a.status !== 'adopted') {
    throw conflict(
      `decision ${a.ref} is ${a.status}, not adopted: its amendment applies once it is adopted` +
        (a.status === 'proposed' || a.status === 'adjustment_requested'
          ? ' (decision.adopt)'
          : '; a closed decision’s amendment never applies (propose a new one)'),
    );
  }
  if (a.amendment === null) throw conflict(`decision ${a.ref} carries no amendment: there is nothing to apply to the charter`);
  checkBase(head, p.baseVersion);
  const written = a.amendment.baseVersion;
  if (written !== undefined && written > head.version) {
    throw conflict(
      `decision ${a.ref}’s amendment was written against charter version ${written}, but the charter is at version ${head.version}: propose a new version of the decision against it`,
    );
  }
  const baseDoc = written !== undefined && written < head.version ? await documentAt(ctx.q, ctx.orgId, head, written) : null;
  const stale = (i: number, op: Op, why: string): never => {
    throw conflict(
      `decision ${a.ref}’s amendment op ${i} (${op.op}) is stale against charter version ${head.version}: ${why}; ` +
        `propose a new version of the decision written against version ${head.version} (charter.get {diffFrom: ${written ?? head.version}})`,
    );
  };
  let doc = head.document;
  for (const [i, op] of (a.amendment.ops as Op[]).entries()) {
    const parsed = CHARTER_OP_PARAMS[op.op].safeParse(op.params, { reportInput: true });
    if (!parsed.success) stale(i, op, `its params do not fit charter.${op.op}: ${formatIssue(parsed.error.issues[0])}`);
    if (baseDoc && touched(baseDoc, op) !== touched(head.document, op)) stale(i, op, `what it edits changed since version ${written}`);
    try {
      doc = (await applyOp({ q: ctx.q, orgId: ctx.orgId }, doc, op.op, parsed.data as OpParams<typeof op.op>)).doc;
    } catch (e) {
      if (e instanceof ApiError) stale(i, op, e.message);
      throw e;
    }
  }
  const size = sizeOf(doc);
  if (size > MAX_CHARTER_BYTES)
    throw badRequest('decisionId', `the amendment would make the charter ${size} bytes, over its limit of ${MAX_CHARTER_BYTES} (256 KB)`);
  const ops = a.amendment.ops.length;
  if (hashOf(doc) === head.content_hash) {
    // The charter already says what the decision decided: recorded as applied at the head, no empty version.
    await markAmendmentApplied(ctx.q, ctx.orgId, a.decisionId, head.version);
    await ctx.emit('charter.document.amend', head.charter_id, { ...base, version: head.version, contentHash: head.content_hash, ops, contentUnchanged: true });
    return { charter: headView(head), decisionId: a.decisionId, ops, changed: true };
  }
  const next = await commitVersion(ctx.q, ctx.orgId, head, doc, { method: 'amend', binding: true, by: ctx.principal.id, decisionId: a.decisionId });
  await markAmendmentApplied(ctx.q, ctx.orgId, a.decisionId, next.version);
  await ctx.emit('charter.document.amend', head.charter_id, {
    ...base,
    version: next.version,
    parentHash: next.parent_hash,
    contentHash: next.content_hash,
    sizeBytes: next.size_bytes,
    ops,
    adoptedVersion: a.adoptedVersion,
  });
  return { charter: headView(next), decisionId: a.decisionId, ops, changed: true };
});
