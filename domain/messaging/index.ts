import { currentKind } from '../../protocol/events.js';
import { family, type Family } from '../core/family.js';
import { channels } from './channels.js';
import { history } from './history.js';
import { send } from './send.js';
import { messagingLifecycleHandlers } from './lifecycle.js';
import { recordVisibility } from '../event-records.js';
import { messagingLifecycleJobs } from './lifecycle.js';
import { messagingReferences } from './references.js';

/*
 * The messaging group: channel.* (channel/), messaging.* (this folder) and calling.* (calling/: a call is a huddle
 * in a channel). They share channels, their members and the message sequence, so they are one module: other
 * families reach any of them only through this file.
 *
 * messaging.*: the core (send, history, channels). The message lifecycle (edit, delete, pin, react, bookmark,
 * polls, schedule) joins this family with its own handlers. Events carry ids, seqs and counts: never a word.
 */
export const messagingHandlers = family('messaging', { send, history, channels, ...messagingLifecycleHandlers });

/**
 * Who sees a messaging event on GET /events and the stream: those who may read its channel (a hold: its subject),
 * its actor, and the principal it names; a scheduled or failed message's events are its author's alone.
 */
export const messagingEvents = recordVisibility({
  records: (e, p) => [p.channelId ?? p.subjectId ?? e.entity_id],
  ownOnly: (e, p) =>
    ['messaging.message.schedule', 'messaging.message.fail'].includes(currentKind(e.family, e.kind)) ||
    p.status === 'scheduled' ||
    p.status === 'failed' ||
    p.from === 'scheduled' ||
    p.from === 'failed',
});

/** The messaging family, as domain/deployed.ts lists it. */
export const messagingFamily: Family = {
  name: 'messaging',
  methods: messagingHandlers,
  eventVisibility: { messaging: messagingEvents },
  jobs: messagingLifecycleJobs,
  contributes: { references: messagingReferences },
};

/** The group's other families, as domain/deployed.ts lists them. */
export { callingFamily } from './calling/index.js';
export { channelFamily } from './channel/index.js';

/** A call's attendees and transcript as the meetings family records them (read as the caller, nothing written). */
export { callForMeeting, type CallForMeeting } from './calling/for-meeting.js';

/** Calls as an outside guest sees them (crm.addCallGuest and the deal room): checked as the admitting member, read by id. */
export { callForGuest, guestCalls, type GuestCall } from './calling/for-guest.js';

/** What messages embed from other families: the extension point (messageEmbeds) artifacts contribute to. */
export type { MessageEmbeds } from './embeds.js';

/** Who may read a channel: for records shown in its messages (artifacts), by the channels' own rule. */
export { canReadChannel, READABLE_CHANNELS_SQL } from './channel/access.js';
