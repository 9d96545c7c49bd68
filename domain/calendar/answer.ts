import { badRequest, conflict } from '../../protocol/errors.js';
import { calendarEvents as c } from '../../protocol/methods/calendar/events.js';
import type { ResponseStatus, Scope } from '../../protocol/methods/calendar/shared.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { actingAs, occurrenceView, requireConfirmed, resolveScope, seriesView } from './access.js';
import { attendeesOf, requireEvent, seriesTime, type AttendeeRow, type EventRow } from './model.js';
import { invite, reply } from './notify.js';
import { occurrenceOf } from './occurrences.js';
import { ruleEndingBefore } from './recurrence.js';
import { truncateSeries } from './split.js';

/*
 * calendar.rsvp and calendar.delete. An answer is for one occurrence (this) or the series (all): an attendee does
 * not split the organizer's series, so `following` is refused. delete: the organizer cancels (a CANCEL goes out);
 * an attendee declines instead. An outside organizer hears an answer by iTIP REPLY.
 */

const NONE = { emailed: 0, heldForReview: 0 };

function answerScope(e: EventRow, scope: Scope | undefined, originalStart: string | undefined) {
  const r = resolveScope(e, scope, originalStart);
  if (r.scope === 'following') throw badRequest('scope', 'an answer is for one occurrence (this, with originalStart) or the series (all)');
  return r;
}

/** Set an attendee's answer; false when it already was that answer. */
async function setAnswer(
  ctx: HandlerCtx,
  e: EventRow,
  a: AttendeeRow,
  at: Date | null,
  response: ResponseStatus,
): Promise<{ changed: boolean; previous: ResponseStatus }> {
  const now = ctx.deps.clock.now().toISOString();
  if (at) {
    const o = (await occurrenceOf(ctx.q, ctx.orgId, e, at))!;
    if (o.status === 'cancelled') throw conflict(`occurrence ${at.toISOString()} of calendar event ${e.event_id} is cancelled: nothing to answer`);
    const previous = o.attendees.find((x) => x.key === a.attendee_key)!.responseStatus;
    if (previous === response) return { changed: false, previous };
    await ctx.q.query(
      `INSERT INTO calendar_override_responses (org_id, event_id, original_start, attendee_key, response_status, responded_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (org_id, event_id, original_start, attendee_key) DO UPDATE SET response_status = $5, responded_at = $6`,
      [ctx.orgId, e.event_id, at.toISOString(), a.attendee_key, response, now],
    );
    return { changed: true, previous };
  }
  const [{ n }] = (await ctx.q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND attendee_key = $3 AND response_status <> $4',
    [ctx.orgId, e.event_id, a.attendee_key, response],
  )) as [{ n: number }];
  if (a.response_status === response && Number(n) === 0) return { changed: false, previous: a.response_status };
  await ctx.q.query('UPDATE calendar_attendees SET response_status = $4, responded_at = $5 WHERE org_id = $1 AND event_id = $2 AND attendee_key = $3', [
    ctx.orgId,
    e.event_id,
    a.attendee_key,
    response,
    now,
  ]);
  // The series answer stands for every occurrence again.
  await ctx.q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND attendee_key = $3', [
    ctx.orgId,
    e.event_id,
    a.attendee_key,
  ]);
  return { changed: true, previous: a.response_status };
}

async function viewAfter(ctx: HandlerCtx, eventId: string, at: Date | null, as: Set<string>) {
  const e = await requireEvent(ctx.q, ctx.orgId, eventId);
  if (at) return occurrenceView((await occurrenceOf(ctx.q, ctx.orgId, e, at))!, as);
  return seriesView(e, await attendeesOf(ctx.q, ctx.orgId, [eventId]), as);
}

export const rsvp = handler(c.rsvp, async (ctx, p) => {
  const e = await requireEvent(ctx.q, ctx.orgId, p.eventId, 'FOR UPDATE');
  const as = await actingAs(ctx.q, ctx);
  const who = p.attendeeId ?? ctx.principal.id;
  if (!as.has(who)) {
    throw conflict(
      ctx.principal.kind === 'agent'
        ? `an agent answers for itself or its sponsor, not ${who}: leave attendeeId out or name your sponsor`
        : `you answer for yourself only, not ${who}: leave attendeeId out`,
    );
  }
  requireConfirmed(e);
  const { scope, at } = answerScope(e, p.scope, p.originalStart);
  const a = (await attendeesOf(ctx.q, ctx.orgId, [e.event_id])).find((x) => x.principal_id === who);
  if (!a) throw conflict(`${who} is not invited to calendar event ${e.event_id}: ask the organizer to add them`);
  const { changed, previous } = await setAnswer(ctx, e, a, at, p.response);
  const originalStart = at ? at.toISOString() : null;
  const replied = changed && e.organizer_email !== null ? await reply(ctx, { eventId: e.event_id, originalStart, attendeeKey: a.attendee_key }) : false;
  if (changed && !at)
    await ctx.q.query('UPDATE calendar_events SET updated_at = $3 WHERE org_id = $1 AND event_id = $2', [
      ctx.orgId,
      e.event_id,
      ctx.deps.clock.now().toISOString(),
    ]);
  const event = await viewAfter(ctx, e.event_id, at, as);
  await ctx.emit('calendar.attendee.rsvp', e.event_id, {
    eventId: e.event_id,
    attendeeId: who,
    onBehalf: who !== ctx.principal.id,
    scope,
    ...(originalStart ? { originalStart } : {}),
    response: p.response,
    previous,
    replied,
    ...(changed ? {} : { noop: true }),
  });
  return { event, attendeeId: who, responseStatus: p.response, replied, changed };
});

