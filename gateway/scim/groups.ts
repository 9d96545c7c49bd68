import type { FastifyInstance } from 'fastify';
import { findMembers } from '../../domain/people/member/find.js';
import { findTeams, type FoundTeam } from '../../domain/people/team/find.js';
import type { RegistryCalls } from './calls.js';
import { attributeQuery, callsFor, listQuery, listResponse, project, sendScim, type ScimRequest } from './common.js';
import { invalid, ScimError } from './errors.js';
import { equalities, matches, parseFilter } from './filter.js';
import { applyPatch, type Normaliser } from './patch.js';
import { GROUP_SCHEMA } from './schemas.js';
import { teamsOf, VISIBLE_STATUSES } from './user-map.js';

/**
 * /Groups: the org's live teams. displayName is the team name (team.create / team.update / team.delete);
 * members are the team's humans that /Users shows, and a membership change is one member.assignTeam per
 * member whose team set changes (the registry sets a member's teams, not a team's members). A team's agents,
 * and members /Users does not show, are left where they are.
 */

const GROUP_FIELD_NAMES = { name: 'displayName', teamId: 'id', memberId: 'members.value', teamIds: 'members' };
const MAX_ASSIGN_TRIES = 3;

type Member = { value: string; display?: string; $ref?: string };

/** The visible human members of the teams, by team. */
async function membersOf(s: ScimRequest, teams: FoundTeam[]): Promise<Map<string, Member[]>> {
  const ids = [...new Set(teams.flatMap((t) => t.memberIds))];
  const { members } = ids.length
    ? await findMembers(s.runtime.db, s.orgId, { kind: 'human', statuses: VISIBLE_STATUSES, ids, offset: 0, limit: ids.length })
    : { members: [] };
  const names = new Map(members.map((m) => [m.id, m.name]));
  return new Map(
    teams.map((t) => [t.id, t.memberIds.filter((id) => names.has(id)).map((id) => ({ value: id, display: names.get(id)!, $ref: `${s.base}/Users/${id}` }))]),
  );
}

async function render(s: ScimRequest, teams: FoundTeam[], withMembers = true): Promise<Record<string, any>[]> {
  const members = withMembers ? await membersOf(s, teams) : new Map<string, Member[]>();
  return teams.map((t) => ({
    schemas: [GROUP_SCHEMA],
    id: t.id,
    displayName: t.name,
    ...(withMembers ? { members: members.get(t.id) ?? [] } : {}),
    meta: { resourceType: 'Group', created: t.createdAt, lastModified: t.updatedAt, location: `${s.base}/Groups/${t.id}` },
  }));
}

async function load(s: ScimRequest, id: string): Promise<FoundTeam> {
  const { teams } = /^team_[A-Za-z0-9]+$/.test(id) ? await findTeams(s.runtime.db, s.orgId, { ids: [id], offset: 0, limit: 1 }) : { teams: [] };
  if (!teams[0]) throw new ScimError(404, `Group ${id} not found`);
  return teams[0];
}

const one = async (s: ScimRequest, id: string) => (await render(s, [await load(s, id)]))[0];

const membersExcluded = (q: { attributes?: string[]; excludedAttributes?: string[] }) =>
  q.excludedAttributes?.some((a) => a.toLowerCase() === 'members') ||
  (q.attributes !== undefined && !q.attributes.some((a) => a.toLowerCase().startsWith('members')));

async function list(s: ScimRequest, q: ReturnType<typeof listQuery>) {
  const offset = q.startIndex - 1;
  const withMembers = !membersExcluded(q);
  if (!q.filter) {
    const { total, teams } = await findTeams(s.runtime.db, s.orgId, { offset, limit: q.count });
    return listResponse(
      total,
      q.startIndex,
      (await render(s, teams, withMembers)).map((r) => project(r, q)),
    );
  }
  const filter = parseFilter(q.filter);
  const eq = equalities(filter);
  const names = eq.get('displayname')?.filter((v): v is string => typeof v === 'string');
  const ids = eq.get('id')?.filter((v): v is string => typeof v === 'string');
  const { teams } = await findTeams(s.runtime.db, s.orgId, { names, ids, offset: 0, limit: 10_000 });
  // Evaluated with members, so a filter on members.value holds; then projected as asked.
  const hits = (await render(s, teams)).filter((r) => matches(filter, r));
  return listResponse(
    hits.length,
    q.startIndex,
    hits.slice(offset, offset + q.count).map((r) => project(r, q)),
  );
}

/** The member ids a group resource lists (value of each members entry). */
function memberIds(resource: unknown): string[] | undefined {
  const members = (resource as { members?: unknown })?.members;
  if (members === undefined) return undefined;
  if (members === null) return [];
  if (!Array.isArray(members)) throw invalid('members: must be a list');
  return members.map((m) => {
    const v = (m as { value?: unknown })?.value;
    if (typeof v !== 'string') throw invalid('members: each member needs a value (a User id)');
    return v;
  });
}

