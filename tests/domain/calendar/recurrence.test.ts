import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../protocol/errors.js';
import { expand, normaliseRule, place, seriesEnd, type SeriesTime } from '../../../domain/calendar/recurrence.js';

/*
 * Expansion in wall-clock time (pure): DST gaps move later, folds take the earlier instant, a weekly 09:00 stays
 * 09:00 local across a change, checked against Debian's python3-icalendar with dateutil's rrule.
 */

const HOUR = 3_600_000;
const series = (startWall: string, timeZone: string, rrule: string, exdates: string[] = []): SeriesTime => ({
  allDay: false,
  startWall,
  timeZone,
  durationMs: HOUR,
  rrule: normaliseRule(rrule, { allDay: false, wall: startWall, zone: timeZone }),
  exdates,
});
const starts = (s: SeriesTime, from: string, to: string) => expand(s, new Date(from), new Date(to)).map((i) => i.start.toISOString());

describe('wall-clock expansion', () => {
  it('New York: a 02:30 in the spring gap moves to 03:30; a 01:30 in the autumn fold is the earlier 05:30Z', () => {
    expect(place('2026-03-08T02:30:00', 'America/New_York').toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(place('2026-11-01T01:30:00', 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
    const gap = series('2026-03-07T02:30:00', 'America/New_York', 'FREQ=DAILY;COUNT=3');
    expect(starts(gap, '2026-03-01T00:00:00Z', '2026-03-31T00:00:00Z')).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
    const fold = series('2026-10-31T01:30:00', 'America/New_York', 'FREQ=DAILY;COUNT=3');
    expect(starts(fold, '2026-10-01T00:00:00Z', '2026-11-30T00:00:00Z')).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('Sydney: weekly 09:00 with an EXDATE stays 09:00 local across 2026-04-05', () => {
    const s = series('2026-03-23T09:00:00', 'Australia/Sydney', 'FREQ=WEEKLY;COUNT=5', ['2026-04-06T09:00:00']);
    expect(starts(s, '2026-03-01T00:00:00Z', '2026-05-01T00:00:00Z')).toEqual([
      '2026-03-22T22:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
      '2026-04-12T23:00:00.000Z',
      '2026-04-19T23:00:00.000Z',
    ]);
  });

  it('Berlin: weekly 10:00 across 2026-03-29; UNTIL in UTC bounds the series and its end', () => {
    const s = series('2026-03-16T10:00:00', 'Europe/Berlin', 'FREQ=WEEKLY;UNTIL=20260406T080000Z');
    expect(s.rrule).toBe('FREQ=WEEKLY;UNTIL=20260406T080000Z');
    expect(starts(s, '2026-03-01T00:00:00Z', '2026-05-01T00:00:00Z')).toEqual([
      '2026-03-16T09:00:00.000Z',
      '2026-03-23T09:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
      '2026-04-06T08:00:00.000Z',
    ]);
    expect(seriesEnd(s)!.toISOString()).toBe('2026-04-06T09:00:00.000Z');
    expect(seriesEnd(series('2026-03-16T10:00:00', 'Europe/Berlin', 'FREQ=DAILY'))).toBeNull();
  });

  it('a floating UNTIL is read in the zone and stored in UTC; unsupported rules are BAD_REQUEST on recurrence.rrule', () => {
    expect(normaliseRule('RRULE:freq=daily;until=20260405T090000', { allDay: false, wall: '2026-04-01T09:00:00', zone: 'Australia/Sydney' })).toBe(
      'FREQ=DAILY;UNTIL=20260404T230000Z',
    );
    for (const [rule, message] of [
      ['FREQ=HOURLY', 'recurrence.rrule: FREQ=HOURLY is not supported'],
      ['FREQ=MINUTELY', 'recurrence.rrule: FREQ=MINUTELY is not supported'],
      ['COUNT=3', 'recurrence.rrule: FREQ is required (DAILY, WEEKLY, MONTHLY or YEARLY)'],
      ['FREQ=DAILY;COUNT=2;UNTIL=20260101', 'recurrence.rrule: give COUNT or UNTIL, not both'],
      ['FREQ=WEEKLY;BYDAY=XX', /^recurrence\.rrule: /],
    ] as const) {
      let e: unknown;
      try {
        normaliseRule(rule, { allDay: false, wall: '2026-04-01T09:00:00', zone: 'UTC' });
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).message).toMatch(message);
    }
  });
});

const PY = '/usr/bin/python3';
const hasIcal =
  existsSync(PY) &&
  (() => {
    try {
      execFileSync(PY, ['-c', 'import icalendar, dateutil'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

// python3-icalendar parses a VEVENT with TZID and EXDATE; dateutil's rrule expands it in wall-clock time (zoneinfo places it).
const SCRIPT = `
import sys, icalendar
from dateutil.rrule import rrulestr
from datetime import timezone
from zoneinfo import ZoneInfo
cal = icalendar.Calendar.from_ical(sys.stdin.read())
ev = next(c for c in cal.walk('VEVENT'))
zone = ZoneInfo(str(ev.get('DTSTART').params['TZID']))
start = ev.decoded('DTSTART').replace(tzinfo=None)
ex = set(d.dt.replace(tzinfo=None) for d in ev.get('EXDATE').dts) if ev.get('EXDATE') else set()
rule = rrulestr(ev.get('RRULE').to_ical().decode(), dtstart=start.replace(tzinfo=None), ignoretz=True)
for d in rule:
    if d not in ex:
        print(d.replace(tzinfo=zone).astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z'))
`;

describe.skipIf(!hasIcal)('against python3-icalendar and dateutil (Debian)', () => {
  for (const [zone, wall, rule, ex] of [
    ['Australia/Sydney', '2026-03-16T09:00:00', 'FREQ=WEEKLY;COUNT=8', '2026-04-06T09:00:00'],
    ['Europe/Berlin', '2026-03-02T10:00:00', 'FREQ=WEEKLY;BYDAY=MO,TH;COUNT=12', '2026-03-30T10:00:00'],
    ['America/New_York', '2026-10-20T09:30:00', 'FREQ=DAILY;COUNT=20', '2026-11-02T09:30:00'],
  ] as const) {
    it(`${zone} ${rule}`, () => {
      const s = series(wall, zone, rule, [ex]);
      const compact = (w: string) => w.replace(/[-:]/g, '');
      const ics = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        'UID:x@test',
        'DTSTAMP:20260101T000000Z',
        `DTSTART;TZID=${zone}:${compact(wall)}`,
        `RRULE:${s.rrule}`,
        `EXDATE;TZID=${zone}:${compact(ex)}`,
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
      const theirs = execFileSync(PY, ['-c', SCRIPT], { input: ics }).toString().trim().split('\n');
      expect(starts(s, '2026-01-01T00:00:00Z', '2026-12-31T00:00:00Z')).toEqual(theirs);
    });
  }
});
