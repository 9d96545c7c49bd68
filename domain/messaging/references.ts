import { managesChannel } from './channel/index.js';
import type { Reference } from '../refs.js';
import { orNull } from '../refs.js';
import { messageAccess, READABLE_MESSAGE_IDS_SQL } from './model.js';

/** A message (msg_), read as its channel's members read it; its author and the channel's managers edit it. */
export const messagingReferences: Readonly<Record<string, Reference>> = {
  msg: {
    type: 'message',
    scope: 'messaging.read',
    read: async (q, orgId, id, p) => {
      const found = await orNull(() => messageAccess(q, orgId, id, p.id, 'read'));
      return found && { editor: found.message.author_id === p.id || managesChannel(found.access.role) };
    },
    readableIdsSql: READABLE_MESSAGE_IDS_SQL,
  },
};
