import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';
import { changed, taskRef } from './shared.js';

/** Presence: what a principal is doing now, until it expires (offline after; an agent's falls back to its registrations' health). */

export const PRESENCE_STATUSES = ['available', 'busy', 'away', 'dnd'] as const;
/** A beat sooner than this after the caller's last one is RATE_LIMITED. */
export const MIN_PRESENCE_SECONDS = 10;

export const Presence = z.strictObject({
  principalId: z.string(),
  status: z.enum([...PRESENCE_STATUSES, 'offline']).describe('offline once expired (an agent: available while a registration is passing or warning).'),
  source: z.enum(['beat', 'registration', 'none']).describe('beat: an unexpired beat; registration: an agent’s registrations; none: nothing says.'),
  taskId: z.string().nullable(),
  statusText: z.string().nullable().describe('Never in the ledger.'),
  expiresAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export const presence = {
  beat: method({
    summary: `Say what you are doing for the next ttlSeconds: status, the task, a short text. Yours only; sooner than ${MIN_PRESENCE_SECONDS} s after your last beat is RATE_LIMITED.`,
    params: z.strictObject({
      status: z.enum(PRESENCE_STATUSES).describe('available, busy, away or dnd.'),
      taskId: taskRef.optional(),
      statusText: text({ max: 100, description: 'A short status line (never in the ledger).' }).optional(),
      ttlSeconds: z
        .number()
        .int('must be an integer')
        .min(30, 'must be at least 30')
        .max(900, 'must be at most 900')
        .default(300)
        .describe('Offline after this (30–900, default 300).'),
    }),
    result: z.strictObject({ presence: Presence, changed }),
    events: ['presence.status.beat'],
    example: { status: 'busy', taskId: 'task_0123456789abcdef', statusText: 'Reconciling October', ttlSeconds: 300 },
  }),
};
