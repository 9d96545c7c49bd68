import { badRequest, conflict } from '../../../protocol/errors.js';
import { member as c } from '../../../protocol/methods/member.js';
import { one, type Queryable } from '../../../db/types.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { laneSignature } from './lane.js';
import { bumpChartRevision, checkDottedLines, dropDottedLinesTo, moveUnder } from './chart.js';
import { getEditorOptions } from './editor.js';
import { listMembers } from './list.js';
import { personaOf } from '../persona/model.js';
import { reassignReporting, resetPositions, savePosition } from './reporting.js';
import { checkManager, checkTeams, checkUnique, checkVersion, getMember, lockPeople, newMemberHandle, setTeams, toMember, type MemberRow } from './model.js';
import { peopleReads } from './directory.js';

/*
 * member.*: the directory record of each principal. Events carry ids, statuses, versions and the names of the
 * fields changed, never the values (names, emails, titles are personal data; the chain cannot forget them).
 */

export { checkVersion } from './model.js';

function refuseArchived(row: MemberRow): void {
  if (row.status === 'archived') throw conflict(`member ${row.principal_id} is archived; reactivate it (admin.reactivate) before changing it`);
}

async function bump(q: Queryable, orgId: string, memberId: string): Promise<void> {
  await q.query('UPDATE principals SET version = version + 1, updated_at = now() WHERE org_id = $1 AND principal_id = $2', [orgId, memberId]);
}

/**
 * CONFLICT unless the name this member would sign in with (its userName, else its email) is nobody else's: not
 * another member's userName, nor the email of one without a userName (SCIM's `userName eq` finds exactly one).
 */
async function checkSignIn(q: Queryable, orgId: string, self: string | null, userName: string | null, email: string | null): Promise<void> {
  if (userName !== null) await checkUnique(q, orgId, self, 'userName', userName);
  else if (email !== null) await checkUnique(q, orgId, self, 'userName', email, 'email');
}

export const create = handler(c.create, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  if (p.handle !== undefined) await checkUnique(ctx.q, ctx.orgId, null, 'handle', p.handle);
  if (p.email !== undefined) await checkUnique(ctx.q, ctx.orgId, null, 'email', p.email);
  await checkSignIn(ctx.q, ctx.orgId, null, p.userName ?? null, p.email ?? null);
  if (p.employeeId !== undefined) await checkUnique(ctx.q, ctx.orgId, null, 'employeeId', p.employeeId);
  if (p.externalId !== undefined) await checkUnique(ctx.q, ctx.orgId, null, 'externalId', p.externalId);
  if (p.managerId !== undefined) await checkManager(ctx.q, ctx.orgId, null, p.managerId);
  if (p.dottedLineIds !== undefined) await checkDottedLines(ctx.q, ctx.orgId, null, p.managerId ?? null, p.dottedLineIds);
  if (p.teamIds !== undefined) await checkTeams(ctx.q, ctx.orgId, p.teamIds, 'teamIds');
  const handle = p.handle ?? (await newMemberHandle(ctx.q, ctx.orgId, p.name));
  const memberId = newId('usr');
  await ctx.q.query(
    `INSERT INTO principals (org_id, principal_id, kind, name, handle, email, title, manager_id, timezone, status, role,
                             dotted_line_ids, office, employee_id, external_id, user_name)
     VALUES ($1, $2, 'human', $3, $4, $5, $6, $7, $8, 'active', 'member', $9, $10, $11, $12, $13)`,
    [
      ctx.orgId,
      memberId,
      p.name,
      handle,
      p.email ?? null,
      p.title ?? null,
      p.managerId ?? null,
      p.timezone ?? null,
      p.dottedLineIds ?? [],
      p.office ?? null,
      p.employeeId ?? null,
      p.externalId ?? null,
      p.userName ?? null,
    ],
  );
  if (p.teamIds?.length) await setTeams(ctx.q, ctx.orgId, memberId, p.teamIds);
  const onChart = p.managerId !== undefined || (p.dottedLineIds?.length ?? 0) > 0;
  const revision = onChart ? await bumpChartRevision(ctx.q, ctx.orgId) : undefined;
  const m = toMember(await getMember(ctx.q, ctx.orgId, memberId));
  await ctx.emit('member.record.create', memberId, {
    memberId,
    kind: m.kind,
    status: m.status,
    managerId: m.managerId,
    dottedLineIds: m.dottedLineIds,
    teamIds: m.teams.map((t: { teamId: string }) => t.teamId),
    version: m.version,
    ...(revision ? { revision } : {}),
  });
  return { member: m, changed: true };
});

export const get = handler(c.get, async (ctx, p) => {
  const row = await getMember(ctx.q, ctx.orgId, p.memberId);
  const keys = one(
    await ctx.q.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL', [
      ctx.orgId,
      p.memberId,
    ]),
  );
  return { member: toMember(row), access: { liveKeys: Number(keys.n) }, persona: await personaOf(ctx.q, ctx.orgId, p.memberId) };
});

