import { badRequest, notFound } from '../../protocol/errors.js';
import { calendarEvents as c } from '../../protocol/methods/calendar/events.js';
import { MAX_WINDOW_DAYS } from '../../protocol/methods/calendar/shared.js';
import type { Queryable } from '../../db/types.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { actingAs, occurrenceView, seesDetails, seriesView } from './access.js';
import { attendeesOf, calendarOf, calendarsByIds, eventRows, getEventRow, type EventRow } from './model.js';
import { occurrenceOf, occurrencesAt, occurrenceSlots, occurrencesIn, withAttendees, type OccurrenceQuery } from './occurrences.js';

/*
 * calendar.list and calendar.get (R: ctx.q is the pool; nothing is written, not even a calendar). Members read any
 * member's calendar; someone else's private event is a busy block, and q never matches what the caller cannot see.
 */

const DAY_MS = 86_400_000;

/** The window, checked: from before to, at most MAX_WINDOW_DAYS. */
export function windowOf(p: { from: string; to: string }): { from: Date; to: Date } {
  const from = new Date(p.from);
  const to = new Date(p.to);
  if (to <= from) throw badRequest('to', `must be after from (${from.toISOString()})`);
  if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS)
    throw badRequest('to', `at most ${MAX_WINDOW_DAYS} days after from: list a longer span page by page`);
  return { from, to };
}

/** Whether the words all appear in what the caller reads of an event (a busy block matches nothing). */
const matches = (busy: boolean, e: { title: string; description: string | null; location: string | null }, words: string[]) => {
  if (busy) return false;
  const hay = `${e.title}\n${e.description ?? ''}\n${e.location ?? ''}`.toLowerCase();
  return words.every((w) => hay.includes(w));
};

/** One page of `all` (and `more` left out past it), and the cursor after it. */
function pageOf<T>(all: readonly T[], cursor: number, limit: number, more = 0): { page: T[]; nextCursor: number | null } {
  return { page: all.slice(cursor, cursor + limit), nextCursor: cursor + limit < all.length + more ? cursor + limit : null };
}

/**
 * The calendars and members a list reads: the named calendars and their owners' attended events, or the caller's.
 * Named calendars are checked (`known`: NOT_FOUND for an unknown one) while the window is read, which finds their
 * owners itself, so the check costs no round trip of its own.
 */
async function whose(ctx: HandlerCtx, calendarIds: string[] | undefined): Promise<{ who: Partial<OccurrenceQuery>; known: () => Promise<unknown> }> {
  if (calendarIds?.length) {
    const ids = [...new Set(calendarIds)];
    return { who: { calendarIds: ids, ownersOf: ids }, known: () => calendarsByIds(ctx.q, ctx.orgId, ids) };
  }
  const own = await calendarOf(ctx.q, ctx.orgId, ctx.principal.id);
  return { who: { calendarIds: own ? [own.calendar_id] : [], attendeePrincipalIds: [ctx.principal.id] }, known: async () => undefined };
}

/** The window's read beside the calendars' check: the read's answer once both are done. */
const checked = async <T>(known: () => Promise<unknown>, read: Promise<T>): Promise<T> => (await Promise.all([known(), read]))[1];

/** Series (or single events) as the caller reads them, with their attendees, in the order given. */
async function seriesViews(ctx: HandlerCtx, rows: readonly EventRow[], as: Set<string>) {
  const byEvent = Map.groupBy(
    await attendeesOf(
      ctx.q,
      ctx.orgId,
      rows.map((r) => r.event_id),
    ),
    (a) => a.event_id,
  );
  return rows.map((r) => seriesView(r, byEvent.get(r.event_id) ?? [], as));
}

/*
 * A month of 50 calendars is thousands of occurrences and a page is at most 500. Without q the read is two steps:
 * the window's times to order it and cut the page, then full rows and attendees for the page's events only. With
 * q every occurrence's words are needed (and, for private events, who attends), so the whole window is read, q
 * filters, and only the page's items get their attendees and views.
 */
