import { badRequest } from '../../../protocol/errors.js';
import { calendarTime as c, DEFAULT_HOURS, MAX_WINDOW_DAYS } from '../../../protocol/methods/calendar/time.js';
import { handler } from '../../core/handler.js';
import { workingHoursOf } from '../../people/index.js';
import { busyIntervals } from '../busy.js';
import { knownZone, localClock, workingIntervals, type DayRanges } from './hours.js';
import { findSlots, type Interval, type SlotPerson } from './slots.js';

/*
 * calendar.findATime (R on calendar.read). Three reads whatever the size: the members' zones and hours (people), every
 * attendee's busy blocks in one query (occurrences.ts), and nothing else; the rest is interval math (slots.ts) with
 * working hours placed in each member's zone (hours.ts). Busy blocks name no title, so private events of others
 * weigh as busy and show nothing. Who cannot be seen is listed in unknown and never counted as free.
 */

const MIN = 60_000;
const DAY = 86_400_000;
const MEMBER_ID = /^(usr|agt)_[A-Za-z0-9]+$/;
const DEFAULT_DAYS: DayRanges = Object.fromEntries(DEFAULT_HOURS.days.map((d) => [d, [{ start: DEFAULT_HOURS.start, end: DEFAULT_HOURS.end }]]));
const DEFAULT_WORDS = `${DEFAULT_HOURS.start}-${DEFAULT_HOURS.end} Monday to Friday`;

type UnknownOut = { id: string; reason: 'not_a_member' | 'no_working_hours' | 'no_time_zone'; assumed: string | null; message: string };

interface Counted {
  id: string;
  optional: boolean;
  zone: string;
  days: DayRanges | null;
}

export const findATime = handler(c.findATime, async (ctx, p) => {
  const from = Date.parse(p.from);
  const to = Date.parse(p.to);
  if (to <= from) throw badRequest('to', 'must be after from');
  if (to - from > MAX_WINDOW_DAYS * DAY) throw badRequest('to', `at most ${MAX_WINDOW_DAYS} days after from; search a shorter window, then the next one`);
  // One entry per id, in the order first given; required if any mention of it is.
  const wanted = new Map<string, boolean>();
  for (const a of p.attendees) wanted.set(a.id, (wanted.get(a.id) ?? true) && a.optional);
  if ([...wanted.values()].every((optional) => optional)) throw badRequest('attendees', 'at least one attendee must be required (optional: false)');

  const ids = [...wanted.keys()];
  const members = await workingHoursOf(
    ctx.q,
    ctx.orgId,
    ids.filter((id) => MEMBER_ID.test(id)),
  );
  const unknown: UnknownOut[] = [];
  const counted: Counted[] = [];
  for (const id of ids) {
    const m = members.get(id);
    if (!m) {
      unknown.push({
        id,
        reason: 'not_a_member',
        assumed: null,
        message: `${id} is not a member of this org, so their calendar cannot be seen: the slots do not account for them. Ask them, or invite them to a slot and watch their answer.`,
      });
      continue;
    }
    let zone = m.timezone !== null && knownZone(m.timezone) ? m.timezone : null;
    if (zone === null) {
      zone = 'UTC';
      unknown.push({
        id,
        reason: 'no_time_zone',
        assumed: 'UTC',
        message: `${id} has no time zone: their hours and local times are read in UTC. Set it with member.update (timezone).`,
      });
    }
    let days: DayRanges | null = null;
    if (p.respectWorkingHours) {
      days = m.days;
      if (days === null) {
        days = DEFAULT_DAYS;
        unknown.push({
          id,
          reason: 'no_working_hours',
          assumed: `${DEFAULT_WORDS} in ${zone}`,
          message: `${id} set no working hours: counted as ${DEFAULT_WORDS} in ${zone}. Set them with profile.update (workingHours).`,
        });
      }
    }
    counted.push({ id, optional: wanted.get(id)!, zone, days });
  }

  const bufferMs = p.buffer * MIN;
  const busy = await busyIntervals(
    ctx.q,
    ctx.orgId,
    counted.map((x) => x.id),
    new Date(from - bufferMs),
    new Date(to + bufferMs),
  );
  const people: SlotPerson[] = counted.map((x) => ({
    id: x.id,
    optional: x.optional,
    busy: (busy.get(x.id) ?? []).map((b): Interval => [b.start.getTime(), b.end.getTime()]),
    hours: x.days === null ? null : workingIntervals({ timeZone: x.zone, days: x.days }, from, to),
  }));
  const now = ctx.deps.clock.now().getTime();
  const found = findSlots({
    people,
    from,
    to,
    durationMs: p.durationMinutes * MIN,
    stepMs: p.granularity * MIN,
    bufferMs,
    earliest: Math.max(from, now + p.minNotice * MIN),
    limit: p.limit,
  });

  const slots = found.slots.map((s) => ({
    start: new Date(s.start).toISOString(),
    end: new Date(s.end).toISOString(),
    local: counted.map((x) => ({ id: x.id, timeZone: x.zone, start: localClock(s.start, x.zone), end: localClock(s.end, x.zone) })),
    optionalFree: s.optionalFree,
  }));
  const required = counted.filter((x) => !x.optional).length;
  const notSeen = unknown.filter((u) => u.assumed === null).length;
  const message =
    required === 0
      ? 'None of the required attendees is a member whose calendar can be seen, so no slot was searched: see unknown, and name members (usr_…, agt_…).'
      : `${slots.length === 0 ? 'No slot' : `${slots.length}${found.more ? ' (more after)' : ''} slot${slots.length === 1 ? '' : 's'}`} of ${p.durationMinutes} minutes ` +
        `when all ${required} required member${required === 1 ? ' is' : 's are'} free between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}` +
        `${p.respectWorkingHours ? ', inside working hours' : ''}.` +
        (notSeen ? ` ${notSeen} attendee${notSeen === 1 ? '' : 's'} could not be checked (unknown): not counted as free.` : '') +
        (found.more
          ? ' Call again with from = nextFrom for the rest.'
          : slots.length === 0
            ? ' Widen the window, shorten the meeting, or make some attendees optional.'
            : '');
  return {
    slots,
    unknown,
    counted: counted.map((x) => x.id),
    more: found.more,
    nextFrom: found.nextFrom === null ? null : new Date(found.nextFrom).toISOString(),
    message,
  };
});