/** Add or take `teamId` from the member's teams with member.assignTeam, re-reading on a concurrent change. */
async function setMembership(s: ScimRequest, calls: RegistryCalls, memberId: string, teamId: string, join: boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { members } = await findMembers(s.runtime.db, s.orgId, { kind: 'human', statuses: VISIBLE_STATUSES, ids: [memberId], offset: 0, limit: 1 });
    const m = members[0];
    if (!m) throw invalid(`members: no User ${memberId}`);
    const current = teamsOf(m).map((t) => t.teamId);
    if (current.includes(teamId) === join) return;
    const teamIds = join ? [...current, teamId] : current.filter((t) => t !== teamId);
    const primary = teamsOf(m).find((t) => t.primary)?.teamId;
    const params = { memberId, teamIds, ifVersion: m.version, ...(primary && teamIds.includes(primary) ? { primaryTeamId: primary } : {}) };
    try {
      await calls.run('member.assignTeam', params);
      return;
    } catch (err) {
      if (!(err instanceof ScimError && err.status === 409 && /is at version/.test(err.message)) || attempt >= MAX_ASSIGN_TRIES) throw err;
    }
  }
}

/** The calls that take a team's visible members from `current` to `wanted` (unknown users refused first). */
async function syncMembers(s: ScimRequest, calls: RegistryCalls, teamId: string, current: string[], wanted: string[]): Promise<void> {
  const added = [...new Set(wanted)].filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  if (added.length) {
    const { members } = await findMembers(s.runtime.db, s.orgId, { kind: 'human', statuses: VISIBLE_STATUSES, ids: added, offset: 0, limit: added.length });
    const missing = added.find((id) => !members.some((m) => m.id === id));
    if (missing) throw invalid(`members: no User ${missing}`);
  }
  for (const id of removed) await setMembership(s, calls, id, teamId, false);
  for (const id of added) await setMembership(s, calls, id, teamId, true);
}

const displayName = (resource: unknown): string | undefined => {
  const v = (resource as { displayName?: unknown })?.displayName;
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw invalid('displayName: required');
  return v;
};

/** Members in operations as bare {value}: how they are compared (Entra sends "$ref": null beside value). */
const normaliseGroupOp: Normaliser = (op, attribute) => {
  const bare = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(bare) : v !== null && typeof v === 'object' && 'value' in v ? { value: (v as Member).value } : v;
  if (attribute === 'members') return { ...op, value: bare(op.value) };
  if (!op.path && op.value !== null && typeof op.value === 'object' && 'members' in op.value)
    return { ...op, value: { ...op.value, members: bare(op.value.members) } };
  return op;
};

export async function groupRoutes(app: FastifyInstance, ctx: (req: unknown) => ScimRequest) {
  app.get('/Groups', async (req, reply) => sendScim(reply, 200, await list(ctx(req), listQuery(req))));

  app.get<{ Params: { id: string } }>('/Groups/:id', async (req, reply) => {
    const s = ctx(req);
    const q = attributeQuery(req);
    const [group] = await render(s, [await load(s, req.params.id)], !membersExcluded(q));
    return sendScim(reply, 200, project(group, q));
  });

  app.post('/Groups', async (req, reply) => {
    const s = ctx(req);
    const name = displayName(req.body);
    if (name === undefined) throw invalid('displayName: required');
    const wanted = memberIds(req.body) ?? [];
    const calls = callsFor(s, GROUP_FIELD_NAMES);
    calls.check([{ method: 'team.create', params: { name } }]);
    const { team } = await calls.run<{ team: { id: string } }>('team.create', { name });
    await syncMembers(s, calls, team.id, [], wanted);
    const group = await one(s, team.id);
    reply.header('location', group.meta.location);
    return sendScim(reply, 201, group);
  });

  const update = async (s: ScimRequest, team: FoundTeam, current: Record<string, any>, next: unknown) => {
    const calls = callsFor(s, GROUP_FIELD_NAMES);
    const name = displayName(next);
    if (name !== undefined && name !== team.name) {
      calls.check([{ method: 'team.update', params: { teamId: team.id, name } }]);
      await calls.run('team.update', { teamId: team.id, name });
    }
    const wanted = memberIds(next);
    if (wanted !== undefined) await syncMembers(s, calls, team.id, memberIds(current) ?? [], wanted);
    // A write that changes nothing still leaves its event (noop), as every registry write does.
    if (calls.made.length === 0) await calls.run('team.update', { teamId: team.id });
    return one(s, team.id);
  };

  app.put<{ Params: { id: string } }>('/Groups/:id', async (req, reply) => {
    const s = ctx(req);
    const team = await load(s, req.params.id);
    const [current] = await render(s, [team]);
    return sendScim(reply, 200, await update(s, team, current, req.body));
  });

  app.patch<{ Params: { id: string } }>('/Groups/:id', async (req, reply) => {
    const s = ctx(req);
    const team = await load(s, req.params.id);
    const [current] = await render(s, [team]);
    const bareCurrent: Record<string, any> = { ...current, members: (current.members as Member[]).map((m) => ({ value: m.value })) };
    const after = applyPatch(bareCurrent, req.body, normaliseGroupOp);
    if (after.id !== team.id) throw invalid('id: is assigned by the server and cannot change', 'mutability');
    return sendScim(reply, 200, await update(s, team, current, { ...after, members: after.members ?? [] }));
  });

  app.delete<{ Params: { id: string } }>('/Groups/:id', async (req, reply) => {
    const s = ctx(req);
    const team = await load(s, req.params.id);
    await callsFor(s, GROUP_FIELD_NAMES).run('team.delete', { teamId: team.id });
    return reply.code(204).send();
  });
}
