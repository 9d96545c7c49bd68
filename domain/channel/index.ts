import { family } from '../family.js';
import { create, createConversation, resolveOrCreateDm } from './create.js';
import { addMember, removeMember, updateMemberRole } from './members.js';
import { markRead, markUnreadFrom, update } from './update.js';

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
