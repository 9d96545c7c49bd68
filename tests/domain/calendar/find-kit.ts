import { ok } from '../../helpers/calls.js';
import { TestClock } from '../../helpers/clock.js';
import type { Person } from '../../helpers/people.js';
import { calOrg, type CalOrg } from './kit.js';

/*
 * What the find-a-time and ask tests add to the calendar kit: a clock in March 2026 (the design's scenario 1), and members' working hours.
 */

export interface FindOrg extends CalOrg {
  clock: TestClock;
}

/** The calendar org with its clock at 2026-03-01 09:00 UTC (a Sunday). */
export async function findOrg(): Promise<FindOrg> {
  const clock = new TestClock('2026-03-01');
  return { ...(await calOrg({ clock })), clock };
}

/** The same ranges Monday to Friday. */
export const weekdays = (start = '09:00', end = '17:00') =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start, end }]])) as Record<string, { start: string; end: string }[]>;

/** Set a member's working hours (profile.update, as themselves). */
export const setHours = (o: CalOrg, who: Person, workingHours: Record<string, { start: string; end: string }[]>) =>
  ok(o.s, 'profile.update', { memberId: who.id, workingHours }, who.key);

/** UTC HH:MM of an ISO instant. */
export const hhmm = (iso: string) => iso.slice(11, 16);
