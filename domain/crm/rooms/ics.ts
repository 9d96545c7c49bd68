import ICAL from 'ical.js';
import type { GuestCall } from '../../messaging/index.js';

/*
 * A call as an iCalendar event (RFC 5545) for a deal-room guest, written with ical.js: the call's start, its end
 * (an hour after the start while it is live), its title, and the room's address (no token: the guest opens it
 * from the link they hold). No attendees: the guest's own address stays out of a file they may forward.
 */

const HOUR_MS = 60 * 60 * 1000;
const utc = (d: Date) => ICAL.Time.fromJSDate(new Date(Math.floor(d.getTime() / 1000) * 1000), true);

export function callIcs(call: GuestCall, o: { now: Date; roomUrl: string; host: string }): string {
  const start = new Date(call.startedAt);
  const end = call.endedAt ? new Date(call.endedAt) : new Date(start.getTime() + HOUR_MS);
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('prodid', '-//wops//deal room//EN');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('calscale', 'GREGORIAN');
  cal.addPropertyWithValue('method', 'PUBLISH');
  const v = new ICAL.Component('vevent');
  v.addPropertyWithValue('uid', `${call.callId}@${o.host}`);
  v.addPropertyWithValue('dtstamp', utc(o.now));
  v.addPropertyWithValue('dtstart', utc(start));
  v.addPropertyWithValue('dtend', utc(end.getTime() > start.getTime() ? end : new Date(start.getTime() + 60_000)));
  v.addPropertyWithValue('summary', call.title ?? 'Call');
  v.addPropertyWithValue('status', 'CONFIRMED');
  v.addPropertyWithValue('url', o.roomUrl);
  cal.addSubcomponent(v);
  return cal.toString().replace(/\r?\n/g, '\r\n') + '\r\n';
}
