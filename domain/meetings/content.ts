import type { Queryable } from '../../db/types.js';
import { getMembers } from '../people/index.js';
import type { LineRow } from './model.js';
import type { AttendeeIn } from './occurrence.js';

/*
 * Who spoke and who is meant: names are matched against the meeting's attendees only, and only when exactly one
 * member fits (a full name, or a first name said alone); otherwise nobody is named (never invented). Lines given
 * again on an amend keep their mtl_ ids when the speaker, times and words are the same.
 */

export interface LineIn {
  speaker: string;
  startMs: number | null;
  endMs: number | null;
  text: string;
  sourceLineId: string | null;
}

export interface PlannedLine extends Omit<LineIn, 'speaker'> {
  /** The existing line it is (kept), or null: a new line. */
  lineId: string | null;
  speaker: string;
  speakerId: string | null;
}

const fold = (s: string) => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase();
const MEMBER_ID = /^(usr|agt)_[A-Za-z0-9]+$/;

/** The members among the attendees a spoken name means: full names first, else a first name said alone. */
export function matchAttendee(name: string, attendees: readonly AttendeeIn[]): string[] {
  const want = fold(name);
  const members = attendees.filter((a): a is AttendeeIn & { principalId: string } => a.principalId !== null);
  if (MEMBER_ID.test(name.trim())) return members.filter((a) => a.principalId === name.trim()).map((a) => a.principalId);
  const full = members.filter((a) => a.name !== null && fold(a.name) === want);
  if (full.length > 0 || want.includes(' ')) return [...new Set(full.map((a) => a.principalId))];
  const first = members.filter((a) => a.name !== null && fold(a.name).split(' ')[0] === want);
  return [...new Set(first.map((a) => a.principalId))];
}

const keyOf = (l: { speaker: string; speakerId: string | null; startMs: number | null; endMs: number | null; text: string }) =>
  JSON.stringify([l.speakerId ?? l.speaker, l.startMs, l.endMs, l.text]);

/** The lines as they will be stored: speakers resolved, and each matched to a current line with the same key. */
export async function planLines(
  q: Queryable,
  orgId: string,
  given: readonly LineIn[],
  attendees: readonly AttendeeIn[],
  now: readonly LineRow[],
): Promise<PlannedLine[]> {
  const ids = [...new Set(given.flatMap((l) => (MEMBER_ID.test(l.speaker) ? [l.speaker] : [])))];
  const names = new Map((await getMembers(q, orgId, ids)).map((m) => [m.id, m.name]));
  const pool = new Map<string, string[]>();
  for (const r of now) {
    const k = keyOf({
      speaker: r.speaker,
      speakerId: r.speaker_id,
      startMs: r.start_ms === null ? null : Number(r.start_ms),
      endMs: r.end_ms === null ? null : Number(r.end_ms),
      text: r.text,
    });
    pool.set(k, [...(pool.get(k) ?? []), r.line_id]);
  }
  return given.map((l) => {
    let speakerId: string | null = null;
    let speaker = l.speaker;
    if (names.has(l.speaker)) {
      speakerId = l.speaker;
      speaker = names.get(l.speaker)!;
    } else if (!MEMBER_ID.test(l.speaker)) {
      // A speaker label is a member only when it is exactly one attendee's full name.
      const full = attendees.filter((a) => a.principalId !== null && a.name !== null && fold(a.name) === fold(l.speaker));
      if (full.length === 1) speakerId = full[0].principalId;
    }
    const planned = { speaker: speaker || 'Unknown', speakerId, startMs: l.startMs, endMs: l.endMs, text: l.text, sourceLineId: l.sourceLineId };
    const k = keyOf(planned);
    const free = pool.get(k);
    const lineId = free && free.length > 0 ? free.shift()! : null;
    return { ...planned, lineId };
  });
}
