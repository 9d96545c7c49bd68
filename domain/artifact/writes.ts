import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { artifact as c, MAX_REVISIONS } from '../../protocol/methods/artifact/index.js';
import { one } from '../../db/types.js';
import { designLog } from '../branding/index.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { ARTIFACT_COLUMNS, artifactFor, headOf, RESPONSE_COLUMNS, responseHeadOf, type ArtifactRow, type Doc, type ResponseRow } from './model.js';
import { checkValues } from './values.js';
import { checkDataSize, checkDoc, dataBytes, pointerTokens } from './validate.js';
import { announce } from './wake.js';

/*
 * artifact.create, patch and act: R methods that write (the registry keeps them R). Each records exactly one design
 * log record (ids, revisions, counts, statuses, hashes; never a title, data or a value) and no ledger event, and is
 * replayed by its idempotencyId. Their results are heads, so the stored replay holds no artifact data either.
 */

export const MAX_DRAFTS = 500;
const PATCHES_PER_SECOND = 2;

const write = { writeLog: designLog };

async function stored(ctx: HandlerCtx, artifactId: string): Promise<ArtifactRow> {
  return one(await ctx.q.query<ArtifactRow>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts a WHERE a.org_id = $1 AND a.artifact_id = $2`, [ctx.orgId, artifactId]));
}

const changeOf = (orgId: string, r: ArtifactRow) => ({
  orgId,
  artifactId: r.artifact_id,
  revision: Number(r.revision),
  state: r.state,
  responses: Number(r.responses),
  channelId: r.channel_id,
});

export const create = handler(
  c.create,
  async (ctx, p) => {
    const now = ctx.deps.clock.now();
    if (p.expiresAt !== undefined && Date.parse(p.expiresAt) <= now.getTime()) throw badRequest('expiresAt', 'must be in the future');
    const doc: Doc = { components: p.components, data: p.data ?? {}, actions: p.actions, fallbackText: p.fallbackText };
    const checked = await checkDoc(ctx, doc);
    const { n } = one(
      await ctx.q.query<{ n: number }>(`SELECT count(*)::int AS n FROM artifacts WHERE org_id = $1 AND author_id = $2 AND state = 'draft'`, [
        ctx.orgId,
        ctx.principal.id,
      ]),
    );
    if (Number(n) >= MAX_DRAFTS) throw conflict(`you have ${MAX_DRAFTS} drafts, the most allowed: post some (messaging.send artifactIds) before drafting more`);
    const artifactId = newId('art');
    const at = now.toISOString();
    await ctx.q.query(
      `INSERT INTO artifacts (org_id, artifact_id, author_id, state, revision, inputs_revision, title, doc, expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'draft', 1, 1, $4, $5::jsonb, $6, $7, $7)`,
      [ctx.orgId, artifactId, ctx.principal.id, p.title, JSON.stringify(doc), p.expiresAt ?? null, at],
    );
    const row = await stored(ctx, artifactId);
    await ctx.record('artifact.surface.create', artifactId, {
      artifactId,
      revision: 1,
      components: checked.components,
      inputs: checked.inputs,
      actions: doc.actions.length,
      dataBytes: dataBytes(doc.data),
      sha256: checked.sha256,
    });
    return { artifact: headOf(row) };
  },
  write,
);

/** Set each path of data to its value: the parent must exist; an array takes an index up to its length (append). */
function applySet(data: Record<string, unknown>, set: readonly { path: string; value?: unknown }[]): Record<string, unknown> {
  const out = structuredClone(data);
  set.forEach(({ path, value }, i) => {
    const field = `set.${i}.path`;
    if (!/^(\/[^/]*)+$/.test(path)) throw badRequest(field, 'must be a JSON pointer into data such as /status');
    if (value === undefined) throw badRequest(`set.${i}.value`, 'required');
    const tokens = pointerTokens(path);
    const last = tokens.pop()!;
    let parent: unknown = out;
    for (const t of tokens) {
      parent = Array.isArray(parent)
        ? parent[Number(t)]
        : parent !== null && typeof parent === 'object' && Object.hasOwn(parent, t)
          ? (parent as Record<string, unknown>)[t]
          : undefined;
      if (parent === undefined) throw badRequest(field, `${path}: its parent does not resolve in data`);
    }
    if (Array.isArray(parent)) {
      if (!/^(0|[1-9][0-9]*)$/.test(last) || Number(last) > parent.length) throw badRequest(field, `${path}: an index up to ${parent.length}`);
      parent[Number(last)] = value;
    } else if (parent !== null && typeof parent === 'object') (parent as Record<string, unknown>)[last] = value;
    else throw badRequest(field, `${path}: its parent is not an object or array`);
  });
  return out;
}

/** The patch rate: at most PATCHES_PER_SECOND in any one-second window from the first of them. */
function checkRate(row: ArtifactRow, now: Date): { window: string; patches: number } {
  const start = row.patch_window === null ? 0 : new Date(row.patch_window).getTime();
  if (now.getTime() - start >= 1000) return { window: now.toISOString(), patches: 1 };
  if (Number(row.patches) >= PATCHES_PER_SECOND) {
    throw new ApiError('RATE_LIMITED', `artifact ${row.artifact_id} takes at most ${PATCHES_PER_SECOND} patches a second: batch your changes in one set`, {
      retryAfterSeconds: 1,
    });
  }
  return { window: new Date(start).toISOString(), patches: Number(row.patches) + 1 };
}

export const patch = handler(
  c.patch,
  async (ctx, p) => {
    const given = (['set', 'components', 'state'] as const).filter((k) => p[k] !== undefined);
    if (given.length !== 1) throw badRequest(given[1] ?? 'set', 'give exactly one of set, components or state');
    if (p.actions !== undefined && p.components === undefined) throw badRequest('actions', 'only with components');
    const row = await artifactFor(ctx.q, ctx.orgId, p.artifactId, ctx.principal, { lock: true });
    if (row.author_id !== ctx.principal.id) throw conflict(`artifact ${p.artifactId} is ${row.author_id}'s: only its author patches it`);
    const revision = Number(row.revision);
    if (p.baseRevision !== revision)
      throw conflict(`baseRevision ${p.baseRevision} is not the current revision ${revision}: read it (artifact.get) and patch revision ${revision}`);
    const now = ctx.deps.clock.now();
    const at = now.toISOString();
    const base = { artifactId: p.artifactId, baseRevision: revision };
    if (p.state !== undefined && (p.state === row.state || row.state === 'draft')) {
      if (row.state === 'draft') throw conflict(`artifact ${p.artifactId} is a draft: messaging.send artifactIds posts it`);
      await ctx.record('artifact.surface.patch', p.artifactId, { ...base, revision, op: 'state', state: row.state, noop: true });
      return { artifact: headOf(row), changed: false };
    }
    if (revision >= MAX_REVISIONS) throw conflict(`artifact ${p.artifactId} has ${MAX_REVISIONS} revisions, the most: create a new artifact`);
    const rate = checkRate(row, now);
    const doc = structuredClone(row.doc!);
    let inputsRevision = Number(row.inputs_revision);
    const counts: Record<string, number | string> = {};
    if (p.set) {
      doc.data = applySet(doc.data, p.set);
      checkDataSize(doc.data, 'set');
      counts.paths = p.set.length;
    }
    if (p.components) {
      const before = await checkDoc(ctx, structuredClone(row.doc!));
      doc.components = p.components;
      if (p.actions) doc.actions = p.actions;
      const after = await checkDoc(ctx, doc);
      if (after.inputsHash !== before.inputsHash) inputsRevision = revision + 1;
      counts.components = after.components;
      counts.inputs = after.inputs;
    } else if (p.set) await checkDoc(ctx, doc);
    const state = p.state ?? row.state;
    const closing = state === 'closed' && row.state !== 'closed';
    await ctx.q.query(
      `UPDATE artifacts SET doc = $3::jsonb, revision = $4, inputs_revision = $5, state = $6, closed_by = $7, closed_at = $8, patch_window = $9, patches = $10,
              updated_at = $11 WHERE org_id = $1 AND artifact_id = $2`,
      [
        ctx.orgId,
        p.artifactId,
        JSON.stringify(doc),
        revision + 1,
        inputsRevision,
        state,
        closing ? ctx.principal.id : state === 'closed' ? row.closed_by : null,
        closing ? at : state === 'closed' ? row.closed_at : null,
        rate.window,
        rate.patches,
        at,
      ],
    );
    const next = await stored(ctx, p.artifactId);
    await ctx.record('artifact.surface.patch', p.artifactId, { ...base, revision: revision + 1, op: given[0], state, inputsRevision, ...counts });
    await announce(ctx.deps, ctx.q, changeOf(ctx.orgId, next));
    return { artifact: headOf(next), changed: true };
  },
  write,
);

