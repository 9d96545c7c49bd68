import { directory as c } from '../../protocol/methods/directory/index.js';
import { decodeCursor, encodeCursor, strings } from '../core/cursor.js';
import { MAX_LIST_MEMBERS } from '../../protocol/methods/directory/lists.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { requireNamableMember } from '../people/index.js';
import { Params, filterConditions, type PartyFilter } from './filters.js';
import { visibleTo, type ListRow as ScopedList } from './list-scope.js';
import { noun, resolveParty, type PartyKind } from './model.js';

/*
 * directory.createList, addToList, removeFromList, shareList, listLists. What a caller may do with a list is its
 * access: owner (everything, sharing included), editor (add and remove: an editor grant), viewer (a viewer grant, or
 * anyone for a workspace list). A list the caller cannot see is NOT_FOUND (list-scope.ts). Events carry ids, kinds,
 * counts and filter field names, never the list's name or filter values.
 */

/** The list as list-scope.ts reads it, with what this family's reads show beside it. */
interface ListRow extends ScopedList {
  created_at: string;
  updated_at: string;
  my_role: 'viewer' | 'editor' | null;
  member_count: number | null;
  grants: { principalId: string; role: 'viewer' | 'editor' }[] | string;
}

/** A list's columns for principal `$n`: its grant, its member count (static) and its grants. Alias l. */
const LIST_COLUMNS = (n: number) => `l.list_id, l.name, l.kind, l.filter, l.visibility, l.owner_id, l.version, l.created_at, l.updated_at,
  (SELECT g.role FROM directory_list_grants g WHERE g.org_id = l.org_id AND g.list_id = l.list_id AND g.principal_id = $${n}) AS my_role,
  CASE WHEN l.kind = 'static' THEN (SELECT count(*)::int FROM directory_list_members m WHERE m.org_id = l.org_id AND m.list_id = l.list_id) END AS member_count,
  (SELECT coalesce(json_agg(json_build_object('principalId', g.principal_id, 'role', g.role) ORDER BY g.principal_id), '[]'::json)
     FROM directory_list_grants g WHERE g.org_id = l.org_id AND g.list_id = l.list_id) AS grants`;

const accessOf = (r: ListRow, principalId: string) => (r.owner_id === principalId ? 'owner' : r.my_role === 'editor' ? 'editor' : 'viewer');

