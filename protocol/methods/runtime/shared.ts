import { z } from 'zod';

/** What the runtime's control-plane contracts share: the no-op flag and the instants they answer. */

export const changed = z.boolean().describe('false when it was already so (its event says noop).');

export const instant = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-30T09:00:00Z' }).describe(description);

/** A board task the work is for (task_…): carried as given, for joining spend and presence to the board. */
export const taskRef = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^task_[A-Za-z0-9]+$/, 'must be an id of the form task_…')
  .describe('The board task this is for (task_…).');
