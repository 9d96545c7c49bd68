import { bookmark, unbookmark } from './bookmarks.js';
import { del } from './delete.js';
import { edit } from './edit.js';
import { pin, unpin } from './pins.js';
import { createPoll, votePoll } from './polls.js';
import { react } from './reactions.js';
import { postScheduled, schedule } from './schedule.js';

/**
 * A message's life after (or before) it is sent: schedule (and its posting job), edit, delete, pin/unpin, react,
 * bookmark/unbookmark, createPoll/votePoll. Spread into the messaging family by domain/messaging/index.ts.
 */
export const messagingLifecycleHandlers = { schedule, edit, delete: del, pin, unpin, react, bookmark, unbookmark, createPoll, votePoll };

/** The lifecycle's scheduled jobs (its descriptor lists them). */
export const messagingLifecycleJobs = [postScheduled];