/** CONFLICT unless the caller may act on the artifact now (see act's contract). */
function checkActable(ctx: HandlerCtx, row: ArtifactRow, revision: number, now: Date): void {
  const id = row.artifact_id;
  if (row.state === 'draft') throw conflict(`artifact ${id} is a draft: post it first (messaging.send artifactIds), then act on it`);
  if (row.state === 'closed')
    throw conflict(
      `artifact ${id} is closed (by ${row.closed_by ?? 'its author'} at ${new Date(row.closed_at ?? row.updated_at).toISOString()}): it takes no more acts`,
    );
  if (row.expires_at !== null && new Date(row.expires_at).getTime() <= now.getTime())
    throw conflict(`artifact ${id} expired at ${new Date(row.expires_at).toISOString()}: it takes no more acts; ask its author for a new one`);
  const current = Number(row.revision);
  if (revision > current) throw conflict(`revision ${revision} is ahead of artifact ${id}'s current revision ${current}: act on the revision you read`);
  const inputs = Number(row.inputs_revision);
  if (revision < inputs)
    throw conflict(
      `the inputs of artifact ${id} changed at revision ${inputs}, after revision ${revision}: read it again (artifact.get) and act on revision ${current}`,
    );
}

export const act = handler(
  c.act,
  async (ctx, p) => {
    const row = await artifactFor(ctx.q, ctx.orgId, p.artifactId, ctx.principal, { lock: true });
    const now = ctx.deps.clock.now();
    checkActable(ctx, row, p.revision, now);
    const doc = row.doc!;
    const action = doc.actions.find((a) => a.actionId === p.actionId);
    if (!action) throw badRequest('actionId', `no action ${p.actionId} in artifact ${p.artifactId}`);
    const me = ctx.principal;
    if (action.audience === 'humans' && me.kind === 'agent') throw conflict(`action ${p.actionId} is for humans: an agent may not act on it`);
    if (Array.isArray(action.audience) && !action.audience.includes(me.id))
      throw conflict(`action ${p.actionId} is for ${action.audience.join(', ')}: you are not among them`);
    const record = { artifactId: p.artifactId, actionId: p.actionId, revision: p.revision };
    if (action.once) {
      const [answered] = await ctx.q.query<ResponseRow>(
        `SELECT ${RESPONSE_COLUMNS} FROM artifact_responses r WHERE r.org_id = $1 AND r.artifact_id = $2 AND r.action_id = $3 ORDER BY r.seq LIMIT 1`,
        [ctx.orgId, p.artifactId, p.actionId],
      );
      if (answered) {
        await ctx.record('artifact.response.submit', p.artifactId, { ...record, responseId: answered.response_id, seq: Number(answered.seq), noop: true });
        return { response: responseHeadOf(answered), artifact: headOf(row), changed: false };
      }
    }
    const values = checkValues(doc.components, action, p.values ?? {});
    const responseId = newId('rsp');
    const seq = Number(row.responses) + 1;
    const at = now.toISOString();
    await ctx.q.query(
      `INSERT INTO artifact_responses (org_id, response_id, artifact_id, seq, action_id, actor_id, actor_kind, revision, input_values, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10)`,
      [ctx.orgId, responseId, p.artifactId, seq, p.actionId, me.id, me.kind === 'agent' ? 'agent' : 'human', p.revision, JSON.stringify(values), at],
    );
    // Closing is a change of state (a new revision, stamped with the actor); a response alone is not.
    await ctx.q.query(
      `UPDATE artifacts SET responses = $3, updated_at = $4,
              state = CASE WHEN $5 THEN 'closed' ELSE state END, revision = revision + CASE WHEN $5 THEN 1 ELSE 0 END,
              closed_by = CASE WHEN $5 THEN $6 ELSE closed_by END, closed_at = CASE WHEN $5 THEN $4::timestamptz ELSE closed_at END
        WHERE org_id = $1 AND artifact_id = $2`,
      [ctx.orgId, p.artifactId, seq, at, Boolean(action.closes), me.id],
    );
    const next = await stored(ctx, p.artifactId);
    const response = one(
      await ctx.q.query<ResponseRow>(`SELECT ${RESPONSE_COLUMNS} FROM artifact_responses r WHERE r.org_id = $1 AND r.response_id = $2`, [
        ctx.orgId,
        responseId,
      ]),
    );
    await ctx.record('artifact.response.submit', p.artifactId, {
      ...record,
      responseId,
      seq,
      values: Object.keys(values).length,
      closes: Boolean(action.closes),
      state: next.state,
    });
    await announce(ctx.deps, ctx.q, changeOf(ctx.orgId, next));
    return { response: responseHeadOf(response), artifact: headOf(next), changed: true };
  },
  write,
);

export { changeOf, stored };
