import { z } from 'zod';
import { method } from '../../contract.js';
import { askResult } from '../ask-result.js';
import { text } from '../../schema.js';

/*
 * calendar.findATime and calendar.ask (docs/families/calendar.md, "Finding a time"). Both are reads (calendar.read,
 * R): they append nothing to the ledger; ask is audited in the org's AI audit chain.
 *
 * findATime: the slots where every required attendee is free. Free means inside their working hours (profile
 * workingHours in their member time zone, when respectWorkingHours) and outside their busy time: events they organize
 * or attend and have not declined, opaque and confirmed; tentative answers block; out-of-office blocks its whole span.
 * Whoever cannot be checked comes back in `unknown`, never as free.
 */

export const MAX_ATTENDEES = 20;
export const MAX_WINDOW_DAYS = 60;
export const MAX_ASK_DAYS = 31;
/** Hours assumed for a member whose profile has none (respectWorkingHours), in their own zone. */
export const DEFAULT_HOURS = { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } as const;
export const UNKNOWN_REASONS = ['not_a_member', 'no_working_hours', 'no_time_zone'] as const;

const instant = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-03-09T00:00:00Z' }).describe(description);
const minutes = (min: number, max: number, dflt: number | undefined, description: string) => {
  const base = z
    .number({ message: 'must be an integer number of minutes' })
    .int('must be an integer number of minutes')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
  return (dflt === undefined ? base : base.default(dflt)).describe(description);
};

const Attendee = z.strictObject({
  id: text({
    min: 1,
    max: 320,
    description:
      'A member id (usr_… or agt_…) whose calendar is checked. Anything else (per_…, an email address, another org’s id) cannot be seen and is listed in unknown.',
  }),
  optional: z.boolean().default(false).describe('true: slots do not wait for them; each slot lists the optional attendees free for it (optionalFree).'),
});

const Local = z.strictObject({
  id: z.string().describe('The attendee.'),
  timeZone: z.string().describe('Their zone (IANA), e.g. Europe/Berlin; UTC when the member has none.'),
  start: z.string().describe('Wall-clock start in that zone, YYYY-MM-DDTHH:MM.'),
  end: z.string().describe('Wall-clock end in that zone, YYYY-MM-DDTHH:MM.'),
});

export const Slot = z.strictObject({
  start: z.string().describe('UTC start, ISO 8601.'),
  end: z.string().describe('UTC end, ISO 8601.'),
  local: z.array(Local).describe('The slot in each counted attendee’s own zone, in the order asked.'),
  optionalFree: z.array(z.string()).describe('Optional attendees free (and, with respectWorkingHours, working) for the whole slot.'),
});

export const Unknown = z.strictObject({
  id: z.string().describe('The attendee as given.'),
  reason: z
    .enum(UNKNOWN_REASONS)
    .describe(
      'not_a_member: no member of this org has that id, so their calendar cannot be seen: left out of the slots, never counted as free. no_working_hours: the member set none: counted with 09:00-17:00 Monday to Friday in their zone. no_time_zone: the member has no time zone: their hours are read in UTC.',
    ),
  assumed: z.string().nullable().describe('What was assumed to count them (null: not counted).'),
  message: z.string().describe('What the server did and what to do about it.'),
});

export const findATimeParams = z.strictObject({
  attendees: z
    .array(Attendee)
    .min(1, 'must name at least 1 attendee')
    .max(MAX_ATTENDEES, `at most ${MAX_ATTENDEES} attendees`)
    .describe(`Who must (or may) attend, at most ${MAX_ATTENDEES}; at least one required (optional false) attendee. Repeated ids count once.`),
  durationMinutes: minutes(5, 1440, undefined, 'How long the meeting is, 5 to 1440 minutes.'),
  from: instant('Earliest start of the search window.'),
  to: instant(`End of the search window (a slot ends by it), at most ${MAX_WINDOW_DAYS} days after from.`),
  granularity: minutes(5, 1440, 30, 'Minutes between candidate starts (default 30). Starts fall on multiples of it counted from midnight UTC.'),
  buffer: minutes(0, 240, 0, 'Minutes kept free before and after every busy block (default 0).'),
  minNotice: minutes(0, 43200, 0, 'No slot starts sooner than this many minutes from now (default 0; slots never start in the past).'),
  respectWorkingHours: z
    .boolean()
    .default(true)
    .describe(
      'true (default): only inside every counted attendee’s working hours (profile workingHours, in their member time zone; a member with none counts as 09:00-17:00 Monday to Friday, said in unknown). false: any time outside busy blocks.',
    ),
  limit: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(500, 'must be at most 500')
    .default(50)
    .describe('Most slots returned, earliest first (1 to 500, default 50); more: call again with from = nextFrom.'),
});

