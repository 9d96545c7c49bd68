import type { HandlerCtx } from '../core/handler.js';
import type { Queryable } from '../../db/types.js';
import type { EventOut } from '../../protocol/methods/calendar/shared.js';
import { occurrenceView } from './access.js';
import { rotateFeed } from './itip/feed.js';
import { sendInvitations, sendReply } from './itip/outbound.js';
import { requireEvent, type EventRow } from './model.js';
import { busyIntervals } from './busy.js';
import { occurrenceOf } from './occurrences.js';
import type { Instance } from './recurrence.js';

/*
 * The seams to iTIP mail and the feed (domain/calendar/itip/outbound.ts and feed.ts): every handler calls these, so
 * the handlers name no mail detail.
 */

export interface Invitations {
  emailed: number;
  heldForReview: number;
}

export interface InviteInput {
  eventId: string;
  method: 'REQUEST' | 'CANCEL';
  originalStart?: string | null;
  notify: 'all' | 'external' | 'none';
  /** Attendee keys; default every attendee but the organizer. */
  recipients?: string[];
}

/** Mail iTIP REQUEST or CANCEL to the attendees, in the call's transaction (agent mail to outsiders is held). */
export async function invite(ctx: HandlerCtx, input: InviteInput): Promise<Invitations> {
  if (input.notify === 'none') return { emailed: 0, heldForReview: 0 };
  return sendInvitations(ctx, input);
}

export const addInvitations = (a: Invitations, b: Invitations): Invitations => ({
  emailed: a.emailed + b.emailed,
  heldForReview: a.heldForReview + b.heldForReview,
});

/**
 * The end of a change to one occurrence (scope this, an override written): the REQUEST for it, the occurrence as
 * the caller now reads it, and the call's one event (`fields`: what the change adds to it, before the mail counts).
 */
export async function occurrenceChanged(
  ctx: HandlerCtx,
  e: { row: EventRow; at: Date; as: Set<string>; notify: InviteInput['notify'] },
  kind: 'calendar.event.reschedule' | 'calendar.event.update',
  fields: Record<string, unknown>,
): Promise<{ event: EventOut; invitations: Invitations }> {
  const originalStart = e.at.toISOString();
  const invitations = await invite(ctx, { eventId: e.row.event_id, method: 'REQUEST', originalStart, notify: e.notify });
  const after = await requireEvent(ctx.q, ctx.orgId, e.row.event_id);
  const event = occurrenceView((await occurrenceOf(ctx.q, ctx.orgId, after, e.at))!, e.as);
  await ctx.emit(kind, e.row.event_id, { eventId: e.row.event_id, scope: 'this', originalStart, ...fields, ...invitations });
  return { event, invitations };
}

/** Mail an iTIP REPLY to an outside organizer; whether one was sent. */
export async function reply(ctx: HandlerCtx, input: { eventId: string; originalStart?: string | null; attendeeKey: string }): Promise<boolean> {
  const sent = await sendReply(ctx, input);
  return sent.emailed + sent.heldForReview > 0;
}

export interface FeedOut {
  calendarId: string;
  enabled: boolean;
  url: string | null;
}

/** The calendar's ICS feed: rotate (a new token, shown once) or off, and the call's one event (ids and state only). */
export async function feed(ctx: HandlerCtx, calendarId: string, action: 'rotate' | 'off'): Promise<{ feed: FeedOut; changed: boolean }> {
  const out = await rotateFeed(ctx, calendarId, action);
  await ctx.emit('calendar.feed.rotate', calendarId, { calendarId, action, enabled: out.feed.enabled, ...(out.changed ? {} : { noop: true }) });
  return out;
}

/** Attendee members' busy time overlapping the given occurrences (other events only), at most 50. */
export async function conflictsWith(q: Queryable, orgId: string, eventId: string | null, principalIds: readonly string[], instances: readonly Instance[]) {
  if (principalIds.length === 0 || instances.length === 0) return [];
  const from = instances[0].start;
  const to = new Date(Math.min(Math.max(...instances.map((i) => i.end.getTime())), from.getTime() + 366 * 86_400_000));
  const busy = await busyIntervals(q, orgId, principalIds, from, to);
  const out: { principalId: string; eventId: string; originalStart: string | null; start: string; end: string; tentative: boolean }[] = [];
  for (const [principalId, list] of busy) {
    for (const b of list) {
      if (b.eventId === eventId) continue;
      if (!instances.some((i) => i.start < b.end && i.end > b.start)) continue;
      out.push({
        principalId,
        eventId: b.eventId,
        originalStart: b.originalStart,
        start: b.start.toISOString(),
        end: b.end.toISOString(),
        tentative: b.tentative,
      });
      if (out.length >= 50) return out;
    }
  }
  return out.sort((a, b) => a.start.localeCompare(b.start));
}
