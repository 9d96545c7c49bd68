import type { Queryable } from '../../db/types.js';
import { occurrencesIn } from './occurrences.js';

/* Members' busy time, as findATime and the conflict checks of create and reschedule read it. */

export interface BusyInterval {
  start: Date;
  end: Date;
  eventId: string;
  originalStart: string | null;
  /** The member answered tentative (it still blocks). */
  tentative: boolean;
  outOfOffice: boolean;
}

/**
 * Busy time of members in [from, to): occurrences they organize or attend and have not declined, opaque and
 * confirmed. Every asked member has an entry (maybe empty).
 */
export async function busyIntervals(q: Queryable, orgId: string, principalIds: readonly string[], from: Date, to: Date): Promise<Map<string, BusyInterval[]>> {
  const out = new Map<string, BusyInterval[]>(principalIds.map((id) => [id, []]));
  if (principalIds.length === 0) return out;
  for (const o of await occurrencesIn(q, orgId, { attendeePrincipalIds: principalIds, attendeesAmong: principalIds, from, to })) {
    if (o.transparency !== 'opaque' || o.status !== 'confirmed') continue;
    for (const a of o.attendees) {
      const list = a.principalId ? out.get(a.principalId) : undefined;
      if (!list || a.responseStatus === 'declined') continue;
      list.push({
        start: o.start,
        end: o.end,
        eventId: o.eventId,
        originalStart: o.originalStart,
        tentative: a.responseStatus === 'tentative',
        outOfOffice: o.eventType === 'outOfOffice',
      });
    }
  }
  return out;
}