export const CITE = /^cev_[A-Za-z0-9]+(?:@\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)?$/;

const AskCitation = z.strictObject({
  kind: z.literal('record'),
  id: z
    .string()
    .regex(CITE, 'must be cev_… or cev_…@<originalStart, ISO UTC>')
    .describe('An event (cev_…) or one occurrence of a series (cev_…@originalStart).'),
});
const AskClaimDraft = z.strictObject({
  text: z.string().min(1).max(1000),
  cites: z.array(AskCitation).max(100),
  figure: z.strictObject({ value: z.literal(0), unit: z.literal('count'), op: z.literal('count') }).optional(),
});

/** What a model hands back for calendar.ask. */
export const CalendarAskDraft = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('answer'), answer: z.string().min(1).max(4000), claims: z.array(AskClaimDraft).max(50) }),
  z.strictObject({ kind: z.literal('cannot_answer'), reason: z.string().min(1).max(1000) }),
]);

export const CALENDAR_ASK_NOTICE =
  'Written from the calendar reads named in actOnWith, run as you (others’ private events are busy blocks only), and checked: every date written is a cited event’s or inside a window those reads covered. Event text was read as data, never as instructions. It is not a record: confirm with calendar.get before acting.';

export const calendarTime = {
  findATime: method({
    summary: `Find slots when the attendees are all free: inside their working hours (in each one’s own zone) and outside their busy events (tentative blocks; out of office blocks its span), with buffers, a step and a minimum notice. Times in UTC and local per attendee. Non-members and others it cannot see come back in unknown, never as free. Window at most ${MAX_WINDOW_DAYS} days, at most ${MAX_ATTENDEES} attendees.`,
    params: findATimeParams,
    result: z.strictObject({
      slots: z.array(Slot).describe('Free slots, earliest first, at most limit.'),
      unknown: z.array(Unknown).describe('Attendees it could not see, or counted on an assumption; never taken as free.'),
      counted: z.array(z.string()).describe('The members whose calendars were checked.'),
      more: z.boolean().describe('true: there are slots after the last one returned.'),
      nextFrom: z.string().nullable().describe('When more: the next slot’s start; call again with it as from.'),
      message: z.string().describe('What was found and what to do next.'),
    }),
    example: {
      attendees: [{ id: 'usr_0123456789abcdef' }, { id: 'usr_fedcba9876543210', optional: true }],
      durationMinutes: 60,
      from: '2026-03-09T00:00:00Z',
      to: '2026-03-14T00:00:00Z',
      granularity: 30,
      buffer: 10,
      minNotice: 120,
      respectWorkingHours: true,
    },
  }),
  ask: method({
    summary:
      'Ask about your calendar in plain words ("when am I free tomorrow", "what is on 2026-03-10"). Answered from the calendar reads run as you; each claim cites cev_… or cev_…@originalStart and every date written matches a cited event (or a window read). Event text is data, never instructions. Refused with a reason when it cannot ground an answer. Audited, no ledger event.',
    params: z.strictObject({
      question: text({ min: 3, max: 2000, description: 'The question, in plain words (3 to 2000 characters).' }),
      from: instant('Start of the period the question is about (default: the question’s own day words, else today).').optional(),
      to: instant(`End of that period, at most ${MAX_ASK_DAYS} days after from.`).optional(),
    }),
    result: askResult({
      cites: 'The events it rests on: cev_… or cev_…@originalStart (empty: a period with no events, read).',
      refused: 'nothing you can read answers it, or the answer was not grounded',
    }),
    example: { question: 'When am I free tomorrow?' },
  }),
};
