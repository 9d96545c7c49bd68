import type { Queryable } from '../../db/types.js';

/*
 * A person's employer_id/employer_name (directory_parties): the organisation of its primary active works_at link
 * (else its oldest active one), kept on the row because the person's search document holds the employer's name
 * and a generated column cannot read another row. Whoever changes works_at links or renames an organisation calls
 * one of these in its own transaction; one UPDATE each, rows that did not change are not rewritten. A rewritten
 * person's updated_at moves (its employer shows in its views: a sync by updatedSince must see it), its version does not.
 */

/** Recompute the employer of these persons (after their works_at links changed). */
export async function refreshEmployers(q: Queryable, orgId: string, personIds: readonly string[]): Promise<void> {
  if (personIds.length === 0) return;
  await q.query(
    `UPDATE directory_parties p SET employer_id = e.to_id, employer_name = e.name, updated_at = now()
       FROM (SELECT per.id, emp.to_id, o.display_name AS name
               FROM unnest($2::text[]) AS per(id)
               LEFT JOIN LATERAL (
                 SELECT l.to_id FROM directory_links l
                  WHERE l.org_id = $1 AND l.from_id = per.id AND l.relation = 'works_at' AND l.status = 'active'
                  ORDER BY l.is_primary DESC, l.created_at, l.link_id LIMIT 1) emp ON true
               LEFT JOIN directory_parties o ON o.org_id = $1 AND o.party_id = emp.to_id) e
      WHERE p.org_id = $1 AND p.party_id = e.id AND p.kind = 'person'
        AND (p.employer_id IS DISTINCT FROM e.to_id OR p.employer_name IS DISTINCT FROM e.name)`,
    [orgId, personIds],
  );
}

/** Carry an organisation's new name to the persons it employs (after a rename). */
export async function refreshEmployerName(q: Queryable, orgId: string, orgPartyId: string): Promise<void> {
  await q.query(
    `UPDATE directory_parties p SET employer_name = o.display_name, updated_at = now()
       FROM directory_parties o
      WHERE p.org_id = $1 AND p.employer_id = $2 AND o.org_id = $1 AND o.party_id = $2 AND p.employer_name IS DISTINCT FROM o.display_name`,
    [orgId, orgPartyId],
  );
}
