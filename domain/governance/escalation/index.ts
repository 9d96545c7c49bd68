import { ApiError, badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { ESCALATE_AFTER_MINUTES, escalation as c } from '../../../protocol/methods/escalation.js';
import { one, type Queryable } from '../../../db/types.js';
import { taskHolding } from '../../board/index.js';
import { decisionHolding } from '../decision/driver.js';
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { assigneeAt, buildChain, ESCALATION_COLUMNS, findEscalation, getEscalation, LEVEL_SQL, levelAt, toEscalation, type EscalationRow } from './model.js';
import { escalationWaiting } from './waiting.js';

/*
 * escalation.*: raise (the chain fixed then), list (level and assignee as of the clock's now) and resolve. No job
 * moves an escalation up: its level is read from the clock. Events carry ids, the reason and severity, levels and
 * counts: never the title or the resolution.
 */

/** A subject that names a task, decision or escalation must be one of this org's; other ids are taken as given. */
async function checkSubject(q: Queryable, orgId: string, subject: string): Promise<void> {
  const prefix = subject.slice(0, subject.indexOf('_'));
  const lookups: Record<string, [string, () => Promise<unknown>]> = {
    task: ['task', () => taskHolding(q, orgId, subject)],
    dec: ['decision', () => decisionHolding(q, orgId, subject)],
    esc: ['escalation', () => findEscalation(q, orgId, subject)],
  };
  const lookup = lookups[prefix];
  if (lookup && !(await lookup[1]())) throw notFound(`${lookup[0]} ${subject}`);
}

export const create = handler(c.create, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  if (p.subject !== undefined) await checkSubject(ctx.q, ctx.orgId, p.subject);
  const chain = await buildChain(ctx.q, ctx.orgId, { raiser: ctx.principal.id, to: p.to, area: p.area });
  const at = now.toISOString();
  const [inserted] = await ctx.q.query<EscalationRow>(
    `INSERT INTO escalations (org_id, escalation_id, title, reason, severity, area, subject_id, raised_by, to_principal, chain,
                              escalate_after_minutes, level_since, raised_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11, $12, $12, $12)
     ON CONFLICT (org_id, raised_by, subject_id) WHERE status = 'open' AND subject_id IS NOT NULL DO NOTHING
     RETURNING ${ESCALATION_COLUMNS}`,
    [
      ctx.orgId,
      newId('esc'),
      p.title,
      p.reason,
      p.severity,
      p.area ?? null,
      p.subject ?? null,
      ctx.principal.id,
      p.to ?? null,
      chain,
      ESCALATE_AFTER_MINUTES[p.severity],
      at,
    ],
  );
  // An open one of the caller's about the same subject: returned, not duplicated.
  const row =
    inserted ??
    (
      await ctx.q.query<EscalationRow>(
        `SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE org_id = $1 AND raised_by = $2 AND subject_id = $3 AND status = 'open'`,
        [ctx.orgId, ctx.principal.id, p.subject],
      )
    )[0];
  // Resolved by another transaction between our conflicting insert and this read.
  if (!row) throw conflict(`your open escalation about ${p.subject} was resolved meanwhile: retry to raise a new one`);
  const escalation = toEscalation(row, now);
  await ctx.emit('escalation.case.create', row.escalation_id, {
    escalationId: row.escalation_id,
    reason: row.reason,
    severity: row.severity,
    subjectId: row.subject_id,
    to: row.to_principal,
    chainLength: row.chain.length,
    level: escalation.level,
    assignee: escalation.assignee,
    escalateAfterMinutes: escalation.escalateAfterMinutes,
    ...(inserted ? {} : { noop: true }),
  });
  return { escalation, changed: Boolean(inserted) };
});

