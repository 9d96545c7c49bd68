import { family, type Family } from '../../core/family.js';
import { create, createConversation, resolveOrCreateDm } from './create.js';
import { addMember, removeMember, updateMemberRole } from './members.js';
import { markRead, markUnreadFrom, update } from './update.js';
import { recordVisibility } from '../../event-records.js';
import { channelReferences } from './references.js';

/*
 * channel.*: channels, group conversations and DMs, their members and roles, and each member's read marker.
 * Events carry ids, kinds, roles, seqs and counts: never a name, title or topic.
 */
export const channelHandlers = family('channel', {
  create,
  createConversation,
  resolveOrCreateDm,
  addMember,
  removeMember,
  update,
  updateMemberRole,
  markRead,
  markUnreadFrom,
});

/** Who sees a channel event: those who may read the channel (member, or public), its actor, and the member it names. */
export const channelEvents = recordVisibility({ records: (e, p) => [p.channelId ?? p.subjectId ?? e.entity_id] });

/** The channel family, as domain/deployed.ts lists it. */
export const channelFamily: Family = {
  name: 'channel',
  methods: channelHandlers,
  eventVisibility: { channel: channelEvents },
  contributes: { references: channelReferences },
};

export { managesChannel } from './access.js';
