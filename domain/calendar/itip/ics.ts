import ICAL from 'ical.js';
import { Temporal } from 'temporal-polyfill';
import { tzlib_get_ical_block } from 'timezones-ical-library';

/*
 * iCalendar text (RFC 5545) for iTIP (RFC 5546) mail and the feed: written and parsed with ical.js, VTIMEZONE
 * blocks from timezones-ical-library. Pure: no database, no clock (dtstamp is given). Times are written as the event
 * keeps them: a wall-clock start with its IANA zone (TZID, the zone's VTIMEZONE included), UTC as `Z`, all-day as
 * VALUE=DATE. Parsed times carry the instant and, when the TZID is an IANA zone, the wall clock and zone.
 */

export type ItipMethod = 'REQUEST' | 'CANCEL' | 'REPLY' | 'PUBLISH';
export type PartStat = 'NEEDS-ACTION' | 'ACCEPTED' | 'DECLINED' | 'TENTATIVE';

/** A time as the calendar keeps it: wall clock `YYYY-MM-DDTHH:MM:SS` in an IANA zone, or a date (all-day). */
export type IcsTime = { dateTime: string; timeZone: string } | { date: string };

export interface IcsPerson {
  email: string;
  name?: string | null;
}

export interface IcsAttendee extends IcsPerson {
  partstat: PartStat;
  optional?: boolean;
  rsvp?: boolean;
}

export interface IcsEvent {
  uid: string;
  sequence: number;
  status?: 'CONFIRMED' | 'CANCELLED' | 'TENTATIVE';
  summary: string;
  description?: string | null;
  location?: string | null;
  start: IcsTime;
  end: IcsTime;
  /** RRULE value without the `RRULE:` prefix (UNTIL in UTC, as RFC 5545 asks with a TZID start). */
  rrule?: string | null;
  /** Wall-clock original starts (or dates) taken out of the series, in the start's zone. */
  exdates?: string[];
  /** One occurrence of a series: its original start. */
  recurrenceId?: IcsTime | null;
  organizer?: IcsPerson | null;
  attendees?: IcsAttendee[];
  transparent?: boolean;
  private?: boolean;
  /** When the object was made (DTSTAMP). */
  stamp: Date;
  lastModified?: Date | null;
}

export interface IcsCalendar {
  method: ItipMethod;
  events: IcsEvent[];
  /** X-WR-CALNAME, for the feed. */
  name?: string;
}

const PRODID = '-//wops//calendar//EN';
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/;

const isUtc = (zone: string) => zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Z';

/** An ical.js time for a wall clock (floating; the TZID parameter names its zone). */
function wallTime(local: string): ICAL.Time {
  const m = LOCAL.exec(local);
  if (!m) throw new Error(`not a wall-clock time: ${local}`);
  return ICAL.Time.fromData({ year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: m[6] ? +m[6] : 0, isDate: false });
}

function dateTime(name: string, t: IcsTime): ICAL.Property {
  const p = new ICAL.Property(name);
  if ('date' in t) {
    p.resetType('date');
    p.setValue(ICAL.Time.fromDateString(t.date));
  } else if (isUtc(t.timeZone)) {
    const w = wallTime(t.dateTime);
    p.setValue(ICAL.Time.fromData({ year: w.year, month: w.month, day: w.day, hour: w.hour, minute: w.minute, second: w.second }, ICAL.Timezone.utcTimezone));
  } else {
    p.setValue(wallTime(t.dateTime));
    p.setParameter('tzid', t.timeZone);
  }
  return p;
}

function person(name: string, who: IcsPerson): ICAL.Property {
  const p = new ICAL.Property(name);
  p.setValue(`mailto:${who.email}`);
  if (who.name) p.setParameter('cn', who.name);
  return p;
}

function utc(d: Date): ICAL.Time {
  return ICAL.Time.fromJSDate(new Date(Math.floor(d.getTime() / 1000) * 1000), true);
}

function vevent(e: IcsEvent): ICAL.Component {
  const v = new ICAL.Component('vevent');
  v.addPropertyWithValue('uid', e.uid);
  v.addPropertyWithValue('dtstamp', utc(e.stamp));
  if (e.lastModified) v.addPropertyWithValue('last-modified', utc(e.lastModified));
  v.addProperty(dateTime('dtstart', e.start));
  v.addProperty(dateTime('dtend', e.end));
  if (e.recurrenceId) v.addProperty(dateTime('recurrence-id', e.recurrenceId));
  if (e.rrule) v.addPropertyWithValue('rrule', ICAL.Recur.fromString(e.rrule.replace(/^RRULE:/i, '')));
  for (const x of e.exdates ?? []) {
    const t: IcsTime = 'date' in e.start ? { date: x.slice(0, 10) } : { dateTime: x, timeZone: e.start.timeZone };
    v.addProperty(dateTime('exdate', t));
  }
  v.addPropertyWithValue('sequence', e.sequence);
  v.addPropertyWithValue('status', e.status ?? 'CONFIRMED');
  v.addPropertyWithValue('summary', e.summary);
  if (e.description) v.addPropertyWithValue('description', e.description);
  if (e.location) v.addPropertyWithValue('location', e.location);
  v.addPropertyWithValue('transp', e.transparent ? 'TRANSPARENT' : 'OPAQUE');
  if (e.private) v.addPropertyWithValue('class', 'PRIVATE');
  if (e.organizer) v.addProperty(person('organizer', e.organizer));
  for (const a of e.attendees ?? []) {
    const p = person('attendee', a);
    p.setParameter('cutype', 'INDIVIDUAL');
    p.setParameter('role', a.optional ? 'OPT-PARTICIPANT' : 'REQ-PARTICIPANT');
    p.setParameter('partstat', a.partstat);
    if (a.rsvp !== undefined) p.setParameter('rsvp', a.rsvp ? 'TRUE' : 'FALSE');
    v.addProperty(p);
  }
  return v;
}