export const list = handler(c.list, async (ctx, p) => {
  const w = windowOf(p);
  const as = await actingAs(ctx.q, ctx);
  const { who, known } = await whose(ctx, p.calendarIds);
  const query = { ...who, from: w.from, to: w.to, ...(p.updatedSince ? { updatedSince: new Date(p.updatedSince) } : {}) };
  if (!p.q) {
    const { slots, more } = await checked(known, occurrenceSlots(ctx.q, ctx.orgId, query, p.cursor + p.limit));
    if (p.singleEvents) {
      const { page, nextCursor } = pageOf(slots, p.cursor, p.limit, more);
      return { items: (await occurrencesAt(ctx.q, ctx.orgId, page)).map((o) => occurrenceView(o, as)), nextCursor };
    }
    const { page, nextCursor } = pageOf([...new Set(slots.map((s) => s.event.event_id))], p.cursor, p.limit, more);
    const rows = new Map((await eventRows(ctx.q, ctx.orgId, page)).map((r) => [r.event_id, r]));
    return {
      items: await seriesViews(
        ctx,
        page.flatMap((id) => rows.get(id) ?? []),
        as,
      ),
      nextCursor,
    };
  }
  // Attendees now only where q needs them (who sees a private event); the page's are loaded once it is cut.
  const kept = await checked(known, occurrencesIn(ctx.q, ctx.orgId, { ...query, attendeesFor: (e) => e.visibility === 'private' }));
  const words = p.q.toLowerCase().split(/\s+/).filter(Boolean);
  if (p.singleEvents) {
    const found = kept.filter((o) => matches(!seesDetails(o.visibility, o.organizerId, o.attendees, as), o, words));
    const { page, nextCursor } = pageOf(found, p.cursor, p.limit);
    return { items: (await withAttendees(ctx.q, ctx.orgId, page)).map((o) => occurrenceView(o, as)), nextCursor };
  }
  const seen = new Map<string, EventRow>();
  for (const o of kept) if (!seen.has(o.eventId)) seen.set(o.eventId, o.row);
  const rows = [...seen.values()];
  const privates = Map.groupBy(
    await attendeesOf(
      ctx.q,
      ctx.orgId,
      rows.filter((r) => r.visibility === 'private').map((r) => r.event_id),
    ),
    (a) => a.event_id,
  );
  const found = rows.filter((r) => matches(!seesDetails(r.visibility, r.organizer_id, privates.get(r.event_id) ?? [], as), r, words));
  const { page, nextCursor } = pageOf(found, p.cursor, p.limit);
  return { items: await seriesViews(ctx, page, as), nextCursor };
});

/** What a family recording meetings offers calendar.get: the meeting of an occurrence the caller may see. */
export type MeetingOfOccurrence = (q: Queryable, orgId: string, eventId: string, originalStart: string | null, principalId: string) => Promise<string | null>;

declare module '../core/family.js' {
  interface Contributions {
    /** The meeting recorded for an event or one occurrence of a series (calendar.get's meetingId). */
    meetingOfOccurrence: MeetingOfOccurrence;
  }
}

/** The meeting recorded for an event or occurrence, from the deployed family that records meetings (none: null). */
async function meetingOf(ctx: HandlerCtx, eventId: string, originalStart: string | null): Promise<string | null> {
  for (const c of ctx.deps.families.contributions('meetingOfOccurrence')) {
    const found = await c.value(ctx.q, ctx.orgId, eventId, originalStart, ctx.principal.id);
    if (found) return found;
  }
  return null;
}

export const get = handler(c.get, async (ctx, p) => {
  const row = await getEventRow(ctx.q, ctx.orgId, p.eventId);
  if (!row) throw notFound(`calendar event ${p.eventId}`);
  const as = await actingAs(ctx.q, ctx);
  if (p.originalStart === undefined || !row.rrule) {
    if (p.originalStart !== undefined && new Date(p.originalStart).getTime() !== new Date(row.start_at).getTime()) {
      throw badRequest('originalStart', `calendar event ${p.eventId} is not recurring: leave originalStart out`);
    }
    const event = seriesView(row, await attendeesOf(ctx.q, ctx.orgId, [row.event_id]), as);
    return { event, meetingId: await meetingOf(ctx, row.event_id, null) };
  }
  const at = new Date(p.originalStart);
  const o = await occurrenceOf(ctx.q, ctx.orgId, row, at);
  if (!o) throw notFound(`occurrence ${at.toISOString()} of calendar event ${p.eventId}`);
  return { event: occurrenceView(o, as), meetingId: await meetingOf(ctx, row.event_id, o.originalStart) };
});
