import { badRequest } from '../../../protocol/errors.js';
import { one, type Queryable } from '../../../db/types.js';
import { requireNamableMember } from './model.js';

/*
 * The org chart on the principals row: manager_id (one manager), dotted_line_ids (display only), position (slot
 * among siblings, NULL = after the placed ones, by name). Every change to any of them runs under lockPeople and
 * bumps the org's chart revision (migration 024).
 */

/** Sibling order everywhere the chart is shown: placed members first, then by name, then by id. */
export const SIBLING_ORDER = 'position NULLS LAST, lower(name), principal_id';

/**
 * Bump the org's chart revision and return the new one. Every reporting change calls it in its transaction,
 * under the people lock (member, hierarchy, and the families that move reports: user.deactivate, SCIM).
 */
export async function bumpChartRevision(q: Queryable, orgId: string): Promise<number> {
  const row = one(
    await q.query<{ revision: string | number }>(
      `INSERT INTO org_charts (org_id, revision) VALUES ($1, 1)
     ON CONFLICT (org_id) DO UPDATE SET revision = org_charts.revision + 1 RETURNING revision`,
      [orgId],
    ),
  );
  return Number(row.revision);
}

/** The org's chart revision (0 before its first reporting change). */
export async function chartRevision(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ revision: string | number }>('SELECT revision FROM org_charts WHERE org_id = $1', [orgId]);
  return Number(row?.revision ?? 0);
}

/**
 * Re-parent members, ids[i] under managers[i] (null: the top): a new manager means new siblings (the old slot is
 * meaningless there, so the position clears) and a manager is never also a dotted line (that one is dropped).
 * One statement for any number of lines; returns the ids whose manager changed.
 */
export async function setManagers(q: Queryable, orgId: string, ids: readonly string[], managers: readonly (string | null)[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ principal_id: string }>(
    `UPDATE principals p SET manager_id = v.manager, position = NULL,
            dotted_line_ids = array_remove(p.dotted_line_ids, coalesce(v.manager, '')), version = p.version + 1, updated_at = now()
       FROM unnest($2::text[], $3::text[]) AS v(id, manager)
      WHERE p.org_id = $1 AND p.principal_id = v.id AND p.manager_id IS DISTINCT FROM v.manager
      RETURNING p.principal_id`,
    [orgId, ids, managers],
  );
  return rows.map((r) => r.principal_id);
}

/** Re-parent all of memberIds under one manager (setManagers). */
export const moveUnder = (q: Queryable, orgId: string, memberIds: readonly string[], managerId: string | null): Promise<string[]> =>
  setManagers(
    q,
    orgId,
    memberIds,
    memberIds.map(() => managerId),
  );

/** A member leaving the chart (archived): nobody keeps a dotted line to it. Returns how many lost one. */
export async function dropDottedLinesTo(q: Queryable, orgId: string, memberId: string): Promise<number> {
  const rows = await q.query(
    `UPDATE principals SET dotted_line_ids = array_remove(dotted_line_ids, $2::text), version = version + 1, updated_at = now()
      WHERE org_id = $1 AND $2::text = ANY(dotted_line_ids) RETURNING principal_id`,
    [orgId, memberId],
  );
  return rows.length;
}

/** BAD_REQUEST `dottedLineIds[i]` unless every id is a distinct namable member, neither the member nor its manager. */
export async function checkDottedLines(
  q: Queryable,
  orgId: string,
  memberId: string | null,
  managerId: string | null,
  ids: readonly string[],
  field = 'dottedLineIds',
): Promise<void> {
  for (const [i, id] of ids.entries()) {
    const at = `${field}.${i}`;
    if (id === memberId) throw badRequest(at, `${id} is the member itself`);
    if (id === managerId) throw badRequest(at, `${id} is the member's manager; a dotted line is to someone else`);
    if (ids.indexOf(id) < i) throw badRequest(at, `${id} is listed twice`);
    await requireNamableMember(q, orgId, id, at);
  }
}

/** The chart siblings under managerId (NULL: the top of the chart), in chart order; archived members are not in it. */
export async function siblingsOf(q: Queryable, orgId: string, managerId: string | null): Promise<{ id: string; position: number | null }[]> {
  const rows = await q.query<{ principal_id: string; position: number | null }>(
    `SELECT principal_id, position FROM principals
      WHERE org_id = $1 AND manager_id IS NOT DISTINCT FROM $2 AND status <> 'archived'
      ORDER BY ${SIBLING_ORDER}`,
    [orgId, managerId],
  );
  return rows.map((r) => ({ id: r.principal_id, position: r.position === null ? null : Number(r.position) }));
}

/** Give ids the positions 0, 1, 2… in this order; returns how many rows changed. */
export async function renumber(q: Queryable, orgId: string, ids: readonly string[]): Promise<number> {
  const rows = await q.query(
    `UPDATE principals p SET position = v.pos - 1, version = p.version + 1, updated_at = now()
       FROM unnest($2::text[]) WITH ORDINALITY AS v(id, pos)
      WHERE p.org_id = $1 AND p.principal_id = v.id AND p.position IS DISTINCT FROM (v.pos - 1)::int
      RETURNING p.principal_id`,
    [orgId, ids],
  );
  return rows.length;
}
