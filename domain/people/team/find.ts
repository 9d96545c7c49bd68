import { one, type Queryable } from '../../../db/types.js';

/**
 * Live teams by exact id or name, oldest first, with the total and each team's member ids: the lookups of a
 * provisioning face (SCIM's `displayName eq`, paging by offset), which team.list's name cursor does not serve.
 */
export interface TeamCriteria {
  ids?: readonly string[];
  /** Compared ignoring case, as the live-name unique index does. */
  names?: readonly string[];
  offset: number;
  /** 0: only the total. */
  limit: number;
}

export interface FoundTeam {
  id: string;
  name: string;
  memberIds: string[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  team_id: string;
  name: string;
  member_ids: string[] | null;
  version: number;
  created_at: string | Date;
  updated_at: string | Date;
}

export async function findTeams(q: Queryable, orgId: string, c: TeamCriteria): Promise<{ total: number; teams: FoundTeam[] }> {
  const where = `t.org_id = $1 AND t.status = 'live' AND ($2::text[] IS NULL OR t.team_id = ANY($2::text[]))
    AND ($3::text[] IS NULL OR lower(t.name) = ANY($3::text[]))`;
  const args = [orgId, c.ids ?? null, c.names?.map((n) => n.toLowerCase()) ?? null];
  const { n } = one(await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM teams t WHERE ${where}`, args));
  if (c.limit === 0 || Number(n) <= c.offset) return { total: Number(n), teams: [] };
  const rows = await q.query<Row>(
    `SELECT t.team_id, t.name, t.version, t.created_at, t.updated_at,
            ARRAY(SELECT mt.member_id FROM member_teams mt WHERE mt.org_id = t.org_id AND mt.team_id = t.team_id ORDER BY mt.member_id) AS member_ids
       FROM teams t WHERE ${where} ORDER BY t.created_at, t.team_id OFFSET $4 LIMIT $5`,
    [...args, c.offset, c.limit],
  );
  return {
    total: Number(n),
    teams: rows.map((r) => ({
      id: r.team_id,
      name: r.name,
      memberIds: r.member_ids ?? [],
      version: Number(r.version),
      createdAt: new Date(r.created_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
    })),
  };
}

/** SQL: the live teams of `member` as a text[] expression (teamIdsOf inside another statement). */
export const TEAM_IDS_SQL = (org: string, member: string) =>
  `ARRAY(SELECT mt.team_id FROM member_teams mt JOIN teams t ON t.org_id = mt.org_id AND t.team_id = mt.team_id AND t.status = 'live'
          WHERE mt.org_id = ${org} AND mt.member_id = ${member})`;

/** The live teams a member belongs to (file grants to a team reach its members). */
export async function teamIdsOf(q: Queryable, orgId: string, memberId: string): Promise<string[]> {
  const rows = await q.query<{ team_id: string }>(
    `SELECT mt.team_id FROM member_teams mt JOIN teams t ON t.org_id = mt.org_id AND t.team_id = mt.team_id AND t.status = 'live'
      WHERE mt.org_id = $1 AND mt.member_id = $2`,
    [orgId, memberId],
  );
  return rows.map((r) => r.team_id);
}
