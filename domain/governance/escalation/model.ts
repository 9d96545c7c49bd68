import type { z } from 'zod';
import { badRequest, notFound } from '../../../protocol/errors.js';
import type { Escalation } from '../../../protocol/methods/escalation.js';
import type { Queryable } from '../../../db/types.js';
import { activeHumansWithRole, getMembers } from '../../people/index.js';
import { findRight, humansNamed, readRights } from '../rights.js';

/*
 * Escalation rows (migration 037) and the two facts read from the clock: the level (1 + one per escalateAfter
 * since level_since, at most the chain's length) and the assignee (the chain member at that level). Other families
 * (handoff) take an escalation's assignee and move it through escalationHolding and transferEscalation.
 */

export interface EscalationRow {
  escalation_id: string;
  title: string;
  reason: z.output<typeof Escalation>['reason'];
  severity: z.output<typeof Escalation>['severity'];
  area: string | null;
  subject_id: string | null;
  raised_by: string;
  to_principal: string | null;
  chain: string[];
  escalate_after_minutes: number;
  level_since: string;
  status: 'open' | 'resolved';
  outcome: z.output<typeof Escalation>['outcome'];
  resolution: string | null;
  decision_id: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
  resolved_level: number | null;
  raised_at: string;
  updated_at: string;
}

export const ESCALATION_COLUMNS = `escalation_id, title, reason, severity, area, subject_id, raised_by, to_principal, chain, escalate_after_minutes,
  level_since, status, outcome, resolution, decision_id, resolved_by, resolved_at, resolved_level, raised_at, updated_at`;

const stepMs = (r: EscalationRow) => Number(r.escalate_after_minutes) * 60_000;

/** The level as of `now`: frozen once resolved; while open 1 + one per escalateAfter elapsed, at most the chain's length. */
export function levelAt(r: EscalationRow, now: Date): number {
  if (r.status === 'resolved') return Number(r.resolved_level);
  const elapsed = now.getTime() - new Date(r.level_since).getTime();
  const climbed = elapsed > 0 ? Math.floor(elapsed / stepMs(r)) : 0;
  return Math.min(1 + climbed, r.chain.length);
}

export const assigneeAt = (r: EscalationRow, now: Date): string => r.chain[levelAt(r, now) - 1];

/** The same level in SQL, for filters (assignedTo=me): `$now` is the clock's time as a parameter. */
export const LEVEL_SQL = (now: string) =>
  `GREATEST(1, LEAST(1 + floor(extract(epoch FROM (${now}::timestamptz - level_since)) / (escalate_after_minutes * 60))::int, cardinality(chain)))`;

export function toEscalation(r: EscalationRow, now: Date): z.output<typeof Escalation> {
  const level = levelAt(r, now);
  const next = r.status === 'open' && level < r.chain.length ? new Date(new Date(r.level_since).getTime() + level * stepMs(r)).toISOString() : null;
  return {
    id: r.escalation_id,
    title: r.title,
    reason: r.reason,
    severity: r.severity,
    area: r.area,
    subject: r.subject_id,
    raisedBy: r.raised_by,
    to: r.to_principal,
    chain: r.chain,
    level,
    assignee: r.chain[level - 1],
    escalateAfterMinutes: Number(r.escalate_after_minutes),
    levelSince: r.level_since,
    nextLevelAt: next,
    status: r.status,
    outcome: r.outcome,
    resolution: r.resolution,
    decisionId: r.decision_id,
    resolvedBy: r.resolved_by,
    resolvedAt: r.resolved_at,
    raisedAt: r.raised_at,
    updatedAt: r.updated_at,
  };
}

export async function findEscalation(q: Queryable, orgId: string, id: string, lock: '' | 'FOR UPDATE' = ''): Promise<EscalationRow | undefined> {
  const [row] = await q.query<EscalationRow>(`SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE org_id = $1 AND escalation_id = $2 ${lock}`, [orgId, id]);
  return row;
}

/** The escalation, or NOT_FOUND (another org's id looks exactly like one that never existed). */
export async function getEscalation(q: Queryable, orgId: string, id: string, lock: '' | 'FOR UPDATE' = ''): Promise<EscalationRow> {
  const row = await findEscalation(q, orgId, id, lock);
  if (!row) throw notFound(`escalation ${id}`);
  return row;
}

/**
 * The chain, fixed when raised: `to`, or the humans deciding the area (the decision right found for it:
 * `a.b`, `a`, `decision`, `*`; a group such as `humans` names no one in particular, so the admins close it), then
 * the right's escalateTo, then the org's active admins by id. Agents and inactive members are skipped, each human
 * once, the raiser left out unless nobody else is left (so it never dead-ends).
 */