const toList = (r: ListRow, principalId: string) => ({
  id: r.list_id,
  name: r.name,
  kind: r.kind,
  filter: r.filter,
  visibility: r.visibility,
  ownerId: r.owner_id,
  access: accessOf(r, principalId),
  grants: typeof r.grants === 'string' ? (JSON.parse(r.grants) as { principalId: string; role: 'viewer' | 'editor' }[]) : r.grants,
  memberCount: r.member_count === null ? null : Number(r.member_count),
  version: Number(r.version),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** The list as the caller sees it (locked for a write), or NOT_FOUND when it cannot see it. */
async function loadList(q: Queryable, orgId: string, principalId: string, listId: string, lock = false): Promise<ListRow> {
  const [row] = await q.query<ListRow>(
    `SELECT ${LIST_COLUMNS(3)} FROM directory_lists l WHERE l.org_id = $1 AND l.list_id = $2 AND ${visibleTo(3)} ${lock ? 'FOR UPDATE OF l' : ''}`,
    [orgId, listId, principalId],
  );
  if (!row) throw notFound(`list ${listId}`);
  return row;
}

/** A static list the caller may edit, locked; CONFLICT naming the way forward otherwise. */
async function editableList(ctx: HandlerCtx, listId: string): Promise<ListRow> {
  const row = await loadList(ctx.q, ctx.orgId, ctx.principal.id, listId, true);
  if (row.kind === 'dynamic') throw conflict(`list ${listId} is dynamic: its members are the parties its filter matches; add to a static list instead`);
  if (accessOf(row, ctx.principal.id) === 'viewer') {
    throw conflict(`you may only view list ${listId}; its owner ${row.owner_id} can make you an editor (directory.shareList)`);
  }
  return row;
}

const bumpList = (q: Queryable, orgId: string, listId: string) =>
  q.query('UPDATE directory_lists SET version = version + 1, updated_at = now() WHERE org_id = $1 AND list_id = $2', [orgId, listId]);

/** The given parties as they stand now (merged ids followed), in order; unknown ids are NOT_FOUND. One read for all. */
async function resolveAll(ctx: HandlerCtx, partyIds: readonly string[], activeOnly: boolean): Promise<{ given: string; partyId: string }[]> {
  const rows = await ctx.q.query<{ party_id: string; kind: PartyKind; status: string }>(
    'SELECT party_id, kind, status FROM directory_parties WHERE org_id = $1 AND party_id = ANY($2::text[])',
    [ctx.orgId, [...new Set(partyIds)]],
  );
  const byId = new Map(rows.map((r) => [r.party_id, r]));
  const out: { given: string; partyId: string }[] = [];
  for (const [i, id] of partyIds.entries()) {
    const row = byId.get(id);
    // Unknown (NOT_FOUND) and merged ids go the long way: resolveParty follows the merges.
    const party = row && row.status !== 'merged' ? { partyId: id, kind: row.kind, status: row.status } : await resolveParty(ctx.q, ctx.orgId, id);
    if (activeOnly && party.status !== 'active') {
      throw conflict(
        `partyIds.${i}: ${noun(party.kind)} ${party.partyId} is archived; restore it (directory.archive${party.kind === 'org' ? 'Org' : 'Person'} with archived: false) first`,
      );
    }
    out.push({ given: id, partyId: party.partyId });
  }
  return out;
}

/** Check a dynamic filter as a read would apply it (known role, organisation and member), for both kinds. */
async function checkFilter(ctx: HandlerCtx, filter: PartyFilter): Promise<void> {
  if (filter.knownBy !== undefined) await requireNamableMember(ctx.q, ctx.orgId, filter.knownBy, 'filter.knownBy');
  for (const kind of ['person', 'org'] as const) {
    await filterConditions(
      { q: ctx.q, families: ctx.deps.families, orgId: ctx.orgId, principalId: ctx.principal.id, kind, prefix: 'filter' },
      filter,
      new Params([ctx.orgId, kind]),
    );
  }
}

export const createList = handler(c.createList, async (ctx, p) => {
  if (!p.name.trim()) throw badRequest('name', 'must not be blank');
  const filter = p.filter ? (Object.fromEntries(Object.entries(p.filter).filter(([, v]) => v !== undefined)) as PartyFilter) : null;
  if (filter) await checkFilter(ctx, filter);
  const listId = newId('lst');
  await ctx.q.query(`INSERT INTO directory_lists (org_id, list_id, name, kind, filter, visibility, owner_id) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)`, [
    ctx.orgId,
    listId,
    p.name.trim(),
    p.kind,
    filter ? JSON.stringify(filter) : null,
    p.visibility,
    ctx.principal.id,
  ]);
  const list = toList(await loadList(ctx.q, ctx.orgId, ctx.principal.id, listId), ctx.principal.id);
  await ctx.emit('directory.list.create', listId, { listId, kind: p.kind, visibility: p.visibility, filter: filter ? Object.keys(filter).sort() : null });
  return { list, changed: true };
});

export const addToList = handler(c.addToList, async (ctx, p) => {
  await editableList(ctx, p.listId);
  const wanted = [...new Set((await resolveAll(ctx, p.partyIds, true)).map((r) => r.partyId))];
  const present = new Set(
    (
      await ctx.q.query<{ party_id: string }>('SELECT party_id FROM directory_list_members WHERE org_id = $1 AND list_id = $2 AND party_id = ANY($3::text[])', [
        ctx.orgId,
        p.listId,
        wanted,
      ])
    ).map((r) => r.party_id),
  );
  const added = wanted.filter((id) => !present.has(id));
  const already = wanted.filter((id) => present.has(id));
  // Counted after the lock (the locking read's own count may predate a concurrent add it waited for).
  const { count } = one(
    await ctx.q.query<{ count: number }>('SELECT count(*)::int AS count FROM directory_list_members WHERE org_id = $1 AND list_id = $2', [ctx.orgId, p.listId]),
  );
  if (count + added.length > MAX_LIST_MEMBERS) {
    throw conflict(`list ${p.listId} holds ${count} members and may hold at most ${MAX_LIST_MEMBERS}; remove some, or start another list`);
  }
  const base = { listId: p.listId, added: added.length, already: already.length };
  if (added.length === 0) {
    const list = toList(await loadList(ctx.q, ctx.orgId, ctx.principal.id, p.listId), ctx.principal.id);
    await ctx.emit('directory.list.add', p.listId, { ...base, partyIds: [], noop: true });
    return { list, added, already, changed: false };
  }
  await ctx.q.query(`INSERT INTO directory_list_members (org_id, list_id, party_id, added_by) SELECT $1, $2, x, $4 FROM unnest($3::text[]) AS x`, [
    ctx.orgId,
    p.listId,
    added,
    ctx.principal.id,
  ]);
  await bumpList(ctx.q, ctx.orgId, p.listId);
  const list = toList(await loadList(ctx.q, ctx.orgId, ctx.principal.id, p.listId), ctx.principal.id);
  await ctx.emit('directory.list.add', p.listId, { ...base, partyIds: added });
  return { list, added, already, changed: true };
});

export const removeFromList = handler(c.removeFromList, async (ctx, p) => {
  await editableList(ctx, p.listId);
  const resolved = await resolveAll(ctx, p.partyIds, false);
  // A merged id may still be in a list its merge did not repoint: both it and its survivor are looked for.
  const candidates = [...new Set(resolved.flatMap((r) => [r.given, r.partyId]))];
  const gone = new Set(
    (
      await ctx.q.query<{ party_id: string }>(
        'DELETE FROM directory_list_members WHERE org_id = $1 AND list_id = $2 AND party_id = ANY($3::text[]) RETURNING party_id',
        [ctx.orgId, p.listId, candidates],
      )
    ).map((r) => r.party_id),
  );
  const removed = [...gone];
  const absent = [...new Set(resolved.filter((r) => !gone.has(r.given) && !gone.has(r.partyId)).map((r) => r.given))];
  const base = { listId: p.listId, removed: removed.length, absent: absent.length };
  if (removed.length === 0) {
    const list = toList(await loadList(ctx.q, ctx.orgId, ctx.principal.id, p.listId), ctx.principal.id);
    await ctx.emit('directory.list.remove', p.listId, { ...base, partyIds: [], noop: true });
    return { list, removed, absent, changed: false };
  }
  await bumpList(ctx.q, ctx.orgId, p.listId);
  const list = toList(await loadList(ctx.q, ctx.orgId, ctx.principal.id, p.listId), ctx.principal.id);
  await ctx.emit('directory.list.remove', p.listId, { ...base, partyIds: removed });
  return { list, removed, absent, changed: true };
});

export const shareList = handler(c.shareList, async (ctx, p) => {
  const row = await loadList(ctx.q, ctx.orgId, ctx.principal.id, p.listId, true);
  if (row.owner_id !== ctx.principal.id) throw conflict(`only its owner ${row.owner_id} may share list ${p.listId}; ask them`);
  const grants = p.grants ?? [];
  for (const [i, g] of grants.entries()) {
    const field = `grants.${i}.principalId`;
    if (g.principalId === row.owner_id) throw badRequest(field, 'the owner holds the list already');
    const first = grants.findIndex((o) => o.principalId === g.principalId);
    if (first !== i) throw badRequest(field, `the same member as grants.${first}`);
    if (g.role !== 'none') await requireNamableMember(ctx.q, ctx.orgId, g.principalId, field);
  }
  const granting = grants.some((g) => g.role !== 'none');
  const visibility = p.visibility ?? (row.visibility === 'private' && granting ? 'shared' : row.visibility);
  if (visibility === 'private' && granting) throw badRequest('grants', 'a private list has no grants; share it (visibility shared) instead');

  const current = new Map(
    (typeof row.grants === 'string' ? (JSON.parse(row.grants) as { principalId: string; role: string }[]) : row.grants).map((g) => [g.principalId, g.role]),
  );
  const granted: { principalId: string; role: string }[] = [];
  const revoked: string[] = [];
  // Private again: nobody but the owner, so every grant goes.
  const wanted: { principalId: string; role: string }[] =
    visibility === 'private' ? [...current.keys()].map((principalId) => ({ principalId, role: 'none' })) : grants;
  for (const g of wanted) {
    const had = current.get(g.principalId);
    if (g.role === 'none') {
      if (had === undefined) continue;
      await ctx.q.query('DELETE FROM directory_list_grants WHERE org_id = $1 AND list_id = $2 AND principal_id = $3', [ctx.orgId, p.listId, g.principalId]);
      revoked.push(g.principalId);
    } else if (had !== g.role) {
      await ctx.q.query(
        `INSERT INTO directory_list_grants (org_id, list_id, principal_id, role, granted_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org_id, list_id, principal_id) DO UPDATE SET role = excluded.role, granted_by = excluded.granted_by, granted_at = now()`,
        [ctx.orgId, p.listId, g.principalId, g.role, ctx.principal.id],
      );
      granted.push({ principalId: g.principalId, role: g.role });
    }
  }
  const base = { listId: p.listId, visibility, previousVisibility: row.visibility, granted, revoked };
  if (visibility === row.visibility && granted.length === 0 && revoked.length === 0) {
    await ctx.emit('directory.list.share', p.listId, { ...base, noop: true });
    return { list: toList(row, ctx.principal.id), changed: false };
  }
  await ctx.q.query('UPDATE directory_lists SET visibility = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND list_id = $2', [
    ctx.orgId,
    p.listId,
    visibility,
  ]);
  const list = toList(await loadList(ctx.q, ctx.orgId, ctx.principal.id, p.listId), ctx.principal.id);
  await ctx.emit('directory.list.share', p.listId, base);
  return { list, changed: true };
});

/** LIKE's own characters taken literally. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export const listLists = handler(c.listLists, async (ctx, p) => {
  const params = new Params([ctx.orgId, ctx.principal.id]);
  const where = [`l.org_id = $1`, visibleTo(2)];
  if (p.mine) where.push('l.owner_id = $2');
  if (p.q !== undefined)
    where.push(`lower(public.wops_unaccent(l.name)) LIKE '%' || lower(public.wops_unaccent(${params.push(likeEscape(p.q.trim()))})) || '%'`);
  if (p.cursor !== undefined) {
    const [name, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', strings(2));
    where.push(`(lower(l.name), l.list_id) > (${params.push(name, '::text')}, ${params.push(id, '::text')})`);
  }
  const rows = await ctx.q.query<ListRow & { sort: string }>(
    `SELECT ${LIST_COLUMNS(2)}, lower(l.name) AS sort FROM directory_lists l WHERE ${where.join(' AND ')}
      ORDER BY lower(l.name), l.list_id LIMIT ${params.push(p.limit + 1)}`,
    params.values,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return { lists: page.map((r) => toList(r, ctx.principal.id)), nextCursor: rows.length > p.limit && last ? encodeCursor([last.sort, last.list_id]) : null };
});
