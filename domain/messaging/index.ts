import { family } from '../family.js';
import { channels } from './channels.js';
import { history } from './history.js';
import { send } from './send.js';
import { messagingLifecycleHandlers } from './lifecycle.js';

/*
 * messaging.*: the core (send, history, channels). The message lifecycle (edit, delete, pin, react, bookmark,
 * polls, schedule) joins this family with its own handlers. Events carry ids, seqs and counts: never a word.
 */
export const messagingHandlers = family('messaging', { send, history, channels, ...messagingLifecycleHandlers });