/** The zones a calendar's times name (all but UTC), once each, sorted. */
function zonesOf(events: readonly IcsEvent[]): string[] {
  const zones = new Set<string>();
  for (const e of events) for (const t of [e.start, e.end, e.recurrenceId]) if (t && 'timeZone' in t && !isUtc(t.timeZone)) zones.add(t.timeZone);
  return [...zones].sort();
}

/** The VTIMEZONE of an IANA zone, or undefined when the library does not know it. */
export function vtimezone(zone: string): ICAL.Component | undefined {
  const block = tzlib_get_ical_block(zone);
  const text = Array.isArray(block) ? block[0] : '';
  if (!text || !text.startsWith('BEGIN:VTIMEZONE')) return undefined;
  return new ICAL.Component(ICAL.parse(text) as unknown[]);
}

/** A VCALENDAR with METHOD, the VTIMEZONEs its times name, and its events. CRLF line ends, folded at 75 octets. */
export function writeCalendar(c: IcsCalendar): string {
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('prodid', PRODID);
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('calscale', 'GREGORIAN');
  cal.addPropertyWithValue('method', c.method);
  if (c.name) cal.addPropertyWithValue('x-wr-calname', c.name);
  for (const zone of zonesOf(c.events)) {
    const tz = vtimezone(zone);
    if (tz) cal.addSubcomponent(tz);
  }
  for (const e of c.events) cal.addSubcomponent(vevent(e));
  return cal.toString().replace(/\r?\n/g, '\r\n') + '\r\n';
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

/** A parsed time: the instant, and the wall clock with its zone when the TZID is an IANA zone (or UTC). */
export type ParsedTime = { date: string; instant: Date } | { instant: Date; dateTime: string; timeZone: string };

export interface ParsedAttendee {
  email: string;
  name: string | null;
  partstat: PartStat | string;
  optional: boolean;
}

export interface ParsedEvent {
  uid: string;
  sequence: number;
  status: string;
  summary: string;
  description: string | null;
  location: string | null;
  start: ParsedTime | null;
  end: ParsedTime | null;
  recurrenceId: ParsedTime | null;
  rrule: string | null;
  exdates: ParsedTime[];
  organizer: string | null;
  attendees: ParsedAttendee[];
  stamp: Date | null;
}

export interface ParsedCalendar {
  method: string | null;
  events: ParsedEvent[];
}

export class IcsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IcsError';
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const localOf = (t: ICAL.Time) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;

/** Whether `zone` is an IANA zone this runtime knows. */
export function knownZone(zone: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(zone);
    return true;
  } catch {
    return false;
  }
}

/** The instant of a wall clock in an IANA zone (a gap moves later, a fold takes the earlier: `compatible`). */
export function instantOf(local: string, zone: string): Date {
  const z = Temporal.PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: 'compatible' });
  return new Date(z.epochMilliseconds);
}

/** The wall clock of an instant in an IANA zone, `YYYY-MM-DDTHH:MM:SS`. */
export function wallClockOf(instant: Date, zone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(zone).toPlainDateTime().toString({ smallestUnit: 'second' });
}

function parseTime(p: ICAL.Property | null, zones: Map<string, ICAL.Timezone>): ParsedTime | null {
  if (!p) return null;
  const v = p.getFirstValue() as ICAL.Time | null;
  if (!v || typeof v !== 'object' || !('isDate' in v)) return null;
  return timeOf(v, p.getParameter('tzid') as string | undefined, zones);
}

