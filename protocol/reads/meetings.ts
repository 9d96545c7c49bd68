import { z } from 'zod';
import { read } from '../contract.js';
import { limit, text } from '../schema.js';
import { Line, Meeting, meetingId } from '../methods/meetings.js';

const instant = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' }).describe(description);

export const meetingsReadContracts = {
  'meetings.list': read({
    summary:
      'Meetings you may see, newest first (a private event’s or a non-public call’s meeting: its attendees only): between from and to (by start), q (words of the title, notes, transcript, decisions and actions), attendeeId (a member who attended). With id: that meeting; include=transcript adds its current lines (mtl_…).',
    query: z.strictObject({
      id: meetingId('One meeting.').optional(),
      include: z.enum(['transcript']).describe('With id: transcript adds the lines.').optional(),
      from: instant('Meetings that started at or after this.').optional(),
      to: instant('Meetings that started before this.').optional(),
      q: text({ min: 1, max: 256, description: 'Search words (websearch syntax).' }).optional(),
      attendeeId: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id usr_… or agt_…')
        .describe('Only meetings this member attended.')
        .optional(),
      cursor: text({ max: 200, description: 'The nextCursor of the previous page.' }).optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({
      meetings: z.array(Meeting).optional().describe('Without id: this page.'),
      nextCursor: z.string().nullable().optional(),
      meeting: Meeting.optional().describe('With id: the meeting.'),
      lines: z.array(Line).optional().describe('With id and include=transcript: its current lines, in order.'),
    }),
    example: { from: '2026-11-01T00:00:00Z', limit: 20 },
  }),
};
