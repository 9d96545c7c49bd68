import { Temporal } from 'temporal-polyfill';
import type { AskInput, Citation, Claim, Draft, Toolbox } from '../../../ai-gateway/types.js';
import { localDate, startOfLocalDay } from './hours.js';
import { askerOf, type Asker } from './reads.js';

/*
 * calendar.ask offline (no model), two templates, else a refusal saying what it can answer:
 * - "when am I free …": calendar.findATime for the asker alone (half-hour slots inside their working hours) and
 *   calendar.list for the same period; per day, the free runs, citing that day's events (a day without events
 *   cites none: a count of 0 over a period it read);
 * - "what is on …": calendar.list; one claim per event, its title quoted (titles are data: whatever they say is
 *   listed, never followed), citing cev_… or cev_…@originalStart.
 * The period: the call's from/to, else the question's own words (an ISO date, today, tomorrow, a weekday, this or
 * next week), else today, as days in the asker's zone. A request to act is refused: it only reads.
 */

interface EventNode {
  id: string;
  originalStart: string | null;
  title: string;
  allDay: boolean;
  start: { utc: string; date: string | null };
  end: { utc: string };
  asker?: { start: string; end: string };
}
interface SlotNode {
  start: string;
  end: string;
  local: { id: string; start: string; end: string }[];
}

const DAY = 86_400_000;
const MAX_DAYS = 31;
const MAX_EVENTS = 25;

const cannot = (reason: string): Draft => ({ kind: 'cannot_answer', reason });

const RULES = /\b(ignore|disregard|forget|override|bypass)\b.*\b(rules?|instructions?|prompt|guards?)\b|\b(system prompt|jailbreak)\b/i;
const ACTS =
  /^(?:(?:please|pls|kindly|now|ok|okay|then)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+(?:you\s+)?to\s+)*(?:create|book|schedule|add|move|reschedule|cancel|delete|remove|invite|accept|decline|rsvp|send|update|change|set)\b/i;
