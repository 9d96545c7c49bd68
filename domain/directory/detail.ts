import type { Queryable } from '../../db/types.js';
import { activeChannels, toChannel } from './channel-store.js';
import { visibleTo } from './list-scope.js';
import { toOrg, toPerson, type PartyKind, type PartyRow } from './model.js';
import { rolesOf } from './roles.js';
import type { FamilySet } from '../core/family.js';

/* A party with everything around it: channels, links, the lists the caller sees, awareness and roles. */

interface LinkRow {
  link_id: string;
  relation: string;
  from_id: string;
  to_id: string;
  role: string | null;
  is_primary: boolean;
  since: string | null;
  until: string | null;
  other_kind: PartyKind;
  other_name: string;
}

async function around(families: FamilySet, q: Queryable, orgId: string, partyId: string, principalId: string) {
  const links = await q.query<LinkRow>(
    `SELECT l.link_id, l.relation, l.from_id, l.to_id, l.role, l.is_primary, l.since::text AS since, l.until::text AS until,
            o.kind AS other_kind, o.display_name AS other_name
       FROM directory_links l
       JOIN directory_parties o ON o.org_id = l.org_id AND o.party_id = CASE WHEN l.from_id = $2 THEN l.to_id ELSE l.from_id END
      WHERE l.org_id = $1 AND (l.from_id = $2 OR l.to_id = $2) AND l.status = 'active'
      ORDER BY l.relation, l.is_primary DESC, l.created_at, l.link_id LIMIT 500`,
    [orgId, partyId],
  );
  const lists = await q.query<{ list_id: string; name: string; kind: 'static' | 'dynamic' }>(
    `SELECT l.list_id, l.name, l.kind FROM directory_list_members m JOIN directory_lists l ON l.org_id = m.org_id AND l.list_id = m.list_id
      WHERE m.org_id = $1 AND m.party_id = $2 AND ${visibleTo(3)} ORDER BY lower(l.name), l.list_id`,
    [orgId, partyId, principalId],
  );
  const awareness = await q.query<{ awareness_id: string; principal_id: string; level: string | null; last_interaction_at: string | null }>(
    `SELECT awareness_id, principal_id, level, last_interaction_at FROM directory_awareness
      WHERE org_id = $1 AND party_id = $2
      ORDER BY array_position(ARRAY['close', 'works_with', 'met', 'knows_of'], level) NULLS LAST, last_interaction_at DESC NULLS LAST, principal_id`,
    [orgId, partyId],
  );
  const roles = (await rolesOf(families, q, orgId, [partyId])).get(partyId) ?? [];
  return {
    channels: (await activeChannels(q, orgId, partyId)).map(toChannel),
    links: links.map((l) => {
      const out = l.from_id === partyId;
      return {
        id: l.link_id,
        relation: l.relation,
        direction: out ? ('out' as const) : ('in' as const),
        other: { id: out ? l.to_id : l.from_id, kind: l.other_kind, displayName: l.other_name },
        role: l.role,
        primary: l.is_primary,
        since: l.since,
        until: l.until,
      };
    }),
    lists: lists.map((l) => ({ id: l.list_id, name: l.name, kind: l.kind })),
    awareness: awareness.map((a) => ({
      id: a.awareness_id,
      principalId: a.principal_id,
      level: a.level,
      lastInteractionAt: a.last_interaction_at ? new Date(a.last_interaction_at).toISOString() : null,
    })),
    roles,
  };
}

export async function personDetail(families: FamilySet, q: Queryable, orgId: string, row: PartyRow, principalId: string) {
  return { ...toPerson(row), notes: row.notes, ...(await around(families, q, orgId, row.party_id, principalId)) };
}

export async function orgDetail(families: FamilySet, q: Queryable, orgId: string, row: PartyRow, principalId: string) {
  return { ...toOrg(row), notes: row.notes, ...(await around(families, q, orgId, row.party_id, principalId)) };
}
