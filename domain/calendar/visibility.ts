import type { EventVisibility, FamilyReader } from '../stream/visibility.js';

/*
 * Who sees a calendar event on GET /events and the stream: everyone with calendar.read, except the events of a
 * private calendar event, which its organizer, its attendee members and the event's actor see (others learn from the
 * chain no more than the busy block calendar.list shows them). An agent acting for its sponsor is the actor of its
 * own events. One statement per batch: which of the batch's event ids are private and not the reader's.
 */

export const calendarEvents: EventVisibility = (ctx): FamilyReader => ({
  async visible(events) {
    const me = ctx.principal.id;
    const ids = [...new Set(events.filter((e) => e.actor !== me && String(e.entity_id).startsWith('cev_')).map((e) => String(e.entity_id)))];
    const hidden = new Set(
      ids.length === 0
        ? []
        : (
            await ctx.q.query<{ event_id: string }>(
              `SELECT e.event_id FROM calendar_events e
                WHERE e.org_id = $1 AND e.event_id = ANY($2::text[]) AND e.visibility = 'private' AND e.organizer_id IS DISTINCT FROM $3
                  AND NOT EXISTS (SELECT 1 FROM calendar_attendees a WHERE a.org_id = e.org_id AND a.event_id = e.event_id AND a.principal_id = $3)`,
              [ctx.orgId, ids, me],
            )
          ).map((r) => r.event_id),
    );
    return new Set(events.filter((e) => !hidden.has(String(e.entity_id)) || e.actor === me).map((e) => Number(e.seq)));
  },
});
