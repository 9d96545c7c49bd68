import { one, type Queryable } from '../../../db/types.js';
import type { MEMBER_STATUSES } from '../../../protocol/methods/member.js';
import { MEMBER_COLUMNS, toMember, type Member, type MemberRow } from './model.js';

/**
 * Members by exact identifiers, oldest first, with the total: the lookups of a provisioning face (SCIM's
 * `userName eq`, `externalId eq`, paging by offset), which member.list's name order and fuzzy q do not serve.
 * Every criterion given must hold; an empty list matches nothing.
 */
export interface MemberCriteria {
  kind?: 'human' | 'agent';
  statuses: readonly (typeof MEMBER_STATUSES)[number][];
  ids?: readonly string[];
  /** Compared ignoring case, as the email's unique index does. */
  emails?: readonly string[];
  /** The name each signs in with (its userName, else its email), ignoring case. */
  userNames?: readonly string[];
  externalIds?: readonly string[];
  employeeIds?: readonly string[];
  offset: number;
  /** 0: only the total. */
  limit: number;
}

export async function findMembers(q: Queryable, orgId: string, c: MemberCriteria): Promise<{ total: number; members: Member[] }> {
  const where = `p.org_id = $1 AND p.status = ANY($2::text[]) AND ($3::text IS NULL OR p.kind = $3)
    AND ($4::text[] IS NULL OR p.principal_id = ANY($4::text[]))
    AND ($5::text[] IS NULL OR lower(p.email) = ANY($5::text[]))
    AND ($6::text[] IS NULL OR p.external_id = ANY($6::text[]))
    AND ($7::text[] IS NULL OR p.employee_id = ANY($7::text[]))
    AND ($8::text[] IS NULL OR lower(coalesce(p.user_name, p.email)) = ANY($8::text[]))`;
  const args = [
    orgId,
    c.statuses,
    c.kind ?? null,
    c.ids ?? null,
    c.emails?.map((e) => e.toLowerCase()) ?? null,
    c.externalIds ?? null,
    c.employeeIds ?? null,
    c.userNames?.map((u) => u.toLowerCase()) ?? null,
  ];
  const { n } = one(await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM principals p WHERE ${where}`, args));
  if (c.limit === 0 || Number(n) <= c.offset) return { total: Number(n), members: [] };
  const rows = await q.query<MemberRow>(`SELECT ${MEMBER_COLUMNS} FROM principals p WHERE ${where} ORDER BY p.created_at, p.principal_id OFFSET $9 LIMIT $10`, [
    ...args,
    c.offset,
    c.limit,
  ]);
  return { total: Number(n), members: rows.map(toMember) };
}
