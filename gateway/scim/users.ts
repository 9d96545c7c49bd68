import type { FastifyInstance } from 'fastify';
import { findMembers, type MemberCriteria } from '../../domain/people/member/find.js';
import type { Member } from '../../domain/people/member/model.js';
import { findTeams } from '../../domain/people/team/find.js';
import type { PlannedCall } from './calls.js';
import { attributeQuery, callsFor, listQuery, listResponse, project, sendScim, type ScimRequest } from './common.js';
import { invalid, ScimError } from './errors.js';
import { equalities, matches, parseFilter } from './filter.js';
import { applyPatch, type Normaliser } from './patch.js';
import { ENTERPRISE_SCHEMA } from './schemas.js';
import { looksLikeEmail, NO_VALUES, toScimUser, USER_FIELD_NAMES, userChange, userValues, teamsOf, VISIBLE_STATUSES, type UserChange } from './user-map.js';

/**
 * /Users: the org's human members. Reads come from the member family's finder; every write is registry calls
 * (member.create, member.update, member.assignTeam for department, admin.deactivate / admin.reactivate for
 * active, user.deactivate for DELETE), one ledger event each.
 */

const HUMANS = { kind: 'human', statuses: VISIBLE_STATUSES } as const;
/** The most members a filter the database cannot narrow is evaluated over (twice the 10,000 of docs/performance.md). */
const SCAN_LIMIT = 20_000;
const REASON = {
  suspend: 'Deactivated in the identity provider (SCIM active=false)',
  reactivate: 'Reactivated in the identity provider (SCIM active=true)',
  remove: 'Deleted in the identity provider (SCIM DELETE)',
};

async function render(s: ScimRequest, members: Member[]): Promise<Record<string, any>[]> {
  const teamIds = [...new Set(members.flatMap((m) => teamsOf(m).map((t) => t.teamId)))];
  const { teams } = teamIds.length ? await findTeams(s.runtime.db, s.orgId, { ids: teamIds, offset: 0, limit: teamIds.length }) : { teams: [] };
  const teamNames = new Map(teams.map((t) => [t.id, t.name]));
  return members.map((m) => toScimUser(m, { base: s.base, teamNames }));
}

async function load(s: ScimRequest, id: string): Promise<Member> {
  const { members } = /^usr_[A-Za-z0-9]+$/.test(id) ? await findMembers(s.runtime.db, s.orgId, { ...HUMANS, ids: [id], offset: 0, limit: 1 }) : { members: [] };
  if (!members[0]) throw new ScimError(404, `User ${id} not found`);
  return members[0];
}

const one = async (s: ScimRequest, id: string) => (await render(s, [await load(s, id)]))[0];

/** The database criteria a filter's equalities give (the filter itself is still evaluated on every candidate). */
function criteria(eq: Map<string, unknown[]>): Partial<MemberCriteria> | undefined {
  const strings = (key: string) => eq.get(key)?.filter((v): v is string => typeof v === 'string');
  const c: Partial<MemberCriteria> = {};
  const ids = strings('id');
  const userNames = strings('username');
  const emails = strings('emails.value');
  const externalIds = strings('externalid');
  const employeeIds = strings(`${ENTERPRISE_SCHEMA.toLowerCase()}:employeenumber`);
  if (ids) c.ids = ids;
  if (userNames) c.userNames = userNames;
  if (emails) c.emails = emails;
  if (externalIds) c.externalIds = externalIds;
  if (employeeIds) c.employeeIds = employeeIds;
  const active = eq.get('active')?.[0];
  if (typeof active === 'boolean') c.statuses = active ? ['active', 'invited'] : ['suspended'];
  return Object.keys(c).length ? c : undefined;
}

async function list(s: ScimRequest, q: ReturnType<typeof listQuery>) {
  const offset = q.startIndex - 1;
  if (!q.filter) {
    const { total, members } = await findMembers(s.runtime.db, s.orgId, { ...HUMANS, offset, limit: q.count });
    return listResponse(
      total,
      q.startIndex,
      (await render(s, members)).map((r) => project(r, q)),
    );
  }
  const filter = parseFilter(q.filter);
  const narrowed = criteria(equalities(filter));
  const { members } = await findMembers(s.runtime.db, s.orgId, { ...HUMANS, ...narrowed, offset: 0, limit: SCAN_LIMIT });
  const hits = (await render(s, members)).filter((r) => matches(filter, r));
  return listResponse(
    hits.length,
    q.startIndex,
    hits.slice(offset, offset + q.count).map((r) => project(r, q)),
  );
}

/**
 * The team a department names: a live team of that name, else one created for it (team.create), so the
 * identity provider's department is kept as the member's primary team, never dropped.
 */
async function departmentTeam(s: ScimRequest, department: string): Promise<string> {
  const { teams } = await findTeams(s.runtime.db, s.orgId, { names: [department], offset: 0, limit: 1 });
  if (teams[0]) return teams[0].id;
  const created = await departmentCalls(s).run<{ team: { id: string } }>('team.create', { name: department });
  return created.team.id;
}

const departmentCalls = (s: ScimRequest) => callsFor(s, { name: `${ENTERPRISE_SCHEMA}:department` });

/** The member.assignTeam a department change makes: the named team primary, or the primary team left. */
async function departmentCall(s: ScimRequest, m: Member, department: string | null | undefined): Promise<PlannedCall[]> {
  if (department === undefined) return [];
  const current = teamsOf(m).map((t) => t.teamId);
  const primary = teamsOf(m).find((t) => t.primary)?.teamId;
  if (department === null) {
    if (!primary) return [];
    return [{ method: 'member.assignTeam', params: { memberId: m.id, teamIds: current.filter((t) => t !== primary) } }];
  }
  const team = await departmentTeam(s, department);
  if (team === primary) return [];
  return [{ method: 'member.assignTeam', params: { memberId: m.id, teamIds: [team, ...current.filter((t) => t !== team)], primaryTeamId: team } }];
}

