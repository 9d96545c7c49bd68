import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { refreshDirectoryTerms } from './terms.js';

/** The member record is the principals row (migration 022): these helpers read and shape it. */

export interface MemberRow {
  principal_id: string;
  kind: 'human' | 'agent';
  name: string;
  handle: string | null;
  email: string | null;
  user_name: string | null;
  title: string | null;
  manager_id: string | null;
  timezone: string | null;
  status: 'invited' | 'active' | 'suspended' | 'deactivated' | 'archived';
  position: number | null;
  dotted_line_ids: string[];
  office: string | null;
  employee_id: string | null;
  external_id: string | null;
  version: number;
  created_at: string | Date;
  updated_at: string | Date;
  teams: { teamId: string; primary: boolean }[] | string | null;
}

export const MEMBER_COLUMNS = `p.principal_id, p.kind, p.name, p.handle, p.email, p.user_name, p.title, p.manager_id, p.timezone, p.status,
  p.position, p.dotted_line_ids, p.office, p.employee_id, p.external_id, p.version, p.created_at, p.updated_at,
  (SELECT coalesce(json_agg(json_build_object('teamId', mt.team_id, 'primary', mt.is_primary) ORDER BY mt.is_primary DESC, mt.team_id), '[]'::json)
     FROM member_teams mt WHERE mt.org_id = p.org_id AND mt.member_id = p.principal_id) AS teams`;

const iso = (v: string | Date) => new Date(v).toISOString();

