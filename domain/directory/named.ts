import type { Queryable } from '../../db/types.js';
import type { PartyKind } from './model.js';

/*
 * Finding and making parties by name, for families whose records name a party by its name alone (a books invoice
 * names its payee): the parties of a name, and a new organisation. The family's own call appends the event (its
 * record is what happened); nothing here guesses among several parties of one name.
 */

export interface NamedParty {
  partyId: string;
  kind: PartyKind;
  status: 'active' | 'archived';
  /** How the name matched: exact (case and spacing aside), folded (dir_fold: accents, legal forms), or an alias. */
  match: 'exact' | 'folded' | 'alias';
}

/** SQL: a name as compared exactly: trimmed, inner spaces collapsed, lower case (books' old name key). */
const EXACT = (expr: string) => `lower(regexp_replace(regexp_replace(${expr}, '^[[:space:]]+|[[:space:]]+$', '', 'g'), '[[:space:]]+', ' ', 'g'))`;

/**
 * The unmerged parties whose name folds like `name`, and those among `aliasesOf` with an alias that does, each
 * with its closest match; oldest first. Uses the folded-name index; aliases are read only for the given ids.
 */
export async function partiesNamed(
  q: Queryable,
  orgId: string,
  name: string,
  opts: { kind?: PartyKind; aliasesOf?: readonly string[] } = {},
): Promise<NamedParty[]> {
  const rows = await q.query<{ party_id: string; kind: PartyKind; status: 'active' | 'archived'; exact: boolean; folded: boolean }>(
    `SELECT p.party_id, p.kind, p.status,
            ${EXACT('p.display_name')} = ${EXACT('$2')} AS exact,
            p.name_fold = dir_fold($2) AS folded
       FROM directory_parties p
      WHERE p.org_id = $1 AND p.status <> 'merged' AND p.kind = ANY($3::text[])
        AND (p.name_fold = dir_fold($2)
             OR (p.party_id = ANY($4::text[]) AND EXISTS (SELECT 1 FROM unnest(p.aliases) a WHERE dir_fold(a) = dir_fold($2))))
      ORDER BY p.created_at, p.party_id`,
    [orgId, name, opts.kind ? [opts.kind] : ['person', 'org'], opts.aliasesOf ?? []],
  );
  return rows.map((r) => ({ partyId: r.party_id, kind: r.kind, status: r.status, match: r.exact ? 'exact' : r.folded ? 'folded' : 'alias' }));
}

/**
 * Serialise finders-or-makers of one organisation name (two invoices to a new payee at once make one party): a
 * transaction lock on the folded name, the one the contact view's employerNamed takes.
 */
export async function lockPartyName(q: Queryable, orgId: string, name: string): Promise<void> {
  // lockKeys' key (directory:<org>:orgname:<fold>), computed in the one statement.
  await q.query(`SELECT pg_advisory_xact_lock(hashtextextended('directory:' || $1 || ':orgname:' || dir_fold($2), 0))`, [orgId, name.trim()]);
}

/** A new active organisation of this name, made by another family's record (origin books). Returns its id. */
export async function createOrgParty(q: Queryable, orgId: string, p: { partyId: string; name: string; origin: 'books'; createdBy: string }): Promise<string> {
  await q.query(`INSERT INTO directory_parties (org_id, party_id, kind, display_name, origin, created_by) VALUES ($1, $2, 'org', $3, $4, $5)`, [
    orgId,
    p.partyId,
    p.name.trim().replace(/\s+/g, ' '),
    p.origin,
    p.createdBy,
  ]);
  return p.partyId;
}
