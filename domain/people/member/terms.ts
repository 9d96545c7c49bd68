import type { Queryable } from '../../../db/types.js';

/*
 * principals.directory_terms (migration 029): a member's team names and expertise tags, the C weight of the
 * directory's search, computed by the migration's member_directory_terms(org, ids). Whoever changes a member's
 * teams, a team's name or a profile's expertise calls one of these in its own transaction. One UPDATE each,
 * whatever the count (renaming a team of 5,000 is one statement), and rows whose terms did not change are not
 * rewritten. The terms never go into an event: they are names and free text.
 */

/** The UPDATE for the members `ids` (an array expression) names; $1 is the org. */
const refresh = (ids: string) => `UPDATE principals p SET directory_terms = d.terms
    FROM member_directory_terms($1, ${ids}) d
   WHERE p.org_id = $1 AND p.principal_id = d.member_id AND p.directory_terms IS DISTINCT FROM d.terms`;

/** Recompute the terms of these members (after their teams or expertise changed). */
export async function refreshDirectoryTerms(q: Queryable, orgId: string, memberIds: readonly string[]): Promise<void> {
  if (memberIds.length === 0) return;
  await q.query(refresh('$2::text[]'), [orgId, memberIds]);
}

/** Recompute the terms of every member of a team (after it was renamed). */
export async function refreshTeamDirectoryTerms(q: Queryable, orgId: string, teamId: string): Promise<void> {
  await q.query(refresh('ARRAY(SELECT member_id FROM member_teams WHERE org_id = $1 AND team_id = $2)'), [orgId, teamId]);
}
