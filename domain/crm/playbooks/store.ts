import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { crm as c } from '../../../protocol/methods/crm/index.js';
import { one, type Queryable } from '../../../db/types.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { checkVersion } from '../model.js';
import { actionText, compile, type Definition } from './compile.js';
import { dealFacts } from './facts.js';
import { evaluate } from './rules.js';

/*
 * Playbooks: saved only when they compile (the first diagnostic is the BAD_REQUEST), every version kept in
 * crm_playbook_versions; new ones start disabled; delete is soft. Events carry ids, versions, counts and the
 * enabled flag, never the name or the rules' words.
 */

interface PlaybookRow {
  playbook_id: string;
  name: string;
  version: number;
  enabled: boolean;
  status: 'active' | 'deleted';
  definition: Definition;
  created_at: string | Date;
  updated_at: string | Date;
}
const COLUMNS = 'playbook_id, name, version, enabled, status, definition, created_at, updated_at';

const toPlaybook = (r: PlaybookRow) => ({
  id: r.playbook_id,
  name: r.name,
  version: Number(r.version),
  enabled: r.enabled,
  status: r.status,
  rules: r.definition.rules.length,
  definition: r.definition,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

async function loadPlaybook(q: Queryable, orgId: string, playbookId: string, lock = false): Promise<PlaybookRow> {
  const [row] = await q.query<PlaybookRow>(`SELECT ${COLUMNS} FROM crm_playbooks WHERE org_id = $1 AND playbook_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
    orgId,
    playbookId,
  ]);
  if (!row) throw notFound(`playbook ${playbookId}`);
  return row;
}

function requireActive(r: PlaybookRow, act: string): void {
  if (r.status === 'deleted') throw conflict(`playbook ${r.playbook_id} is deleted; it cannot ${act} (save a new playbook without playbookId)`);
}

/** JSON with object keys sorted: jsonb reorders keys, so a stored definition compares equal to the same one sent again. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
const canonical = (d: Definition): string => stable(d);

export const compilePlaybook = handler(c.compilePlaybook, async (ctx, p) => {
  if ((p.definition === undefined) === (p.playbookId === undefined)) {
    throw badRequest(p.definition === undefined ? 'definition' : 'playbookId', 'give definition (to check) or playbookId (a saved playbook), one of them');
  }
  const def = p.definition ?? (await loadPlaybook(ctx.q, ctx.orgId, p.playbookId!)).definition;
  const compiled = compile(def);
  let dryRun = null;
  if (p.dealId !== undefined) {
    const now = ctx.deps.clock.now();
    const [deal] = await dealFacts(ctx.q, ctx.orgId, now, { dealId: p.dealId });
    if (!deal) throw notFound(`deal ${p.dealId}`);
    if (compiled.valid) {
      const fired = compiled.rules
        .filter((r) => evaluate(r.when, deal.facts))
        .sort((a, b) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((r) => ({ ruleId: r.id, priority: r.priority, action: r.then.action, text: actionText(r.then) }));
      dryRun = { dealId: deal.dealId, asOf: now.toISOString(), facts: deal.facts, fired };
    }
  }
  return {
    valid: compiled.valid,
    diagnostics: compiled.diagnostics,
    rules: compiled.rules.map((r) => ({ id: r.id, priority: r.priority, action: r.then.action, facts: r.facts })),
    dryRun,
  };
});

async function saveVersion(ctx: HandlerCtx, playbookId: string, version: number, def: Definition, now: string): Promise<void> {
  await ctx.q.query(`INSERT INTO crm_playbook_versions (org_id, playbook_id, version, definition, saved_by, saved_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    ctx.orgId,
    playbookId,
    version,
    canonical(def),
    ctx.principal.id,
    now,
  ]);
}

export const savePlaybook = handler(c.savePlaybook, async (ctx, p) => {
  const compiled = compile(p.definition);
  const first = compiled.diagnostics[0];
  if (first) {
    const more = compiled.diagnostics.length - 1;
    throw badRequest(`definition.${first.path}`, `${first.message}${more > 0 ? ` (and ${more} more: crm.compilePlaybook lists them all)` : ''}`);
  }
  const now = ctx.deps.clock.now().toISOString();
  const name = p.definition.name.trim();
  if (p.playbookId === undefined) {
    const playbookId = newId('pbk');
    const row = one(
      await ctx.q.query<PlaybookRow>(
        `INSERT INTO crm_playbooks (org_id, playbook_id, name, version, enabled, definition, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, 1, false, $4, $5, $6, $6) RETURNING ${COLUMNS}`,
        [ctx.orgId, playbookId, name, canonical(p.definition), ctx.principal.id, now],
      ),
    );
    await saveVersion(ctx, playbookId, 1, p.definition, now);
    await ctx.emit('crm.playbook.save', playbookId, { playbookId, version: 1, rules: p.definition.rules.length, enabled: false, created: true });
    return { playbook: toPlaybook(row), changed: true };
  }
  const row = await loadPlaybook(ctx.q, ctx.orgId, p.playbookId, true);
  requireActive(row, 'be saved');
  checkVersion('playbook', row.playbook_id, row.version, p.expectedVersion, 'crm.listPlaybooks');
  if (canonical(row.definition) === canonical(p.definition) && row.name === name) {
    await ctx.emit('crm.playbook.save', row.playbook_id, { playbookId: row.playbook_id, version: Number(row.version), noop: true });
    return { playbook: toPlaybook(row), changed: false };
  }
  const version = Number(row.version) + 1;
  const saved = one(
    await ctx.q.query<PlaybookRow>(
      `UPDATE crm_playbooks SET name = $3, version = $4, definition = $5, updated_at = $6 WHERE org_id = $1 AND playbook_id = $2 RETURNING ${COLUMNS}`,
      [ctx.orgId, row.playbook_id, name, version, canonical(p.definition), now],
    ),
  );
  await saveVersion(ctx, row.playbook_id, version, p.definition, now);
  await ctx.emit('crm.playbook.save', row.playbook_id, {
    playbookId: row.playbook_id,
    version,
    rules: p.definition.rules.length,
    enabled: saved.enabled,
    created: false,
  });
  return { playbook: toPlaybook(saved), changed: true };
});

export const togglePlaybook = handler(c.togglePlaybook, async (ctx, p) => {
  const row = await loadPlaybook(ctx.q, ctx.orgId, p.playbookId, true);
  requireActive(row, p.enabled ? 'be enabled' : 'be disabled');
  if (row.enabled === p.enabled) {
    await ctx.emit('crm.playbook.toggle', row.playbook_id, { playbookId: row.playbook_id, enabled: p.enabled, version: Number(row.version), noop: true });
    return { playbook: toPlaybook(row), changed: false };
  }
  const saved = one(
    await ctx.q.query<PlaybookRow>(`UPDATE crm_playbooks SET enabled = $3, updated_at = $4 WHERE org_id = $1 AND playbook_id = $2 RETURNING ${COLUMNS}`, [
      ctx.orgId,
      row.playbook_id,
      p.enabled,
      ctx.deps.clock.now().toISOString(),
    ]),
  );
  await ctx.emit('crm.playbook.toggle', row.playbook_id, { playbookId: row.playbook_id, enabled: p.enabled, version: Number(row.version) });
  return { playbook: toPlaybook(saved), changed: true };
});

export const deletePlaybook = handler(c.deletePlaybook, async (ctx, p) => {
  const row = await loadPlaybook(ctx.q, ctx.orgId, p.playbookId, true);
  if (row.status === 'deleted') {
    await ctx.emit('crm.playbook.delete', row.playbook_id, { playbookId: row.playbook_id, version: Number(row.version), noop: true });
    return { playbook: toPlaybook(row), changed: false };
  }
  const saved = one(
    await ctx.q.query<PlaybookRow>(
      `UPDATE crm_playbooks SET status = 'deleted', enabled = false, updated_at = $3 WHERE org_id = $1 AND playbook_id = $2 RETURNING ${COLUMNS}`,
      [ctx.orgId, row.playbook_id, ctx.deps.clock.now().toISOString()],
    ),
  );
  await ctx.emit('crm.playbook.delete', row.playbook_id, { playbookId: row.playbook_id, version: Number(row.version), wasEnabled: row.enabled });
  return { playbook: toPlaybook(saved), changed: true };
});

const encode = (at: string, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');
function decode(cursor: string): [string, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof at === 'string' &&
      /^(19|[2-9]\d)\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(at) &&
      !Number.isNaN(Date.parse(at)) &&
      typeof id === 'string' &&
      id.length <= 64
    )
      return [at, id];
  } catch {
    // refused below
  }
  throw badRequest('cursor', 'not a cursor this list returned');
}

export const listPlaybooks = handler(c.listPlaybooks, async (ctx, p) => {
  const params: unknown[] = [ctx.orgId];
  const where = ['org_id = $1'];
  if (p.status !== 'all') where.push(`status = $${params.push(p.status)}`);
  if (p.enabled !== undefined) where.push(`enabled = $${params.push(p.enabled)}`);
  if (p.cursor) {
    const [at, id] = decode(p.cursor);
    where.push(`(created_at, playbook_id) > ($${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<PlaybookRow>(
    `SELECT ${COLUMNS} FROM crm_playbooks WHERE ${where.join(' AND ')} ORDER BY created_at, playbook_id LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    playbooks: page.map(toPlaybook),
    nextCursor: rows.length > p.limit && last ? encode(new Date(last.created_at).toISOString(), last.playbook_id) : null,
  };
});
