import type { Queryable } from '../../db/types.js';
import { VISIBLE_SQL } from './model.js';
import { eventKey } from './occurrence.js';

/** The meeting recorded for an event's occurrence (originalStart null: a single event) that the principal may see, or null. */
export async function meetingOfOccurrence(
  q: Queryable,
  orgId: string,
  eventId: string,
  originalStart: string | null,
  principalId: string,
): Promise<string | null> {
  const key = eventKey(eventId, originalStart === null ? null : new Date(originalStart).toISOString());
  const [row] = await q.query<{ meeting_id: string }>(
    `SELECT m.meeting_id FROM meetings m WHERE m.org_id = $1 AND m.occurrence_key = $2 AND ${VISIBLE_SQL('$3')}`,
    [orgId, key, principalId],
  );
  return row?.meeting_id ?? null;
}
