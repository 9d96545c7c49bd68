import { decodeCursor, encodeCursor, strings } from '../../core/cursor.js';
import { MEMBER_STATUSES } from '../../../protocol/methods/member.js';
import type { Queryable } from '../../../db/types.js';
import { getMembers, type Member } from './model.js';
import { memberSearch } from './search.js';
import { MAX_LIMIT as MAX_SEARCH_LIMIT } from '../../../db/search.js';

/** Without a status filter, the directory and lists leave archived members out (they left the directory). */
const LISTED = MEMBER_STATUSES.filter((s) => s !== 'archived');

export interface ListOptions {
  status?: (typeof MEMBER_STATUSES)[number];
  kind?: 'human' | 'agent';
  teamId?: string;
  managerId?: string;
  q?: string;
  cursor?: string;
  limit: number;
}

/** A page of members: by name, or by relevance when q is given (db/search.ts). Runs in a transaction. */
export async function listMembers(q: Queryable, orgId: string, o: ListOptions): Promise<{ members: Member[]; nextCursor: string | null }> {
  const statuses = o.status ? [o.status] : LISTED;
  let teamMembers: string[] | undefined;
  if (o.teamId !== undefined) {
    const rows = await q.query<{ member_id: string }>('SELECT member_id FROM member_teams WHERE org_id = $1 AND team_id = $2', [orgId, o.teamId]);
    teamMembers = rows.map((r) => r.member_id);
    if (teamMembers.length === 0) return { members: [], nextCursor: null };
  }
  if (o.q !== undefined && o.q.trim() !== '') {
    const page = await memberSearch.search(q, {
      org: orgId,
      q: o.q,
      limit: Math.min(o.limit, MAX_SEARCH_LIMIT),
      cursor: o.cursor,
      filters: { status: statuses, kind: o.kind, managerId: o.managerId, memberId: teamMembers },
      fields: { q: 'q', cursor: 'cursor' },
    });
    return {
      members: await getMembers(
        q,
        orgId,
        page.items.map((h) => h.id),
      ),
      nextCursor: page.nextCursor,
    };
  }
  const after = o.cursor === undefined ? undefined : decodeCursor<[string, string]>(o.cursor, 'cursor', strings(2));
  const rows = await q.query<{ principal_id: string; sort: string }>(
    `SELECT principal_id, lower(name) AS sort FROM principals
      WHERE org_id = $1 AND status = ANY($2::text[])
        AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR manager_id = $4)
        AND ($5::text[] IS NULL OR principal_id = ANY($5::text[]))
        AND ($6::text IS NULL OR (lower(name), principal_id) > ($6, $7::text))
      ORDER BY lower(name), principal_id LIMIT $8`,
    [orgId, statuses, o.kind ?? null, o.managerId ?? null, teamMembers ?? null, after?.[0] ?? null, after?.[1] ?? null, o.limit + 1],
  );
  const page = rows.slice(0, o.limit);
  const last = page[page.length - 1];
  return {
    members: await getMembers(
      q,
      orgId,
      page.map((r) => r.principal_id),
    ),
    nextCursor: rows.length > o.limit && last ? encodeCursor([last.sort, last.principal_id]) : null,
  };
}