export async function buildChain(q: Queryable, orgId: string, p: { raiser: string; to?: string; area?: string }): Promise<string[]> {
  const { rights } = await readRights(q, orgId);
  const { right } = findRight(rights, { kind: 'decision', key: p.area });
  const named = async (selector: string | undefined): Promise<string[]> => {
    if (!selector) return [];
    const humans = await humansNamed(q, orgId, selector, null);
    return humans === 'any' ? [] : humans;
  };
  if (p.to !== undefined) {
    if (p.to === p.raiser) throw badRequest('to', `${p.to} is you: raise it to another human`);
    const [member] = await getMembers(q, orgId, [p.to]);
    if (!member || member.kind !== 'human' || member.status !== 'active') throw badRequest('to', `must be a human: no active human member ${p.to} in this org`);
  }
  const admins = await activeHumansWithRole(q, orgId, ['admin']);
  const steps = [...(p.to !== undefined ? [p.to] : await named(right.decidedBy)), ...(await named(right.escalateTo)), ...admins];
  const chain = [...new Set(steps)].filter((id) => id !== p.raiser);
  return chain.length > 0 ? chain : admins;
}

/** An escalation's holder for a handoff: its assignee as of `now` (null once resolved: it is closed). */
export interface EscalationHolding {
  holder: string;
  open: boolean;
  status: string;
  area: string | null;
  level: number;
}

export async function escalationHolding(
  q: Queryable,
  orgId: string,
  id: string,
  now: Date,
  lock: '' | 'FOR UPDATE' = '',
): Promise<EscalationHolding | undefined> {
  const row = await findEscalation(q, orgId, id, lock);
  if (!row) return undefined;
  return { holder: assigneeAt(row, now), open: row.status === 'open', status: row.status, area: row.area, level: levelAt(row, now) };
}

/**
 * A handoff's acceptance: `to` answers it from now on. The chain restarts at `to`, followed by those above the
 * current level (so it still climbs, never back down), level 1 since now. Call with the row locked.
 */
export async function transferEscalation(
  q: Queryable,
  orgId: string,
  id: string,
  to: string,
  now: Date,
): Promise<{ previousAssignee: string; previousLevel: number }> {
  const row = await getEscalation(q, orgId, id, 'FOR UPDATE');
  const level = levelAt(row, now);
  const chain = [to, ...row.chain.slice(level).filter((x) => x !== to)];
  await q.query('UPDATE escalations SET chain = $3::text[], level_since = $4, updated_at = $4 WHERE org_id = $1 AND escalation_id = $2', [
    orgId,
    id,
    chain,
    now.toISOString(),
  ]);
  return { previousAssignee: row.chain[level - 1], previousLevel: level };
}

/** When `r` reached its current level: level_since plus one escalateAfter per level climbed. */
export const levelReachedAt = (r: EscalationRow, now: Date): string =>
  new Date(new Date(r.level_since).getTime() + (levelAt(r, now) - 1) * stepMs(r)).toISOString();

/**
 * What waits on `principalId` as of `now` (GET /org/inbox): the open escalations it is the assignee of (as
 * escalation.list assignedTo=me), newest first, and when the next open one in whose chain it stands further up
 * climbs to it (null: none will), so a reader knows when to look again. Open escalations naming it are few: the
 * chain is read in full, the level computed here.
 */
export async function escalationsWaitingOn(
  q: Queryable,
  orgId: string,
  principalId: string,
  now: Date,
  limit: number,
): Promise<{ assigned: EscalationRow[]; nextArrivalAt: string | null }> {
  const rows = await q.query<EscalationRow>(
    `SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE org_id = $1 AND status = 'open' AND $2 = ANY(chain)
      ORDER BY raised_at DESC, escalation_id DESC`,
    [orgId, principalId],
  );
  const assigned: EscalationRow[] = [];
  let next: number | null = null;
  for (const r of rows) {
    const level = levelAt(r, now);
    const mine = r.chain.indexOf(principalId) + 1;
    if (mine === level) assigned.push(r);
    else if (mine > level) {
      const at = new Date(r.level_since).getTime() + (mine - 1) * stepMs(r);
      if (next === null || at < next) next = at;
    }
  }
  return { assigned: assigned.slice(0, limit), nextArrivalAt: next === null ? null : new Date(next).toISOString() };
}
