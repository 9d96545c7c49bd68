import type { Reference } from '../../refs.js';
import { orNull } from '../../refs.js';
import { callAccess, READABLE_CALL_IDS_SQL } from './model.js';

/** A call, read by those its channel lets in; its host edits it. */
export const callingReferences: Readonly<Record<string, Reference>> = {
  call: {
    type: 'call',
    scope: 'org.read',
    read: async (q, orgId, id, p) => {
      const found = await orNull(() => callAccess(q, orgId, id, p.id));
      return found && { editor: found.call.host_id === p.id };
    },
    readableIdsSql: READABLE_CALL_IDS_SQL,
  },
};