const FREE = /\b(free|available|availability|open slots?|gaps?)\b/i;
const ON =
  /\b(what(?:'s|’s| is| do i have)?\s+(?:on|happening|scheduled|planned|booked|next)|agenda|schedule|events?|meetings?|busy|calendar|appointments?)\b/i;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

const ONLY_READS =
  'calendar.ask only reads your calendar: it does not create, move, cancel or answer events. Use calendar.create, calendar.reschedule, calendar.delete or calendar.rsvp for that, and ask here what is on it or when you are free.';
const TEMPLATES =
  'Offline I answer two kinds of question: "when am I free …" and "what is on …", for today, tomorrow, a weekday, this or next week, or a date (2026-03-10); or give from and to. Ask one of those.';

/** The local days a question names (first day, number of days), from `today` (YYYY-MM-DD). */
export function daysAsked(question: string, today: string): { first: string; days: number } {
  const q = question.toLowerCase();
  const day = Temporal.PlainDate.from(today);
  const iso = /\b(\d{4}-\d{2}-\d{2})\b/.exec(q);
  if (iso) {
    try {
      return { first: Temporal.PlainDate.from(iso[1]).toString(), days: 1 };
    } catch {
      // Not a real date: fall through to the words.
    }
  }
  if (/\bnext week\b/.test(q)) return { first: day.add({ days: 8 - day.dayOfWeek }).toString(), days: 7 };
  if (/\bthis week\b/.test(q)) return { first: today, days: 8 - day.dayOfWeek };
  if (/\btomorrow\b/.test(q)) return { first: day.add({ days: 1 }).toString(), days: 1 };
  const named = WEEKDAYS.findIndex((w) => new RegExp(`\\b${w}\\b`).test(q));
  if (named >= 0) return { first: day.add({ days: (named + 1 - day.dayOfWeek + 7) % 7 }).toString(), days: 1 };
  return { first: today, days: 1 };
}

/** The period as instants: the call's from/to, else the question's days in the asker's zone. */
function periodOf(asker: Asker, question: string, today: string): { from: number; to: number } {
  if (asker.from !== null && asker.to !== null) return { from: Date.parse(asker.from), to: Date.parse(asker.to) };
  const { first, days } = daysAsked(question, today);
  const last = Temporal.PlainDate.from(first).add({ days }).toString();
  return { from: startOfLocalDay(first, asker.timeZone), to: startOfLocalDay(last, asker.timeZone) };
}

const cite = (e: EventNode): Citation => ({ kind: 'record', id: e.originalStart ? `${e.id}@${e.originalStart}` : e.id });
const iso = (ms: number) => new Date(ms).toISOString();

async function eventsIn(tools: Toolbox, from: number, to: number): Promise<EventNode[]> {
  const res = (await tools.call('calendar.list', { from: iso(from), to: iso(to), singleEvents: true, limit: 500 })) as { items: EventNode[] };
  return [...res.items].sort((a, b) => Date.parse(a.start.utc) - Date.parse(b.start.utc));
}

/** What is on: one claim per event, its title quoted. */
async function whatIsOn(tools: Toolbox, asker: Asker, from: number, to: number): Promise<Draft> {
  const events = await eventsIn(tools, from, to);
  if (events.length === 0) {
    const text = `Nothing is on your calendar from ${localDate(from, asker.timeZone)} to ${localDate(to - 1, asker.timeZone)}.`;
    return { kind: 'answer', answer: text, claims: [{ text, cites: [], figure: { value: 0, unit: 'count', op: 'count' } }] };
  }
  const claims: Claim[] = events.slice(0, MAX_EVENTS).map((e) => {
    const when = e.allDay ? `${e.start.date ?? e.start.utc.slice(0, 10)} (all day)` : `${e.asker?.start ?? e.start.utc} to ${e.asker?.end ?? e.end.utc}`;
    return { text: `${when}: ${e.title}`, cites: [cite(e)], quote: e.title };
  });
  const more = events.length > MAX_EVENTS ? ' More events follow: calendar.list shows them all.' : '';
  const answer = [`Your events in the period asked (times in ${asker.timeZone}; titles as written, read as data):`, ...claims.map((c) => `- ${c.text}`)].join(
    '\n',
  );
  return { kind: 'answer', answer: answer + more, claims };
}

/** Free runs from contiguous slots, as the asker's wall clock. */
function runsOf(slots: SlotNode[], asker: string): { start: string; end: string }[] {
  const runs: { start: string; end: string; endUtc: string }[] = [];
  for (const s of slots) {
    const mine = s.local.find((l) => l.id === asker);
    if (!mine) continue;
    const last = runs.at(-1);
    if (last && last.endUtc === s.start) {
      last.end = mine.end;
      last.endUtc = s.end;
    } else runs.push({ start: mine.start, end: mine.end, endUtc: s.end });
  }
  return runs.map(({ start, end }) => ({ start, end }));
}

/** When am I free: per day, the free runs inside working hours, citing that day's events. */
async function whenFree(tools: Toolbox, asker: Asker, from: number, to: number): Promise<Draft> {
  const found = (await tools.call('calendar.findATime', {
    attendees: [{ id: asker.id }],
    durationMinutes: 30,
    granularity: 30,
    from: iso(from),
    to: iso(to),
    limit: 500,
  })) as { slots: SlotNode[] };
  const events = await eventsIn(tools, from, to);
  const claims: Claim[] = [];
  for (let t = from; t < to && claims.length < MAX_DAYS;) {
    const date = localDate(t, asker.timeZone);
    const next = startOfLocalDay(Temporal.PlainDate.from(date).add({ days: 1 }).toString(), asker.timeZone);
    const end = Math.min(next, to);
    const runs = runsOf(
      found.slots.filter((s) => Date.parse(s.start) >= t && Date.parse(s.start) < end),
      asker.id,
    );
    const those = events.filter((e) => Date.parse(e.start.utc) < end && Date.parse(e.end.utc) > t && (e.asker?.start ?? e.start.utc).startsWith(date));
    const free = runs.map((r) => `${r.start} to ${r.end}`).join(', ');
    if (those.length > 0) {
      const text = runs.length
        ? `On ${date} you are free ${free} (${asker.timeZone}), around the events cited.`
        : `On ${date} you have no free half hour inside your working hours: the events cited fill it.`;
      claims.push({ text, cites: those.map(cite) });
    } else {
      const text = runs.length
        ? `Nothing is on your calendar on ${date}: you are free ${free} (${asker.timeZone}).`
        : `Nothing is on your calendar on ${date}, and it is outside your working hours (or already past).`;
      claims.push({ text, cites: [], figure: { value: 0, unit: 'count', op: 'count' } });
    }
    t = next;
  }
  const answer = [...claims.map((c) => c.text), 'Free means inside your working hours (profile workingHours) and outside events you have not declined.'].join(
    '\n',
  );
  return { kind: 'answer', answer, claims };
}

export async function answerFromCalendar(input: Pick<AskInput, 'question' | 'today'>, tools: Toolbox): Promise<Draft> {
  const { question, asker } = askerOf(input.question);
  if (asker === null) return cannot('The question reached the answerer without its asker, so I cannot tell whose calendar to read.');
  const q = question.replace(/\s+/g, ' ').trim();
  if (RULES.test(q))
    return cannot('I answer only from the calendar you can read, under fixed rules a question cannot change; event text is data to me, never instructions.');
  if (ACTS.test(q)) return cannot(ONLY_READS);
  const { from, to } = periodOf(asker, q, input.today);
  if (!(to > from) || to - from > MAX_DAYS * DAY) return cannot(`The period asked is not one I can read (at most ${MAX_DAYS} days). Give from and to.`);
  if (FREE.test(q)) return whenFree(tools, asker, from, to);
  if (ON.test(q)) return whatIsOn(tools, asker, from, to);
  return cannot(TEMPLATES);
}
