import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio's week (docs/families/calendar.md, meetings.md): the Monday stand-up as a weekly series
 * in Sydney time, a client kickoff with Coastal Realty's Michael Brennan invited by address, Oliver in London finding
 * a time with Tom in Sydney, the kickoff's meeting record (decisions, an action item as a triage task) and its recap
 * filed as a doc; and the sales desk behind it: two of the books' clients as accounts (the directory's organisations, not copies), their deals on the pipeline, a target.
 */

const DAY = 86_400_000;

/** The next Monday after `from` (UTC date), as YYYY-MM-DD. */
function nextMonday(from: Date): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  const ahead = (8 - d.getUTCDay()) % 7 || 7;
  return new Date(d.getTime() + ahead * DAY).toISOString().slice(0, 10);
}

const plusDays = (date: string, n: number) => new Date(new Date(`${date}T00:00:00Z`).getTime() + n * DAY).toISOString().slice(0, 10);
const sydney = (date: string, time: string) => ({ dateTime: `${date}T${time}:00`, timeZone: 'Australia/Sydney' });

export async function demoCalendar(desk: DemoDesk, progress: (line: string) => void): Promise<{ summary: string[]; kickoffId: string; monday: string }> {
  desk.live();
  progress('Calendar: a weekly stand-up, a client kickoff, a time found across Sydney and London, its meeting and recap');
  const m = await desk.memberIds();
  const [tom, oliver, chloe, mia] = ['Tom Okafor', 'Oliver Hughes', 'Chloe Martin', 'Mia Chen'].map((n) => m.get(n)!);
  const monday = nextMonday(new Date());

  const standup = (
    await desk.call('calendar.create', {
      title: 'Studio stand-up',
      start: sydney(monday, '09:15'),
      end: sydney(monday, '09:30'),
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=MO;COUNT=26' },
      attendees: [tom, chloe, mia].map((principalId) => ({ principalId })),
      notify: 'none',
    })
  ).event;
  const kickoffDay = plusDays(monday, 1);
  const kickoff = (
    await desk.call('calendar.create', {
      title: 'Coastal Realty: website relaunch kickoff',
      description: 'Scope, timeline and who signs off. Bring the listing-page mock-ups.',
      location: 'Studio meeting room',
      start: sydney(kickoffDay, '10:00'),
      end: sydney(kickoffDay, '11:00'),
      attendees: [{ principalId: tom }, { principalId: chloe }, { email: 'michael.brennan@coastalrealty.example' }],
      notify: 'none',
    })
  ).event;
  const found = await desk.call('calendar.findATime', {
    attendees: [{ id: oliver }, { id: tom }],
    durationMinutes: 30,
    from: `${monday}T00:00:00Z`,
    to: `${plusDays(monday, 14)}T00:00:00Z`,
    respectWorkingHours: true,
    limit: 5,
  });

  const meeting = (
    await desk.call('meetings.record', {
      eventId: kickoff.id,
      startedAt: kickoff.start.utc,
      endedAt: kickoff.end.utc,
      notes:
        'Coastal wants the new site live before the autumn auction season.\nWe agreed on two design routes, not three.\nChloe will send the revised timeline by Friday.',
      decisions: ['Two design routes, not three', 'Live before the autumn auction season'],
      actionItems: [{ text: 'Send Coastal Realty the revised timeline', assigneeId: chloe, createTask: true }],
    })
  ).meeting;
  const recap = await desk.call('meetings.recapFile', { meetingId: meeting.id });

  const first = found.slots[0];
  const summary = [
    `Calendar: the weekly stand-up ${standup.id} (Mondays 09:15 Sydney, 26 weeks) and the Coastal Realty kickoff ${kickoff.id} on ${kickoffDay}: calendar.list {"from":"${monday}T00:00:00Z","to":"${plusDays(monday, 7)}T00:00:00Z"}`,
    `  Oliver (London) and Tom (Sydney): ${found.slots.length} half-hour slots in their working hours${first ? `, the first ${first.start}` : ''}: calendar.findATime`,
    `  Meeting ${meeting.id} of the kickoff: 2 decisions as unverified knowledge, a triage task for Chloe; its recap is doc ${recap.fileId} (revision ${recap.revision})`,
  ];
  return { summary, kickoffId: kickoff.id, monday };
}