function timeOf(v: ICAL.Time, tzid: string | undefined, zones: Map<string, ICAL.Timezone>): ParsedTime {
  if (v.isDate) {
    const date = `${pad(v.year, 4)}-${pad(v.month)}-${pad(v.day)}`;
    return { date, instant: new Date(`${date}T00:00:00Z`) };
  }
  const local = localOf(v);
  if (v.zone === ICAL.Timezone.utcTimezone || (tzid && isUtc(tzid))) return { instant: new Date(`${local}Z`), dateTime: local, timeZone: 'UTC' };
  if (tzid && knownZone(tzid)) return { instant: instantOf(local, tzid), dateTime: local, timeZone: tzid };
  const tz = tzid ? zones.get(tzid) : undefined;
  if (tz) {
    // A zone only the message defines (Outlook's "W. Europe Standard Time"): its own VTIMEZONE gives the instant.
    const t = v.clone();
    t.zone = tz;
    const instant = t.toJSDate();
    return { instant, dateTime: wallClockOf(instant, 'UTC'), timeZone: 'UTC' };
  }
  // Floating or an unknown zone: read as UTC.
  return { instant: new Date(`${local}Z`), dateTime: local, timeZone: 'UTC' };
}

const mailto = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const s = v
    .replace(/^mailto:/i, '')
    .trim()
    .toLowerCase();
  return s.includes('@') ? s : null;
};

const text = (c: ICAL.Component, name: string): string | null => {
  const v = c.getFirstPropertyValue(name);
  return typeof v === 'string' ? v : null;
};

/** Parse iCalendar text; IcsError when it is not a VCALENDAR. Events without a UID are left out. */
export function parseCalendar(body: string): ParsedCalendar {
  let cal: ICAL.Component;
  try {
    cal = new ICAL.Component(ICAL.parse(body) as unknown[]);
  } catch (err) {
    throw new IcsError(`not iCalendar text: ${(err as Error).message}`);
  }
  if (cal.name !== 'vcalendar') throw new IcsError(`not a VCALENDAR but ${cal.name.toUpperCase()}`);
  const zones = new Map<string, ICAL.Timezone>();
  for (const vtz of cal.getAllSubcomponents('vtimezone')) {
    const tzid = vtz.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string') zones.set(tzid, new ICAL.Timezone({ component: vtz, tzid }));
  }
  const method = text(cal, 'method');
  const events: ParsedEvent[] = [];
  for (const v of cal.getAllSubcomponents('vevent')) {
    const uid = text(v, 'uid');
    if (!uid) continue;
    const seq = Number(v.getFirstPropertyValue('sequence') ?? 0);
    const rrule = v.getFirstPropertyValue('rrule') as ICAL.Recur | null;
    const exdates: ParsedTime[] = [];
    for (const p of v.getAllProperties('exdate')) {
      const tzid = p.getParameter('tzid') as string | undefined;
      for (const x of p.getValues() as ICAL.Time[]) exdates.push(timeOf(x, tzid, zones));
    }
    let end = parseTime(v.getFirstProperty('dtend'), zones);
    const start = parseTime(v.getFirstProperty('dtstart'), zones);
    const duration = v.getFirstPropertyValue('duration') as ICAL.Duration | null;
    if (!end && start && duration && typeof duration === 'object') {
      const instant = new Date(start.instant.getTime() + duration.toSeconds() * 1000);
      end =
        'date' in start
          ? { date: instant.toISOString().slice(0, 10), instant }
          : { instant, dateTime: wallClockOf(instant, start.timeZone), timeZone: start.timeZone };
    }
    const stamp = v.getFirstPropertyValue('dtstamp') as ICAL.Time | null;
    events.push({
      uid,
      sequence: Number.isFinite(seq) ? seq : 0,
      status: (text(v, 'status') ?? 'CONFIRMED').toUpperCase(),
      summary: text(v, 'summary') ?? '',
      description: text(v, 'description'),
      location: text(v, 'location'),
      start,
      end,
      recurrenceId: parseTime(v.getFirstProperty('recurrence-id'), zones),
      rrule: rrule && typeof rrule === 'object' ? rrule.toString() : null,
      exdates,
      organizer: mailto(v.getFirstPropertyValue('organizer')),
      attendees: v.getAllProperties('attendee').flatMap((p) => {
        const email = mailto(p.getFirstValue());
        if (!email) return [];
        const cn = p.getParameter('cn');
        const partstat = p.getParameter('partstat');
        return [
          {
            email,
            name: typeof cn === 'string' ? cn : null,
            partstat: typeof partstat === 'string' ? partstat.toUpperCase() : 'NEEDS-ACTION',
            optional: p.getParameter('role') === 'OPT-PARTICIPANT',
          },
        ];
      }),
      stamp: stamp && typeof stamp === 'object' ? stamp.toJSDate() : null,
    });
  }
  return { method: method ? method.toUpperCase() : null, events };
}

/** Calendar response statuses (Google's words) and iTIP PARTSTATs. */
const TO_PARTSTAT: Record<string, PartStat> = { needsAction: 'NEEDS-ACTION', accepted: 'ACCEPTED', declined: 'DECLINED', tentative: 'TENTATIVE' };
export const partstatOf = (status: string): PartStat => TO_PARTSTAT[status] ?? 'NEEDS-ACTION';
export function responseOf(partstat: string): 'needsAction' | 'accepted' | 'declined' | 'tentative' | null {
  const found = Object.entries(TO_PARTSTAT).find(([, p]) => p === partstat.toUpperCase());
  return found ? (found[0] as 'needsAction') : null;
}
