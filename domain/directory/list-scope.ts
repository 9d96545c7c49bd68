import { notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';

/*
 * Who sees a list: its owner always; everyone in the org when its visibility is workspace; grantees (viewer or
 * editor) when shared. A list the caller cannot see is NOT_FOUND, like one that does not exist.
 */

export interface ListRow {
  list_id: string;
  name: string;
  kind: 'static' | 'dynamic';
  filter: Record<string, unknown> | null;
  visibility: 'private' | 'shared' | 'workspace';
  owner_id: string;
  version: number;
}

/** SQL: the list aliased `l` is visible to the principal in parameter `$n`. */
export const visibleTo = (n: number) => `(l.owner_id = $${n} OR l.visibility = 'workspace'
  OR (l.visibility = 'shared' AND EXISTS (SELECT 1 FROM directory_list_grants g WHERE g.org_id = l.org_id AND g.list_id = l.list_id AND g.principal_id = $${n})))`;

/** The list if the principal may see it, else NOT_FOUND. */
export async function readableList(q: Queryable, orgId: string, principalId: string, listId: string): Promise<ListRow> {
  const [row] = await q.query<ListRow>(
    `SELECT l.list_id, l.name, l.kind, l.filter, l.visibility, l.owner_id, l.version FROM directory_lists l
      WHERE l.org_id = $1 AND l.list_id = $2 AND ${visibleTo(3)}`,
    [orgId, listId, principalId],
  );
  if (!row) throw notFound(`list ${listId}`);
  return row;
}
