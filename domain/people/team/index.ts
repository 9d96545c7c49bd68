import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { decodeCursor, encodeCursor, strings } from '../../core/cursor.js';
import { team as c } from '../../../protocol/methods/team.js';
import { one, type Queryable } from '../../../db/types.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { checkVersion } from '../member/index.js';
import { laneSignature } from '../member/lane.js';
import { cycleThrough, freeHandle, handleFrom, lockPeople, requireNamableMember } from '../member/model.js';
import { refreshDirectoryTerms, refreshTeamDirectoryTerms } from '../member/terms.js';
import { teamReferences } from './references.js';

/* team.*: nested groups of members. Events carry ids, statuses and field names, never team names. */

interface TeamRow {
  team_id: string;
  name: string;
  handle: string;
  parent_team_id: string | null;
  lead_id: string | null;
  status: 'live' | 'deleted';
  version: number;
  member_count: number;
  created_at: string | Date;
  updated_at: string | Date;
}

const TEAM_COLUMNS = `t.team_id, t.name, t.handle, t.parent_team_id, t.lead_id, t.status, t.version, t.created_at, t.updated_at,
  (SELECT count(*)::int FROM member_teams mt WHERE mt.org_id = t.org_id AND mt.team_id = t.team_id) AS member_count`;

