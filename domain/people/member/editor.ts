import { member as c } from '../../../protocol/methods/member.js';
import { handler } from '../../core/handler.js';
import { getMember } from './model.js';

/*
 * member.getEditorOptions: what a member form needs and nothing else to fetch (HiBob's fields metadata): each
 * field's type and limits, then the valid values of the fields that choose from a list. Bounded: teams are read
 * up to 1,000 per org, managers are capped at `limit` with the total.
 */

const TIME_ZONES = [...Intl.supportedValuesOf('timeZone'), 'UTC'].sort();

const FIELDS = [
  { field: 'name', type: 'text', required: true, nullable: false, maxLength: 200, unique: false },
  { field: 'handle', type: 'handle', required: false, nullable: false, maxLength: 40, unique: true },
  { field: 'email', type: 'email', required: false, nullable: true, maxLength: 254, unique: true },
  { field: 'userName', type: 'text', required: false, nullable: true, maxLength: 254, unique: true },
  { field: 'title', type: 'text', required: false, nullable: true, maxLength: 200, unique: false },
  { field: 'managerId', type: 'member', required: false, nullable: true, unique: false, choices: 'managers' },
  { field: 'dottedLineIds', type: 'members', required: false, nullable: false, maxItems: 3, unique: false, choices: 'managers' },
  { field: 'teamIds', type: 'teams', required: false, nullable: false, maxItems: 50, unique: false, choices: 'teams' },
  { field: 'office', type: 'office', required: false, nullable: true, maxLength: 200, unique: false, choices: 'offices' },
  { field: 'timezone', type: 'timezone', required: false, nullable: true, maxLength: 64, unique: false, choices: 'timezones' },
  { field: 'employeeId', type: 'text', required: false, nullable: true, maxLength: 64, unique: true },
  { field: 'externalId', type: 'text', required: false, nullable: true, maxLength: 200, unique: true },
] as const;

export const getEditorOptions = handler(c.getEditorOptions, async (ctx, p) => {
  if (p.memberId !== undefined) await getMember(ctx.q, ctx.orgId, p.memberId);
  // Managers: active or invited members outside the member's own subtree (itself included), by name.
  const pattern = p.q ? `%${p.q.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null;
  const managers = await ctx.q.query<{
    principal_id: string;
    kind: 'human' | 'agent';
    name: string;
    handle: string | null;
    title: string | null;
    total: number;
  }>(
    `WITH RECURSIVE below(id, depth) AS (
        SELECT $2::text, 0 WHERE $2::text IS NOT NULL
        UNION ALL
        SELECT p.principal_id, below.depth + 1 FROM below JOIN principals p ON p.org_id = $1 AND p.manager_id = below.id
         WHERE below.depth < 10000)
     SELECT principal_id, kind, name, handle, title, count(*) OVER ()::int AS total FROM principals
      WHERE org_id = $1 AND status IN ('active', 'invited') AND principal_id NOT IN (SELECT id FROM below)
        AND ($3::text IS NULL OR lower(name) LIKE $3 OR lower(handle) LIKE $3)
      ORDER BY lower(name), principal_id LIMIT $4`,
    [ctx.orgId, p.memberId ?? null, pattern, p.limit],
  );
  // Teams and members are one family's tables (migration 022), as checkTeams reads them.
  const teams = await ctx.q.query<{ team_id: string; name: string; handle: string; parent_team_id: string | null }>(
    `SELECT team_id, name, handle, parent_team_id FROM teams WHERE org_id = $1 AND status = 'live' ORDER BY lower(name), team_id LIMIT 1000`,
    [ctx.orgId],
  );
  const offices = await ctx.q.query<{ office: string; members: number }>(
    `SELECT office, count(*)::int AS members FROM principals WHERE org_id = $1 AND office IS NOT NULL AND status <> 'archived'
      GROUP BY office ORDER BY lower(office), office LIMIT 1000`,
    [ctx.orgId],
  );
  return {
    fields: FIELDS.map((f) => ({ ...f })),
    teams: teams.map((t) => ({ id: t.team_id, name: t.name, handle: t.handle, parentTeamId: t.parent_team_id })),
    managers: {
      members: managers.map((m) => ({ id: m.principal_id, kind: m.kind, name: m.name, handle: m.handle, title: m.title })),
      total: Number(managers[0]?.total ?? 0),
    },
    offices: offices.map((o) => ({ office: o.office, members: Number(o.members) })),
    timezones: TIME_ZONES,
  };
});