/**
 * Take member `m` to `change`: access cut first, granted last (see calls.ts); every call's params are checked
 * before the first runs. A write that changes nothing still makes its member.update, whose event says noop:
 * the ledger shows every write the identity provider made.
 */
async function apply(s: ScimRequest, m: Member, change: UserChange): Promise<void> {
  const calls = callsFor(s, USER_FIELD_NAMES);
  const cut: PlannedCall[] =
    change.active === false && m.status !== 'suspended' ? [{ method: 'admin.deactivate', params: { memberId: m.id, reason: REASON.suspend } }] : [];
  const grant: PlannedCall[] =
    change.active === true && m.status === 'suspended' ? [{ method: 'admin.reactivate', params: { memberId: m.id, reason: REASON.reactivate } }] : [];
  const update: PlannedCall[] = Object.keys(change.fields).length ? [{ method: 'member.update', params: { memberId: m.id, ...change.fields } }] : [];
  if (typeof change.department === 'string') departmentCalls(s).check([{ method: 'team.create', params: { name: change.department } }]);
  calls.check([...cut, ...update, ...grant]);
  const all = [...cut, ...update, ...(await departmentCall(s, m, change.department)), ...grant];
  await calls.runAll(all.length ? all : [{ method: 'member.update', params: { memberId: m.id } }]);
}

const MANAGER_PATH = `${ENTERPRISE_SCHEMA}:manager`.toLowerCase();

/** Entra ID patches manager with the bare id ("value": "usr_…"), or "" to clear it. */
const normaliseUserOp: Normaliser = (op, attribute) => {
  if (attribute !== MANAGER_PATH || op.op === 'remove' || !(typeof op.value === 'string' || op.value === null)) return op;
  return op.value ? { ...op, value: { value: op.value } } : { op: 'remove', path: op.path! };
};

export async function userRoutes(app: FastifyInstance, ctx: (req: unknown) => ScimRequest) {
  app.get('/Users', async (req, reply) => sendScim(reply, 200, await list(ctx(req), listQuery(req))));

  app.get<{ Params: { id: string } }>('/Users/:id', async (req, reply) => {
    const s = ctx(req);
    return sendScim(reply, 200, project(await one(s, req.params.id), attributeQuery(req)));
  });

  app.post('/Users', async (req, reply) => {
    const s = ctx(req);
    const stated = userValues(req.body);
    if (!stated.userName) throw invalid('userName: required');
    // A userName that is an email, with no work email stated, is the email too (the user has one address).
    const emailIsUserName = stated.workEmail === undefined && looksLikeEmail(stated.userName);
    const asked = emailIsUserName ? { ...stated, workEmail: stated.userName } : stated;
    const change = userChange(NO_VALUES, asked, false);
    const { name = stated.userName.split('@')[0], ...fields } = change.fields;
    const calls = callsFor(s, emailIsUserName ? { ...USER_FIELD_NAMES, email: 'userName' } : USER_FIELD_NAMES);
    const base = Object.fromEntries(Object.entries({ name, ...fields }).filter(([, v]) => v !== null && v !== undefined));
    calls.check([{ method: 'member.create', params: base }]);
    if (change.department) departmentCalls(s).check([{ method: 'team.create', params: { name: change.department } }]);
    const team = change.department ? await departmentTeam(s, change.department) : undefined;
    const created = await calls.run<{ member: Member }>('member.create', { ...base, ...(team ? { teamIds: [team] } : {}) });
    // A user created inactive (RFC 7643 active: false) is created, then suspended: two calls, two events.
    if (change.active === false) await calls.run('admin.deactivate', { memberId: created.member.id, reason: REASON.suspend });
    const user = await one(s, created.member.id);
    reply.header('location', user.meta.location);
    return sendScim(reply, 201, user);
  });

  app.put<{ Params: { id: string } }>('/Users/:id', async (req, reply) => {
    const s = ctx(req);
    const m = await load(s, req.params.id);
    const [before] = await render(s, [m]);
    const asked = userValues(req.body);
    if (!asked.userName) throw invalid('userName: required');
    await apply(s, m, userChange(userValues(before), asked, false, m));
    return sendScim(reply, 200, await one(s, m.id));
  });

  app.patch<{ Params: { id: string } }>('/Users/:id', async (req, reply) => {
    const s = ctx(req);
    const m = await load(s, req.params.id);
    const [before] = await render(s, [m]);
    const after = applyPatch(before, req.body, normaliseUserOp);
    if (after.id !== m.id) throw invalid('id: is assigned by the server and cannot change', 'mutability');
    await apply(s, m, userChange(userValues(before), userValues(after), true, m));
    return sendScim(reply, 200, await one(s, m.id));
  });

  app.delete<{ Params: { id: string } }>('/Users/:id', async (req, reply) => {
    const s = ctx(req);
    const m = await load(s, req.params.id);
    // user.deactivate hands the leaver's work to its manager; with none, nobody is named for the IdP's delete.
    if (m.managerId === null) {
      throw new ScimError(
        409,
        `User ${m.id} has no ${ENTERPRISE_SCHEMA}:manager to take over its work: set one and delete again, or offboard it with user.deactivate {transferTo}; active false cuts its access meanwhile`,
      );
    }
    await callsFor(s, USER_FIELD_NAMES).run('user.deactivate', { userId: m.id, reason: REASON.remove });
    return reply.code(204).send();
  });
}