export const remove = handler(c.delete, async (ctx, p) => {
  const e = await requireEvent(ctx.q, ctx.orgId, p.eventId, 'FOR UPDATE');
  const as = await actingAs(ctx.q, ctx);
  const now = ctx.deps.clock.now().toISOString();
  const organizes = e.organizer_id !== null && as.has(e.organizer_id);
  const done = async (action: 'cancelled' | 'declined', scope: Scope, extra: Record<string, unknown>, invitations = NONE, changed = true) => {
    await ctx.emit('calendar.event.delete', e.event_id, { eventId: e.event_id, action, scope, ...extra, ...invitations, ...(changed ? {} : { noop: true }) });
    return { eventId: e.event_id, action, scope, invitations, changed };
  };
  if (!organizes) {
    const mine = (await attendeesOf(ctx.q, ctx.orgId, [e.event_id])).find((x) => x.principal_id !== null && as.has(x.principal_id) && !x.organizer);
    if (!mine) throw conflict(`you neither organize nor attend calendar event ${e.event_id}: nothing to delete from your calendar`);
    if (e.status === 'cancelled') return done('declined', 'all', { attendeeId: mine.principal_id }, NONE, false);
    const { scope, at } = answerScope(e, p.scope, p.originalStart);
    const { changed } = await setAnswer(ctx, e, mine, at, 'declined');
    const originalStart = at ? at.toISOString() : null;
    if (changed && e.organizer_email !== null) await reply(ctx, { eventId: e.event_id, originalStart, attendeeKey: mine.attendee_key });
    return done('declined', scope, { attendeeId: mine.principal_id, ...(originalStart ? { originalStart } : {}) }, NONE, changed);
  }
  if (e.status === 'cancelled') return done('cancelled', 'all', { sequence: Number(e.sequence) }, NONE, false);
  const { scope, at } = resolveScope(e, p.scope, p.originalStart);
  if (scope === 'this' && at) {
    const o = (await occurrenceOf(ctx.q, ctx.orgId, e, at))!;
    if (o.status === 'cancelled') return done('cancelled', scope, { originalStart: at.toISOString() }, NONE, false);
    const sequence = Number(e.sequence) + 1;
    await ctx.q.query(
      `INSERT INTO calendar_overrides (org_id, event_id, original_start, status, sequence, updated_at) VALUES ($1, $2, $3, 'cancelled', $4, $5)
       ON CONFLICT (org_id, event_id, original_start) DO UPDATE SET status = 'cancelled', sequence = $4, updated_at = $5`,
      [ctx.orgId, e.event_id, at.toISOString(), sequence, now],
    );
    await ctx.q.query('UPDATE calendar_events SET sequence = $3, version = version + 1, updated_at = $4 WHERE org_id = $1 AND event_id = $2', [
      ctx.orgId,
      e.event_id,
      sequence,
      now,
    ]);
    const invitations = await invite(ctx, { eventId: e.event_id, method: 'CANCEL', originalStart: at.toISOString(), notify: p.notify });
    return done('cancelled', scope, { originalStart: at.toISOString(), sequence }, invitations);
  }
  if (scope === 'following' && at) {
    const s = seriesTime(e);
    const rule = ruleEndingBefore(s, at);
    if (rule !== null) {
      await ctx.q.query('DELETE FROM calendar_override_responses WHERE org_id = $1 AND event_id = $2 AND original_start >= $3', [
        ctx.orgId,
        e.event_id,
        at.toISOString(),
      ]);
      await ctx.q.query('DELETE FROM calendar_overrides WHERE org_id = $1 AND event_id = $2 AND original_start >= $3', [
        ctx.orgId,
        e.event_id,
        at.toISOString(),
      ]);
      await truncateSeries(ctx, e, rule, s.exdates);
      const invitations = await invite(ctx, { eventId: e.event_id, method: 'REQUEST', notify: p.notify });
      return done('cancelled', scope, { originalStart: at.toISOString(), sequence: Number(e.sequence) + 1 }, invitations);
    }
  }
  const sequence = Number(e.sequence) + 1;
  await ctx.q.query(
    `UPDATE calendar_events SET status = 'cancelled', sequence = $3, version = version + 1, updated_at = $4 WHERE org_id = $1 AND event_id = $2`,
    [ctx.orgId, e.event_id, sequence, now],
  );
  const invitations = await invite(ctx, { eventId: e.event_id, method: 'CANCEL', notify: p.notify });
  return done('cancelled', 'all', { sequence }, invitations);
});