// An R method runs outside a transaction, and the search's fuzzy threshold is transaction-local: its own short one.
export const list = handler(c.list, async (ctx, p) => ctx.deps.db.tx((q) => listMembers(q, ctx.orgId, { ...p })));

const EDITABLE = ['name', 'handle', 'email', 'userName', 'title', 'managerId', 'timezone', 'dottedLineIds', 'office', 'employeeId', 'externalId'] as const;
const COLUMN: Record<(typeof EDITABLE)[number], keyof MemberRow> = {
  name: 'name',
  handle: 'handle',
  email: 'email',
  userName: 'user_name',
  title: 'title',
  managerId: 'manager_id',
  timezone: 'timezone',
  dottedLineIds: 'dotted_line_ids',
  office: 'office',
  employeeId: 'employee_id',
  externalId: 'external_id',
};
const CHART_FIELDS: readonly string[] = ['managerId', 'dottedLineIds'];
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const update = handler(c.update, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getMember(ctx.q, ctx.orgId, p.memberId, 'FOR UPDATE OF p');
  checkVersion('member', p.memberId, row.version, p.ifVersion);
  refuseArchived(row);
  const fields = EDITABLE.filter((f) => p[f] !== undefined && !sameValue(p[f], row[COLUMN[f]]));
  if (fields.length === 0) {
    await ctx.emit('member.record.update', p.memberId, { memberId: p.memberId, fields: [], version: Number(row.version), noop: true });
    return { member: toMember(row), changed: false };
  }
  if (fields.includes('handle')) await checkUnique(ctx.q, ctx.orgId, p.memberId, 'handle', p.handle!);
  if (fields.includes('email') && p.email !== null) await checkUnique(ctx.q, ctx.orgId, p.memberId, 'email', p.email!);
  const userName = p.userName !== undefined ? p.userName : row.user_name;
  // The sign-in name moves when the userName does, or when the email does and serves as it.
  if (fields.includes('userName') || (fields.includes('email') && userName === null)) {
    await checkSignIn(ctx.q, ctx.orgId, p.memberId, userName, p.email !== undefined ? p.email : row.email);
  }
  for (const f of ['employeeId', 'externalId'] as const) if (fields.includes(f) && p[f] !== null) await checkUnique(ctx.q, ctx.orgId, p.memberId, f, p[f]!);
  if (fields.includes('managerId') && p.managerId !== null) await checkManager(ctx.q, ctx.orgId, p.memberId, p.managerId!);
  const manager = p.managerId !== undefined ? p.managerId : row.manager_id;
  if (fields.includes('dottedLineIds')) await checkDottedLines(ctx.q, ctx.orgId, p.memberId, manager, p.dottedLineIds!);
  // The agent lane (lane.ts): a human's record changes by a human's hand or approval.
  await laneSignature(ctx, row.kind === 'human', {
    subjectId: p.memberId,
    summary: `Change ${fields.join(', ')} of ${row.name} (${p.memberId}), a human member`,
    params: p,
    completion: 'release',
  });
  const sets = fields.map((f, i) => `${COLUMN[f]} = $${i + 3}`);
  await ctx.q.query(`UPDATE principals SET ${sets.join(', ')}, version = version + 1, updated_at = now() WHERE org_id = $1 AND principal_id = $2`, [
    ctx.orgId,
    p.memberId,
    ...fields.map((f) => p[f]),
  ]);
  if (fields.includes('managerId')) {
    // A new manager: the member joins other siblings (its slot clears) and the manager stops being a dotted line.
    await ctx.q.query(
      `UPDATE principals SET position = NULL, dotted_line_ids = array_remove(dotted_line_ids, coalesce(manager_id, '')) WHERE org_id = $1 AND principal_id = $2`,
      [ctx.orgId, p.memberId],
    );
  }
  const revision = fields.some((f) => CHART_FIELDS.includes(f)) ? await bumpChartRevision(ctx.q, ctx.orgId) : undefined;
  const m = toMember(await getMember(ctx.q, ctx.orgId, p.memberId));
  await ctx.emit('member.record.update', p.memberId, {
    memberId: p.memberId,
    fields,
    managerId: m.managerId,
    version: m.version,
    ...(revision ? { revision } : {}),
  });
  return { member: m, changed: true };
});

