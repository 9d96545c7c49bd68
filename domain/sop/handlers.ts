import { one } from '../../db/types.js';
import { conflict } from '../../protocol/errors.js';
import { sop as c } from '../../protocol/methods/sop.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { sha256Hex } from '../../protocol/hashing.js';
import { actionClassOf, type SignatureProof } from '../approval/index.js';
import { buildSteps, contentHash, loadSop, slugOf, SOP_COLUMNS, stepDiff, stepsOf, toSop, writeVersion, type SopRow } from './model.js';

/*
 * SOPs: versioned procedures agents follow. Each version's SHA-256 is in the ledger (what agents were told). An
 * agent may draft; activating one, or changing or archiving an active one, holds for a human (sop.publish in the
 * design: it changes what binds agents). Events carry ids, versions, hashes, statuses and counts, never text.
 */

async function publishHold(
  ctx: HandlerCtx,
  when: boolean,
  subjectId: string,
  summary: string,
  params: Record<string, unknown>,
): Promise<SignatureProof | null> {
  if (!when || ctx.principal.kind !== 'agent') return null;
  return ctx.requireSignature({ actionClass: actionClassOf(ctx.method.name), subjectId, summary, params });
}

export const create = handler(c.create, async (ctx, p) => {
  const slug = slugOf(p.title);
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('sop:' || $1 || ':' || $2))`, [ctx.orgId, slug]);
  const [taken] = await ctx.q.query<{ sop_id: string; status: string }>('SELECT sop_id, status FROM sops WHERE org_id = $1 AND slug = $2', [ctx.orgId, slug]);
  if (taken) {
    throw conflict(`the slug "${slug}" is taken by ${taken.sop_id} (${taken.status}): update that SOP (sop.update) or choose another title`);
  }
  // The id follows from the slug, so a held create and its retry name the same subject.
  const sopId = `sop_${sha256Hex(`${ctx.orgId}\n${slug}`).slice(0, 20)}`;
  const steps = buildSteps(p.steps, null, sopId, 1);
  const sha256 = contentHash({ title: p.title, purpose: p.purpose, trigger: p.trigger, steps });
  const proof = await publishHold(
    ctx,
    p.status === 'active',
    sopId,
    `An agent publishes a new active SOP ${sopId} with ${steps.length} step(s) (content ${sha256.slice(0, 12)})`,
    p,
  );
  const now = ctx.deps.clock.now().toISOString();
  const v = { sopId, version: 1, title: p.title, purpose: p.purpose, trigger: p.trigger, status: p.status, steps, by: ctx.principal.id, at: now };
  const row = await writeVersion(ctx.q, ctx.orgId, { ...v, sha256, approvalId: proof?.approvalId ?? null }, { slug });
  await ctx.emit('sop.procedure.create', sopId, {
    sopId,
    version: 1,
    sha256: row.sha256,
    status: p.status,
    steps: steps.length,
    methods: steps.filter((s) => s.method).length,
    approvalId: proof?.approvalId ?? null,
  });
  return { sop: toSop(row) };
});

const FIELDS = ['title', 'purpose', 'trigger'] as const;

export const update = handler(c.update, async (ctx, p) => {
  const row = await loadSop(ctx.q, ctx.orgId, p.sopId, 'FOR UPDATE');
  const version = Number(row.version);
  if (row.status === 'archived') throw conflict(`SOP ${row.sop_id} is archived: create a new one (sop.create) with another title`);
  if (p.ifVersion !== version)
    throw conflict(`SOP ${row.sop_id} is at version ${version}, not ${p.ifVersion}: read it (sop.list) and retry with ifVersion ${version}`);
  if (row.status === 'active' && p.status === 'draft') {
    throw conflict(`SOP ${row.sop_id} is active: change it in place (it stays active) or archive it (sop.delete); it does not go back to draft`);
  }
  const before = stepsOf(row);
  const steps = p.steps ? buildSteps(p.steps, before, row.sop_id, version + 1) : before;
  const next = {
    title: p.title ?? row.title,
    purpose: p.purpose ?? row.purpose,
    trigger: p.trigger ?? row.trigger,
    status: p.status ?? row.status,
    steps,
  };
  const sha256 = contentHash(next);
  const diff = {
    fields: [...FIELDS.filter((f) => next[f] !== row[f]), ...(next.status !== row.status ? ['status'] : [])],
    ...stepDiff(before, steps),
  };
  const counts = { steps: steps.length, added: diff.added.length, removed: diff.removed.length, changedSteps: diff.changed.length };
  if (sha256 === row.sha256 && next.status === row.status) {
    await ctx.emit('sop.procedure.update', row.sop_id, { sopId: row.sop_id, version, sha256, status: row.status, ...counts, noop: true });
    return { sop: toSop(row), diff, changed: false };
  }
  const proof = await publishHold(
    ctx,
    row.status === 'active' || next.status === 'active',
    row.sop_id,
    `An agent ${row.status === 'active' ? 'changes the active' : 'activates'} SOP ${row.sop_id} as version ${version + 1} (content ${sha256.slice(0, 12)}, ${
      steps.length
    } step(s))`,
    p,
  );
  const saved = await writeVersion(
    ctx.q,
    ctx.orgId,
    {
      sopId: row.sop_id,
      version: version + 1,
      ...next,
      sha256,
      by: ctx.principal.id,
      at: ctx.deps.clock.now().toISOString(),
      approvalId: proof?.approvalId ?? null,
    },
    null,
  );
  await ctx.emit('sop.procedure.update', row.sop_id, {
    sopId: row.sop_id,
    version: version + 1,
    sha256,
    status: next.status,
    was: row.status,
    ...counts,
    approvalId: proof?.approvalId ?? null,
  });
  return { sop: toSop(saved), diff, changed: true };
});

export const remove = handler(c.delete, async (ctx, p) => {
  const row = await loadSop(ctx.q, ctx.orgId, p.sopId, 'FOR UPDATE');
  const version = Number(row.version);
  if (row.status === 'archived') {
    await ctx.emit('sop.procedure.delete', row.sop_id, { sopId: row.sop_id, version, status: 'archived', noop: true });
    return { sop: toSop(row), changed: false };
  }
  const proof = await publishHold(ctx, row.status === 'active', row.sop_id, `An agent archives the active SOP ${row.sop_id} (version ${version})`, p);
  const saved = one(
    await ctx.q.query<SopRow>(
      `UPDATE sops SET status = 'archived', version = $3, updated_at = $4, updated_by = $5 WHERE org_id = $1 AND sop_id = $2 RETURNING ${SOP_COLUMNS}`,
      [ctx.orgId, row.sop_id, version + 1, ctx.deps.clock.now().toISOString(), ctx.principal.id],
    ),
  );
  await ctx.q.query(
    `INSERT INTO sop_versions (org_id, sop_id, version, title, purpose, trigger, status, steps, sha256, written_by, written_at, approval_id)
     SELECT org_id, sop_id, version, title, purpose, trigger, status, steps, sha256, updated_by, updated_at, $3 FROM sops WHERE org_id = $1 AND sop_id = $2`,
    [ctx.orgId, row.sop_id, proof?.approvalId ?? null],
  );
  await ctx.emit('sop.procedure.delete', row.sop_id, {
    sopId: row.sop_id,
    version: version + 1,
    status: 'archived',
    was: row.status,
    approvalId: proof?.approvalId ?? null,
  });
  return { sop: toSop(saved), changed: true };
});