const toTeam = (r: TeamRow) => ({
  id: r.team_id,
  name: r.name,
  handle: r.handle,
  parentTeamId: r.parent_team_id,
  leadId: r.lead_id,
  status: r.status,
  memberCount: Number(r.member_count),
  version: Number(r.version),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

async function getTeam(q: Queryable, orgId: string, teamId: string, lock = ''): Promise<TeamRow> {
  const [row] = await q.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM teams t WHERE t.org_id = $1 AND t.team_id = $2 ${lock}`, [orgId, teamId]);
  if (!row) throw notFound(`team ${teamId}`);
  return row;
}

async function checkName(q: Queryable, orgId: string, self: string | null, field: 'name' | 'handle', value: string): Promise<void> {
  const [row] = await q.query<{ team_id: string }>(
    `SELECT team_id FROM teams WHERE org_id = $1 AND status = 'live' AND lower(${field}) = lower($2) AND team_id IS DISTINCT FROM $3 LIMIT 1`,
    [orgId, value, self],
  );
  if (row) throw conflict(`${field}: already used by team ${row.team_id}; choose another`);
}

/** A lead must be a member of the org who is not archived (the member family's own check). */
const checkLead = (q: Queryable, orgId: string, leadId: string): Promise<void> => requireNamableMember(q, orgId, leadId, 'leadId');

/** The parent must be a live team of the org and, for an existing team, not the team itself or one below it. */
async function checkParent(q: Queryable, orgId: string, teamId: string | null, parentId: string): Promise<void> {
  if (parentId === teamId) throw badRequest('parentTeamId', `${teamId} cannot be its own parent`);
  const [row] = await q.query<{ status: string }>('SELECT status FROM teams WHERE org_id = $1 AND team_id = $2', [orgId, parentId]);
  if (!row || row.status !== 'live') throw badRequest('parentTeamId', `no live team ${parentId} in this org`);
  if (teamId === null) return;
  const below = await cycleThrough(q, orgId, 'teams', parentId, teamId);
  if (below) throw badRequest('parentTeamId', `${below} is inside ${teamId}`);
}

/** One team of the org as team.* shows it (live or deleted), or NOT_FOUND: for reads outside this family. */
export async function readTeam(q: Queryable, orgId: string, teamId: string): Promise<ReturnType<typeof toTeam>> {
  return toTeam(await getTeam(q, orgId, teamId));
}

function refuseDeleted(row: TeamRow): void {
  if (row.status === 'deleted') throw conflict(`team ${row.team_id} is deleted; create a new team instead`);
}

export const create = handler(c.create, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  await checkName(ctx.q, ctx.orgId, null, 'name', p.name);
  if (p.handle !== undefined) await checkName(ctx.q, ctx.orgId, null, 'handle', p.handle);
  if (p.parentTeamId !== undefined) await checkParent(ctx.q, ctx.orgId, null, p.parentTeamId);
  if (p.leadId !== undefined) await checkLead(ctx.q, ctx.orgId, p.leadId);
  const handle = p.handle ?? (await freeHandle(ctx.q, ctx.orgId, 'teams', handleFrom(p.name)));
  const teamId = newId('team');
  await ctx.q.query(`INSERT INTO teams (org_id, team_id, name, handle, parent_team_id, lead_id) VALUES ($1, $2, $3, $4, $5, $6)`, [
    ctx.orgId,
    teamId,
    p.name,
    handle,
    p.parentTeamId ?? null,
    p.leadId ?? null,
  ]);
  const t = toTeam(await getTeam(ctx.q, ctx.orgId, teamId));
  await ctx.emit('team.record.create', teamId, { teamId, parentTeamId: t.parentTeamId, leadId: t.leadId, status: t.status, version: t.version });
  return { team: t, changed: true };
});

const EDITABLE = ['name', 'handle', 'parentTeamId', 'leadId'] as const;
const COLUMN = { name: 'name', handle: 'handle', parentTeamId: 'parent_team_id', leadId: 'lead_id' } as const;

export const update = handler(c.update, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getTeam(ctx.q, ctx.orgId, p.teamId, 'FOR UPDATE OF t');
  checkVersion('team', p.teamId, row.version, p.ifVersion);
  refuseDeleted(row);
  const fields = EDITABLE.filter((f) => p[f] !== undefined && p[f] !== row[COLUMN[f]]);
  if (fields.length === 0) {
    await ctx.emit('team.record.update', p.teamId, { teamId: p.teamId, fields: [], version: Number(row.version), noop: true });
    return { team: toTeam(row), changed: false };
  }
  if (fields.includes('name')) await checkName(ctx.q, ctx.orgId, p.teamId, 'name', p.name!);
  if (fields.includes('handle')) await checkName(ctx.q, ctx.orgId, p.teamId, 'handle', p.handle!);
  if (fields.includes('parentTeamId') && p.parentTeamId !== null) await checkParent(ctx.q, ctx.orgId, p.teamId, p.parentTeamId!);
  if (fields.includes('leadId') && p.leadId !== null) await checkLead(ctx.q, ctx.orgId, p.leadId!);
  const sets = fields.map((f, i) => `${COLUMN[f]} = $${i + 3}`);
  await ctx.q.query(`UPDATE teams SET ${sets.join(', ')}, version = version + 1, updated_at = now() WHERE org_id = $1 AND team_id = $2`, [
    ctx.orgId,
    p.teamId,
    ...fields.map((f) => p[f]),
  ]);
  if (fields.includes('name')) await refreshTeamDirectoryTerms(ctx.q, ctx.orgId, p.teamId);
  const t = toTeam(await getTeam(ctx.q, ctx.orgId, p.teamId));
  await ctx.emit('team.record.update', p.teamId, { teamId: p.teamId, fields, parentTeamId: t.parentTeamId, leadId: t.leadId, version: t.version });
  return { team: t, changed: true };
});

export const remove = handler(c.delete, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getTeam(ctx.q, ctx.orgId, p.teamId, 'FOR UPDATE OF t');
  checkVersion('team', p.teamId, row.version, p.ifVersion);
  if (row.status === 'deleted') {
    await ctx.emit('team.record.delete', p.teamId, { teamId: p.teamId, status: 'deleted', version: Number(row.version), noop: true });
    return { team: toTeam(row), changed: false };
  }
  const subs = await ctx.q.query<{ team_id: string }>(
    `SELECT team_id FROM teams WHERE org_id = $1 AND parent_team_id = $2 AND status = 'live' ORDER BY team_id LIMIT 3`,
    [ctx.orgId, p.teamId],
  );
  if (subs.length > 0) {
    throw conflict(
      `team ${p.teamId} is live with sub-teams (${subs.map((s) => s.team_id).join(', ')}): move them (team.update parentTeamId) or delete them first`,
    );
  }
  const humans = one(
    await ctx.q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM member_teams mt JOIN principals p ON p.org_id = mt.org_id AND p.principal_id = mt.member_id
      WHERE mt.org_id = $1 AND mt.team_id = $2 AND p.kind = 'human'`,
      [ctx.orgId, p.teamId],
    ),
  );
  // The agent lane (domain/people/member/lane.ts): humans leave a team by a human's hand or approval.
  await laneSignature(ctx, Number(humans.n) > 0, {
    subjectId: p.teamId,
    summary: `Delete team ${row.name} (${p.teamId}): its ${Number(humans.n)} human member${Number(humans.n) === 1 ? '' : 's'} leave it`,
    params: p,
    completion: 'release',
  });
  const unassigned = await ctx.q.query<{ member_id: string }>('DELETE FROM member_teams WHERE org_id = $1 AND team_id = $2 RETURNING member_id', [
    ctx.orgId,
    p.teamId,
  ]);
  // A member whose primary team this was gets its first remaining team as primary.
  await ctx.q.query(
    `UPDATE member_teams mt SET is_primary = true
      WHERE mt.org_id = $1 AND mt.member_id = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM member_teams o WHERE o.org_id = $1 AND o.member_id = mt.member_id AND o.is_primary)
        AND mt.team_id = (SELECT min(team_id) FROM member_teams f WHERE f.org_id = $1 AND f.member_id = mt.member_id)`,
    [ctx.orgId, unassigned.map((u) => u.member_id)],
  );
  await ctx.q.query(`UPDATE teams SET status = 'deleted', version = version + 1, updated_at = now() WHERE org_id = $1 AND team_id = $2`, [ctx.orgId, p.teamId]);
  await refreshDirectoryTerms(
    ctx.q,
    ctx.orgId,
    unassigned.map((u) => u.member_id),
  );
  const t = toTeam(await getTeam(ctx.q, ctx.orgId, p.teamId));
  await ctx.emit('team.record.delete', p.teamId, { teamId: p.teamId, status: 'deleted', membersUnassigned: unassigned.length, version: t.version });
  return { team: t, changed: true };
});

export const list = handler(c.list, async (ctx, p) => {
  const after = p.cursor === undefined ? undefined : decodeCursor<[string, string]>(p.cursor, 'cursor', strings(2));
  const rows = await ctx.q.query<TeamRow & { sort: string }>(
    `SELECT ${TEAM_COLUMNS}, lower(t.name) AS sort FROM teams t
      WHERE t.org_id = $1 AND ($2::boolean OR t.status = 'live') AND ($3::text IS NULL OR t.parent_team_id = $3)
        AND ($4::text IS NULL OR (lower(t.name), t.team_id) > ($4, $5::text))
      ORDER BY lower(t.name), t.team_id LIMIT $6`,
    [ctx.orgId, p.includeDeleted, p.parentTeamId ?? null, after?.[0] ?? null, after?.[1] ?? null, p.limit + 1],
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    teams: page.map(toTeam),
    nextCursor: rows.length > p.limit && last ? encodeCursor([last.sort, last.team_id]) : null,
  };
});

export const teamHandlers = family('team', { create, update, delete: remove, list });

/** The team family, as domain/deployed.ts lists it. */
export const teamFamily: Family = { name: 'team', methods: teamHandlers, contributes: { references: teamReferences } };