export const archive = handler(c.archive, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getMember(ctx.q, ctx.orgId, p.memberId, 'FOR UPDATE OF p');
  checkVersion('member', p.memberId, row.version, p.ifVersion);
  if (row.status === 'archived') {
    await ctx.emit('member.record.archive', p.memberId, { memberId: p.memberId, status: 'archived', version: Number(row.version), noop: true });
    return { member: toMember(row), changed: false };
  }
  if (p.memberId === ctx.principal.id) throw conflict(`member ${p.memberId} is you: another admin must archive you`);
  const keys = one(
    await ctx.q.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL', [
      ctx.orgId,
      p.memberId,
    ]),
  );
  if (Number(keys.n) > 0) {
    throw conflict(`member ${p.memberId} is ${row.status} with ${keys.n} live API key(s): revoke them first (settings.revokeApiKey), then archive`);
  }
  await laneSignature(ctx, row.kind === 'human', {
    subjectId: p.memberId,
    summary: `Archive ${row.name} (${p.memberId}), a human member now ${row.status}: out of the directory and the chart`,
    params: p,
    completion: 'release',
  });
  // Out of the chart: its reports move up to its manager, no dotted line points at it, it leads no team and belongs to none.
  const reportIds = await ctx.q.query<{ principal_id: string }>('SELECT principal_id FROM principals WHERE org_id = $1 AND manager_id = $2', [
    ctx.orgId,
    p.memberId,
  ]);
  const reports = await moveUnder(
    ctx.q,
    ctx.orgId,
    reportIds.map((r) => r.principal_id),
    row.manager_id,
  );
  const dottedDropped = await dropDottedLinesTo(ctx.q, ctx.orgId, p.memberId);
  await ctx.q.query(`UPDATE teams SET lead_id = NULL, version = version + 1, updated_at = now() WHERE org_id = $1 AND lead_id = $2`, [ctx.orgId, p.memberId]);
  await setTeams(ctx.q, ctx.orgId, p.memberId, []);
  await ctx.q.query(
    `UPDATE principals SET status = 'archived', manager_id = NULL, position = NULL, dotted_line_ids = '{}', version = version + 1, updated_at = now()
      WHERE org_id = $1 AND principal_id = $2`,
    [ctx.orgId, p.memberId],
  );
  const revision = await bumpChartRevision(ctx.q, ctx.orgId);
  const m = toMember(await getMember(ctx.q, ctx.orgId, p.memberId));
  await ctx.emit('member.record.archive', p.memberId, {
    memberId: p.memberId,
    from: row.status,
    status: 'archived',
    reportsMoved: reports.length,
    dottedLinesDropped: dottedDropped,
    version: m.version,
    revision,
  });
  return { member: m, changed: true };
});

export const assignTeam = handler(c.assignTeam, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getMember(ctx.q, ctx.orgId, p.memberId, 'FOR UPDATE OF p');
  checkVersion('member', p.memberId, row.version, p.ifVersion);
  refuseArchived(row);
  const wanted = [...new Set(p.teamIds)];
  if (p.primaryTeamId !== undefined && !wanted.includes(p.primaryTeamId)) throw badRequest('primaryTeamId', 'must be one of teamIds');
  await checkTeams(ctx.q, ctx.orgId, wanted, 'teamIds');
  const primary = p.primaryTeamId ?? wanted[0] ?? null;
  const before = toMember(row).teams as { teamId: string; primary: boolean }[];
  const same =
    before.length === wanted.length && wanted.every((t) => before.some((b) => b.teamId === t)) && (before.find((b) => b.primary)?.teamId ?? null) === primary;
  if (same) {
    await ctx.emit('member.teams.assign', p.memberId, {
      memberId: p.memberId,
      teamIds: wanted,
      primaryTeamId: primary,
      version: Number(row.version),
      noop: true,
    });
    return { member: toMember(row), changed: false };
  }
  const added = wanted.filter((t) => !before.some((b) => b.teamId === t));
  // A team's file shares reach its members: adding one grants access, so it holds for an agent like a human's teams do.
  await laneSignature(ctx, row.kind === 'human' || added.length > 0, {
    subjectId: p.memberId,
    summary: `Set the teams of ${row.name} (${p.memberId}, ${row.kind === 'human' ? 'a human' : 'an agent'}) to ${wanted.length ? wanted.join(', ') : 'none'}${added.length ? `, adding ${added.join(', ')}` : ''}`,
    params: p,
    completion: 'release',
  });
  await setTeams(ctx.q, ctx.orgId, p.memberId, wanted, primary ?? undefined);
  await bump(ctx.q, ctx.orgId, p.memberId);
  const m = toMember(await getMember(ctx.q, ctx.orgId, p.memberId));
  await ctx.emit('member.teams.assign', p.memberId, { memberId: p.memberId, teamIds: wanted, primaryTeamId: primary, version: m.version });
  return { member: m, changed: true };
});

export const memberHandlers = family('member', {
  create,
  get,
  list,
  update,
  archive,
  assignTeam,
  getEditorOptions,
  reassignReporting,
  savePosition,
  resetPositions,
});

/** The member family, as domain/deployed.ts lists it. */
export const memberFamily: Family = { name: 'member', methods: memberHandlers, reads: peopleReads };
