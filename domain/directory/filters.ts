import { conflict, fieldIn } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { readableList } from './list-scope.js';
import { resolveParty, type PartyKind } from './model.js';
import { roleHolders } from './roles.js';
import type { FamilySet } from '../core/family.js';

/*
 * The filters of listPeople/listOrgs as SQL conditions on a party aliased p. A dynamic list is a stored filter of
 * the same fields (directory_lists.filter: {orgId?, tag?, role?, knownBy?, status?}); listId applies a static list's
 * members or a dynamic list's filter.
 */

export interface PartyFilter {
  orgId?: string;
  listId?: string;
  tag?: string;
  role?: string;
  knownBy?: string;
  status?: 'active' | 'archived' | 'merged' | 'all';
  updatedSince?: string;
}

/** Parameters of a statement being built: push returns the placeholder. */
export class Params {
  constructor(readonly values: unknown[] = []) {}
  push(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

/** A stored dynamic filter as a PartyFilter: known fields of the right type only (the list family validates it). */
export function storedFilter(raw: Record<string, unknown> | null): PartyFilter {
  const f: PartyFilter = {};
  const str = (k: keyof PartyFilter) => (typeof raw?.[k] === 'string' ? raw[k] : undefined);
  for (const k of ['orgId', 'tag', 'role', 'knownBy', 'updatedSince'] as const) if (str(k) !== undefined) (f as Record<string, string>)[k] = str(k)!;
  const status = str('status');
  if (status === 'active' || status === 'archived' || status === 'merged' || status === 'all') f.status = status;
  return f;
}

export interface FilterScope {
  q: Queryable;
  /** The runtime's families: a role filter asks the families that report roles. */
  families: FamilySet;
  orgId: string;
  principalId: string;
  /** The listed kind (people or organisations). */
  kind: PartyKind;
  /** Where its fields sit in the params, for errors: '' at the top, `filter` inside a list's filter. */
  prefix: string;
}

/** Whether a filter narrows beyond kind and status (search then needs the matching ids). */
export const narrows = (f: PartyFilter): boolean =>
  f.orgId !== undefined || f.listId !== undefined || f.tag !== undefined || f.role !== undefined || f.knownBy !== undefined || f.updatedSince !== undefined;

/** The conditions of a filter, status included unless `withStatus` is false. */
export async function filterConditions(s: FilterScope, f: PartyFilter, params: Params, withStatus = true, depth = 0): Promise<string[]> {
  const where: string[] = [];
  const status = f.status ?? 'active';
  if (withStatus && status !== 'all') where.push(`p.status = ${params.push(status)}`);
  if (f.orgId !== undefined) {
    const org = await resolveParty(s.q, s.orgId, f.orgId);
    const id = params.push(org.partyId);
    where.push(
      s.kind === 'person'
        ? `EXISTS (SELECT 1 FROM directory_links l WHERE l.org_id = p.org_id AND l.from_id = p.party_id AND l.to_id = ${id}
             AND l.relation = 'works_at' AND l.status = 'active')`
        : `EXISTS (SELECT 1 FROM directory_links l WHERE l.org_id = p.org_id AND l.status = 'active'
             AND ((l.from_id = p.party_id AND l.to_id = ${id}) OR (l.to_id = p.party_id AND l.from_id = ${id})))`,
    );
  }
  if (f.listId !== undefined) {
    const list = await readableList(s.q, s.orgId, s.principalId, f.listId);
    if (list.kind === 'static') {
      where.push(
        `EXISTS (SELECT 1 FROM directory_list_members m WHERE m.org_id = p.org_id AND m.list_id = ${params.push(list.list_id)} AND m.party_id = p.party_id)`,
      );
    } else {
      if (depth > 0) throw conflict(`list ${f.listId} is dynamic and used inside another dynamic list; a dynamic list's filter may not name a list`);
      const inner = storedFilter(list.filter);
      where.push(...(await filterConditions(s, { ...inner, status: inner.status ?? 'all' }, params, true, depth + 1)));
    }
  }
  if (f.tag !== undefined) where.push(`${params.push(f.tag.trim().toLowerCase())} = ANY(p.tags)`);
  if (f.role !== undefined)
    where.push(`p.party_id = ANY(${params.push(await roleHolders(s.families, s.q, s.orgId, f.role, fieldIn(s.prefix, 'role')), '::text[]')})`);
  if (f.knownBy !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM directory_awareness a WHERE a.org_id = p.org_id AND a.party_id = p.party_id AND a.principal_id = ${params.push(f.knownBy)} AND a.level IS NOT NULL)`,
    );
  }
  if (f.updatedSince !== undefined) where.push(`p.updated_at >= ${params.push(f.updatedSince, '::timestamptz')}`);
  return where;
}

/** The ids of the parties of `kinds` a list holds (static) or matches (dynamic), for search's scope. */
export async function listScope(s: Omit<FilterScope, 'kind'>, listId: string, kinds: readonly PartyKind[]): Promise<string[]> {
  const ids: string[] = [];
  for (const kind of kinds) {
    const params = new Params([s.orgId, kind]);
    const where = await filterConditions({ ...s, kind }, { listId, status: 'active' }, params);
    const rows = await s.q.query<{ party_id: string }>(
      `SELECT p.party_id FROM directory_parties p WHERE p.org_id = $1 AND p.kind = $2 AND ${where.join(' AND ')}`,
      params.values,
    );
    ids.push(...rows.map((r) => r.party_id));
  }
  return ids;
}