/** A cursor's time as this list writes it (an ISO timestamp), so nothing else reaches the cast. */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export const list = handler(c.list, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const params: unknown[] = [ctx.orgId];
  const where = ['org_id = $1'];
  if (p.status !== undefined) where.push(`status = $${params.push(p.status)}`);
  if (p.subjectId !== undefined) where.push(`subject_id = $${params.push(p.subjectId)}`);
  if (p.assignedTo === 'me') {
    const at = `$${params.push(now.toISOString())}`;
    where.push(`status = 'open'`, `chain[${LEVEL_SQL(at)}] = $${params.push(ctx.principal.id)}`);
  }
  if (p.cursor !== undefined) {
    const [t, id] = decodeCursor<[string, string]>(
      p.cursor,
      'cursor',
      (v) => v.length === 2 && typeof v[0] === 'string' && ISO.test(v[0]) && !Number.isNaN(Date.parse(v[0])) && typeof v[1] === 'string',
    );
    where.push(`(raised_at, escalation_id) < ($${params.push(t)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<EscalationRow>(
    `SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE ${where.join(' AND ')}
      ORDER BY raised_at DESC, escalation_id DESC LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const shown = rows.slice(0, p.limit);
  const last = shown[shown.length - 1];
  return {
    escalations: shown.map((r) => toEscalation(r, now)),
    nextCursor: rows.length > p.limit && last ? encodeCursor([last.raised_at, last.escalation_id]) : null,
  };
});

/** Who may resolve how: the raiser only withdraws; a human of the chain or an admin resolves otherwise; an agent never. */
function mayResolve(row: EscalationRow, principal: { id: string; kind: string; scopes: ReadonlySet<string> }, outcome: string): void {
  const ref = `escalation ${row.escalation_id}`;
  const resolvers = `a human of its chain (${row.chain.join(', ')}) or an admin`;
  if (outcome === 'withdrawn') {
    if (principal.id !== row.raised_by) {
      throw new ApiError('CONFLICT', `only its raiser ${row.raised_by} withdraws ${ref}; ${resolvers} resolves it as directed, decided or dismissed`);
    }
    return;
  }
  if (principal.kind === 'agent') {
    throw new ApiError(
      'GOVERNANCE_NOT_READY',
      `an agent never resolves an escalation (it may withdraw one it raised): ${resolvers} resolves ${ref}; nothing changed, tell your user it waits for them`,
    );
  }
  if (principal.id === row.raised_by) throw new ApiError('CONFLICT', `you raised ${ref}: you only withdraw it (outcome withdrawn); ${resolvers} resolves it`);
  if (!row.chain.includes(principal.id) && !principal.scopes.has('admin')) {
    throw new ApiError(
      'FORBIDDEN_SCOPE',
      `missing scope admin for escalation.resolve: ${principal.id} is not in the chain of ${ref}, so ${resolvers} resolves it`,
    );
  }
}

export const resolve = handler(c.resolve, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const row = await getEscalation(ctx.q, ctx.orgId, p.escalationId, 'FOR UPDATE');
  mayResolve(row, ctx.principal, p.outcome);
  const base = { escalationId: row.escalation_id, outcome: p.outcome };
  if (row.status === 'resolved') {
    if (row.outcome !== p.outcome) {
      throw conflict(
        `escalation ${row.escalation_id} is resolved already (${row.outcome} by ${row.resolved_by} at ${row.resolved_at}): it is closed; raise a new one (escalation.create) if more is needed`,
      );
    }
    await ctx.emit('escalation.case.resolve', row.escalation_id, { ...base, status: row.status, level: levelAt(row, now), noop: true });
    return { escalation: toEscalation(row, now), changed: false };
  }
  if (p.decisionId !== undefined) {
    if (p.outcome !== 'decided') throw badRequest('decisionId', `only with outcome decided (not ${p.outcome})`);
    if (!(await decisionHolding(ctx.q, ctx.orgId, p.decisionId))) throw notFound(`decision ${p.decisionId}`);
  }
  const level = levelAt(row, now);
  const at = now.toISOString();
  const updated = one(
    await ctx.q.query<EscalationRow>(
      `UPDATE escalations SET status = 'resolved', outcome = $3, resolution = $4, decision_id = $5, resolved_by = $6, resolved_at = $7,
            resolved_level = $8, updated_at = $7
      WHERE org_id = $1 AND escalation_id = $2 RETURNING ${ESCALATION_COLUMNS}`,
      [ctx.orgId, row.escalation_id, p.outcome, p.resolution, p.decisionId ?? null, ctx.principal.id, at, level],
    ),
  );
  await ctx.emit('escalation.case.resolve', row.escalation_id, {
    ...base,
    status: 'resolved',
    level,
    assignee: assigneeAt(row, now),
    decisionId: p.decisionId ?? null,
  });
  return { escalation: toEscalation(updated, now), changed: true };
});

export const escalationHandlers = family('escalation', { create, list, resolve });

/** The escalation family, as domain/deployed.ts lists it. */
export const escalationFamily: Family = { name: 'escalation', methods: escalationHandlers, contributes: { waiting: escalationWaiting } };