export function toMember(r: MemberRow) {
  const teams: { teamId: string; primary: boolean }[] = typeof r.teams === 'string' ? JSON.parse(r.teams) : (r.teams ?? []);
  return {
    id: r.principal_id,
    kind: r.kind,
    name: r.name,
    handle: r.handle,
    email: r.email,
    userName: r.user_name,
    title: r.title,
    managerId: r.manager_id,
    timezone: r.timezone,
    status: r.status,
    position: r.position === null ? null : Number(r.position),
    dottedLineIds: r.dotted_line_ids ?? [],
    office: r.office,
    employeeId: r.employee_id,
    externalId: r.external_id,
    teams,
    version: Number(r.version),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}
export type Member = ReturnType<typeof toMember>;

/** CONFLICT when the caller's ifVersion is stale (members and teams share the wording). */
export function checkVersion(kind: string, id: string, current: number, ifVersion: number | undefined): void {
  if (ifVersion !== undefined && ifVersion !== Number(current)) {
    throw conflict(`${kind} ${id} is at version ${current}, not ${ifVersion}: read it again and retry with ifVersion ${current}`);
  }
}

/** The member, or NOT_FOUND (an id of another org looks exactly like one that never existed). */
export async function getMember(q: Queryable, orgId: string, memberId: string, lock = ''): Promise<MemberRow> {
  const [row] = await q.query<MemberRow>(`SELECT ${MEMBER_COLUMNS} FROM principals p WHERE p.org_id = $1 AND p.principal_id = $2 ${lock}`, [orgId, memberId]);
  if (!row) throw notFound(`member ${memberId}`);
  return row;
}

export async function getMembers(q: Queryable, orgId: string, ids: readonly string[]): Promise<Member[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<MemberRow>(`SELECT ${MEMBER_COLUMNS} FROM principals p WHERE p.org_id = $1 AND p.principal_id = ANY($2::text[])`, [orgId, ids]);
  const byId = new Map(rows.map((r) => [r.principal_id, toMember(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Reporting lines and team nesting change under one per-org lock, so two concurrent edits cannot each pass the
 * cycle check and together close a loop (A->B while B->A).
 */
export async function lockPeople(q: Queryable, orgId: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('people:' || $1))`, [orgId]);
}

/** BAD_REQUEST (naming `field`) unless `id` is a member of the org who may be named as a manager or lead (not archived). */
export async function requireNamableMember(q: Queryable, orgId: string, id: string, field: string): Promise<void> {
  const [row] = await q.query<{ status: string }>('SELECT status FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, id]);
  if (!row) throw badRequest(field, `no member ${id} in this org`);
  if (row.status === 'archived') throw badRequest(field, `${id} is archived`);
}

/** The trees people build: reporting lines on principals, nesting on teams (table, id column, parent column). */
const TREES = {
  reporting: { table: 'principals', id: 'principal_id', parent: 'manager_id' },
  teams: { table: 'teams', id: 'team_id', parent: 'parent_team_id' },
} as const;

/**
 * Walk up `tree` from `start` (the new parent): if it meets `node`, re-parenting node under start would close a
 * cycle; the answer is the node directly below `node` on that path (for the message), else undefined.
 */
export async function cycleThrough(q: Queryable, orgId: string, tree: keyof typeof TREES, start: string, node: string): Promise<string | undefined> {
  const { table, id, parent } = TREES[tree];
  const [cycle] = await q.query<{ below: string }>(
    `WITH RECURSIVE up(id, below, depth) AS (
        SELECT ${id}, ${id}, 0 FROM ${table} WHERE org_id = $1 AND ${id} = $2
        UNION ALL
        SELECT t.${parent}, up.id, up.depth + 1 FROM up JOIN ${table} t ON t.org_id = $1 AND t.${id} = up.id
         WHERE t.${parent} IS NOT NULL AND up.depth < 10000)
     SELECT below FROM up WHERE id = $3 LIMIT 1`,
    [orgId, start, node],
  );
  return cycle?.below;
}

/** BAD_REQUEST unless `managerId` is a member of the org that may lead (not archived) and not in memberId's subtree. */
export async function checkManager(q: Queryable, orgId: string, memberId: string | null, managerId: string, field = 'managerId'): Promise<void> {
  if (managerId === memberId) throw badRequest(field, `${memberId} cannot report to itself`);
  await requireNamableMember(q, orgId, managerId, field);
  if (memberId === null) return;
  const below = await cycleThrough(q, orgId, 'reporting', managerId, memberId);
  if (below) throw badRequest(field, `${below} reports to ${memberId}`);
}

/** A handle from a display name: accents folded, lowercase words joined by dots, at most 40 characters. */
export function handleFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.+|\.+$/g, '')
    .slice(0, 32)
    .replace(/\.+$/, '');
  return base || 'member';
}

/** The first free handle of base, base2, base3… in the org (callers hold the people lock). */
export async function freeHandle(q: Queryable, orgId: string, table: 'principals' | 'teams', base: string): Promise<string> {
  const rows = await q.query<{ handle: string }>(
    `SELECT lower(handle) AS handle FROM ${table} WHERE org_id = $1 AND lower(handle) LIKE $2 || '%'${table === 'teams' ? ` AND status = 'live'` : ''}`,
    [orgId, base],
  );
  const taken = new Set(rows.map((r) => r.handle));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
}

/** Live teams among ids, else BAD_REQUEST naming the first that is not. */
export async function checkTeams(q: Queryable, orgId: string, teamIds: readonly string[], field: string): Promise<void> {
  const rows = await q.query<{ team_id: string }>(`SELECT team_id FROM teams WHERE org_id = $1 AND team_id = ANY($2::text[]) AND status = 'live'`, [
    orgId,
    teamIds,
  ]);
  const live = new Set(rows.map((r) => r.team_id));
  const i = teamIds.findIndex((t) => !live.has(t));
  if (i >= 0) throw badRequest(`${field}.${i}`, `no live team ${teamIds[i]} in this org`);
}

/** Replace a member's team set; the primary one first (default the first listed). */
export async function setTeams(q: Queryable, orgId: string, memberId: string, teamIds: readonly string[], primary?: string): Promise<void> {
  const unique = [...new Set(teamIds)];
  const first = primary ?? unique[0];
  await q.query('DELETE FROM member_teams WHERE org_id = $1 AND member_id = $2', [orgId, memberId]);
  if (unique.length > 0) {
    await q.query(
      `INSERT INTO member_teams (org_id, member_id, team_id, is_primary)
       SELECT $1, $2, t, t = $4 FROM unnest($3::text[]) AS t`,
      [orgId, memberId, unique, first],
    );
  }
  await refreshDirectoryTerms(q, orgId, [memberId]);
}

/** The member fields unique in the org: email, handle and userName ignore case; the HR and identity-provider ids do not. */
const UNIQUE = {
  email: { column: 'email', fold: true },
  handle: { column: 'handle', fold: true },
  // The name a member signs in with: its userName, else its email (so one member's userName cannot be another's email).
  userName: { column: 'coalesce(user_name, email)', fold: true },
  employeeId: { column: 'employee_id', fold: false },
  externalId: { column: 'external_id', fold: false },
} as const;

/**
 * CONFLICT if another member of the org already has this value of a unique field (callers hold the people lock);
 * `param` names the param that gave the value when it is not the field itself (an email serving as userName).
 */
export async function checkUnique(
  q: Queryable,
  orgId: string,
  self: string | null,
  field: keyof typeof UNIQUE,
  value: string,
  param: string = field,
): Promise<void> {
  const { column, fold } = UNIQUE[field];
  const [row] = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM principals WHERE org_id = $1 AND ${fold ? `lower(${column}) = lower($2)` : `${column} = $2`} AND principal_id IS DISTINCT FROM $3 LIMIT 1`,
    [orgId, value, self],
  );
  if (row)
    throw conflict(`${param}: already used by member ${row.principal_id}${param === field ? '' : ` as its ${field}`}; choose another or update that member`);
}

/**
 * A free handle for a new principal named `name`, for every path that creates one (member.create, key mint, org
 * creation, pairing): takes the people lock so two creations of one name in one org cannot pick the same handle.
 */
export async function newMemberHandle(q: Queryable, orgId: string, name: string): Promise<string> {
  await lockPeople(q, orgId);
  return freeHandle(q, orgId, 'principals', handleFrom(name));
}

/** Active humans holding one of these roles (who may decide an approval), by id: the notifier's recipients. */
export async function activeHumansWithRole(q: Queryable, orgId: string, roles: readonly string[]): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM principals WHERE org_id = $1 AND kind = 'human' AND status = 'active' AND role = ANY($2::text[]) ORDER BY principal_id`,
    [orgId, roles],
  );
  return rows.map((r) => r.principal_id);
}
