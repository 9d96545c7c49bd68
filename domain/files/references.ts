import type { Reference } from '../refs.js';
import { orNull } from '../refs.js';
import { callerOf, fileAccess, READABLE_FILE_IDS_SQL, roleRank } from './access.js';

/** What annotations and pins may point at in the drive: a file (fil_), read as its access rules answer. */
export const filesReferences: Readonly<Record<string, Reference>> = {
  fil: {
    type: 'file',
    scope: 'files.read',
    read: async (q, orgId, id, p) => {
      const file = await orNull(() => fileAccess(q, orgId, id, callerOf(p), 'viewer'));
      return file && { file, editor: roleRank(file.role) >= roleRank('editor') };
    },
    readableIdsSql: READABLE_FILE_IDS_SQL,
  },
};
