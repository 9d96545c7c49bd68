import type { EventVisibility, FamilyReader } from '../stream/visibility.js';
import { VISIBLE_SQL } from './model.js';

/*
 * Who sees a meetings event on GET /events and the stream: everyone with knowledge.read, except the events of a
 * meeting of a private calendar event, which its attendees, whoever recorded it and the event's actor see (as
 * GET /meetings.list shows it). One statement per batch.
 */

export const meetingsEvents: EventVisibility = (ctx): FamilyReader => ({
  async visible(events) {
    const me = ctx.principal.id;
    const ids = [...new Set(events.filter((e) => e.actor !== me).map((e) => String(e.entity_id)))];
    const hidden = new Set(
      ids.length === 0
        ? []
        : (
            await ctx.q.query<{ meeting_id: string }>(
              `SELECT m.meeting_id FROM meetings m WHERE m.org_id = $1 AND m.meeting_id = ANY($2::text[]) AND NOT ${VISIBLE_SQL('$3')}`,
              [ctx.orgId, ids, me],
            )
          ).map((r) => r.meeting_id),
    );
    return new Set(events.filter((e) => !hidden.has(String(e.entity_id)) || e.actor === me).map((e) => Number(e.seq)));
  },
});
