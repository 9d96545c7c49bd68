import { one, type Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';
import { resolveParty } from './model.js';

/*
 * Awareness: who in the company knows a party. Email, calendar and messaging call touchAwareness in their own
 * transaction when a member interacts with a party (a mail exchanged, a meeting held): it records the time and
 * count, and lifts an unset level to knows_of. A level a person declared (setAwareness), including a cleared one,
 * is never changed by a touch. Nothing here appends an event: the caller's own event is the record.
 */

export const AWARENESS_LEVELS = ['knows_of', 'met', 'works_with', 'close'] as const;
export type AwarenessLevel = (typeof AWARENESS_LEVELS)[number];

export interface TouchAwareness {
  partyId: string;
  /** The member who interacted (usr_… or agt_…). */
  principalId: string;
  /** When (default now); an older time than the one recorded leaves it. */
  at?: string;
}

/** Record an interaction of a member with a party (followed through merges); returns the awareness id. */
export async function touchAwareness(q: Queryable, orgId: string, t: TouchAwareness): Promise<string> {
  const party = await resolveParty(q, orgId, t.partyId);
  const row = one(
    await q.query<{ awareness_id: string }>(
      `INSERT INTO directory_awareness (org_id, awareness_id, party_id, principal_id, level, level_source, last_interaction_at, interactions)
     VALUES ($1, $2, $3, $4, 'knows_of', 'derived', coalesce($5::timestamptz, now()), 1)
     ON CONFLICT (org_id, party_id, principal_id) DO UPDATE SET
       last_interaction_at = greatest(directory_awareness.last_interaction_at, excluded.last_interaction_at),
       interactions = directory_awareness.interactions + 1,
       level = CASE WHEN directory_awareness.level_source = 'declared' THEN directory_awareness.level
                    ELSE coalesce(directory_awareness.level, 'knows_of') END,
       level_source = coalesce(directory_awareness.level_source, 'derived'),
       updated_at = now()
     RETURNING awareness_id`,
      [orgId, newId('awr'), party.partyId, t.principalId, t.at ?? null],
    ),
  );
  return row.awareness_id;
}
