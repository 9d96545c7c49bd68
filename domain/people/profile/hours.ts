import type { Queryable } from '../../../db/types.js';

/*
 * Members' zones and working hours, for the calendar's findATime (one query for all of them). Hours are wall-clock
 * ranges per weekday (mon..sun) in the member's own zone (members.timezone), as profile.update stores them.
 */

export interface MemberHours {
  /** The member's IANA zone; null when they set none. */
  timezone: string | null;
  /** Ranges per weekday; null when their profile has no working hours. */
  days: Record<string, { start: string; end: string }[]> | null;
}

/** Each id that is a member of the org, with its zone and hours; ids that are not members are absent. */
export async function workingHoursOf(q: Queryable, orgId: string, memberIds: readonly string[]): Promise<Map<string, MemberHours>> {
  if (memberIds.length === 0) return new Map();
  const rows = await q.query<{ principal_id: string; timezone: string | null; working_hours: MemberHours['days'] | string | null }>(
    `SELECT p.principal_id, p.timezone, f.working_hours
       FROM principals p LEFT JOIN profiles f ON f.org_id = p.org_id AND f.member_id = p.principal_id
      WHERE p.org_id = $1 AND p.principal_id = ANY($2::text[])`,
    [orgId, [...memberIds]],
  );
  return new Map(
    rows.map((r) => {
      const days = typeof r.working_hours === 'string' ? (JSON.parse(r.working_hours) as MemberHours['days']) : r.working_hours;
      return [r.principal_id, { timezone: r.timezone, days: days && Object.keys(days).length > 0 ? days : null }];
    }),
  );
}
