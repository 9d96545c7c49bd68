import type { Reference } from '../../refs.js';
import { orNull } from '../../refs.js';
import { channelAccess, managesChannel, READABLE_CHANNEL_IDS_SQL } from './access.js';

/** A channel (ch_), read by its members (and anyone, when public); its managers edit it. */
export const channelReferences: Readonly<Record<string, Reference>> = {
  ch: {
    type: 'channel',
    scope: 'messaging.read',
    read: async (q, orgId, id, p) => {
      const found = await orNull(() => channelAccess(q, orgId, id, p.id, 'read'));
      return found && { editor: managesChannel(found.role) };
    },
    readableIdsSql: READABLE_CHANNEL_IDS_SQL,
  },
};
