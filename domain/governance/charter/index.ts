import { badRequest } from '../../../protocol/errors.js';
import { charter as c, MAX_CHARTER_BYTES, type CharterOp } from '../../../protocol/methods/charter.js';
import { family, type Family } from '../../core/family.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { enforceRights, verifyGivenProof, type HoldSpec } from '../rights.js';
import { amend } from './amend.js';
import { hashOf, sizeOf } from './document.js';
import { get, headView } from './get.js';
import { applyOp, type OpParams } from './ops.js';
import { checkBase, commitVersion, lockCharter, type HeadRow } from './store.js';

/*
 * charter.*: one versioned charter per org. Every write locks the head, checks baseVersion, applies its edit
 * (ops.ts) and records the result as the next version (store.ts). Binding edits run under the decision rights
 * (charter.<method>, charter, *; default humans); an agent's binding edit, and anyone's edit of their own
 * authority, always holds for another human. Events carry ids, versions, content hashes, counts and field names:
 * never a title, mission, heading, body, clause or colleague text.
 */

export { charterIdOf } from './store.js';
export { charterAutonomyOf, charterReportsTo, charterRoleMembers, charterRolesOf } from './authority.js';

const EVENT: Record<CharterOp, string> = {
  update: 'charter.document.update',
  addSection: 'charter.section.add',
  updateSection: 'charter.section.update',
  deleteSection: 'charter.section.delete',
  reorderSections: 'charter.section.reorder',
  updateClauses: 'charter.clauses.update',
  editColleagueField: 'charter.colleague.edit',
};

type WriteParams = { baseVersion?: number; approvalId?: string; signatureToken?: string } & Record<string, unknown>;

/** Why a binding edit holds even for a caller who satisfies the rights. */
function mustHoldWhy(ctx: HandlerCtx, op: CharterOp, p: WriteParams): string | undefined {
  if (ctx.principal.kind === 'agent') return 'an agent never makes a binding charter edit alone';
  if (op === 'editColleagueField' && p.principalId === ctx.principal.id) return 'one’s own authority is decided by another human';
  return undefined;
}

async function write<K extends CharterOp>(ctx: HandlerCtx, op: K, p: WriteParams) {
  const head = await lockCharter(ctx.q, ctx.orgId);
  checkBase(head, p.baseVersion);
  const { baseVersion: _b, approvalId: _a, signatureToken: _t, ...opParams } = p;
  const applied = await applyOp({ q: ctx.q, orgId: ctx.orgId }, head.document, op, opParams as OpParams<K>);
  const hold: HoldSpec = {
    subjectId: applied.subjectId ?? head.charter_id,
    summary: `${applied.summary}; charter ${head.charter_id} at version ${head.version} (content ${head.content_hash.slice(0, 12)})`,
    params: p,
    ...(applied.binding ? { alwaysHold: mustHoldWhy(ctx, op, p) } : {}),
  };
  const extra = { ...(applied.section ? { section: applied.section } : {}), ...(applied.colleague ? { colleague: applied.colleague } : {}) };
  const base = { charterId: head.charter_id, binding: applied.binding, ...applied.facts };
  if (hashOf(applied.doc) === head.content_hash) {
    if (applied.binding) await verifyGivenProof(ctx, hold);
    await ctx.emit(EVENT[op], applied.subjectId ?? head.charter_id, { ...base, version: head.version, contentHash: head.content_hash, noop: true });
    return { head, changed: false, extra };
  }
  const size = sizeOf(applied.doc);
  if (size > MAX_CHARTER_BYTES) {
    throw badRequest(
      applied.sizeField,
      `the charter would be ${size} bytes, over its limit of ${MAX_CHARTER_BYTES} (256 KB): shorten it or remove a section first`,
    );
  }
  const how = applied.binding ? await enforceRights(ctx, { kind: 'charter', key: op }, hold) : { override: false, approvalId: null };
  const next = await commitVersion(ctx.q, ctx.orgId, head, applied.doc, {
    method: op,
    binding: applied.binding,
    by: ctx.principal.id,
    approvalId: how.approvalId,
  });
  await ctx.emit(EVENT[op], applied.subjectId ?? head.charter_id, {
    ...base,
    version: next.version,
    parentHash: next.parent_hash,
    contentHash: next.content_hash,
    sizeBytes: next.size_bytes,
    override: how.override,
    approvalId: how.approvalId,
  });
  return { head: next, changed: true, extra };
}

const answer = (r: { head: HeadRow; changed: boolean; extra: object }) => ({ charter: headView(r.head), ...r.extra, changed: r.changed });

export const update = handler(c.update, async (ctx, p) => answer(await write(ctx, 'update', p)));
export const addSection = handler(c.addSection, async (ctx, p) => answer(await write(ctx, 'addSection', p)));
export const updateSection = handler(c.updateSection, async (ctx, p) => answer(await write(ctx, 'updateSection', p)));
export const deleteSection = handler(c.deleteSection, async (ctx, p) => {
  const r = await write(ctx, 'deleteSection', p);
  return { charter: headView(r.head), sectionId: p.sectionId, changed: r.changed };
});
export const reorderSections = handler(c.reorderSections, async (ctx, p) => {
  const r = await write(ctx, 'reorderSections', p);
  return { charter: headView(r.head), order: r.head.document.sections.map((s) => s.id), changed: r.changed };
});
export const updateClauses = handler(c.updateClauses, async (ctx, p) => answer(await write(ctx, 'updateClauses', p)));
export const editColleagueField = handler(c.editColleagueField, async (ctx, p) => answer(await write(ctx, 'editColleagueField', p)));

export const charterHandlers = family('charter', {
  get,
  update,
  addSection,
  updateSection,
  deleteSection,
  reorderSections,
  updateClauses,
  editColleagueField,
  amend,
});

/** The charter family, as domain/deployed.ts lists it. */
export const charterFamily: Family = { name: 'charter', methods: charterHandlers };
