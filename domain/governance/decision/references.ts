import type { Reference } from '../../refs.js';
import { decisionHolding } from './driver.js';

/** A decision (dec_), read org-wide; its driver and admins edit it. */
export const decisionReferences: Readonly<Record<string, Reference>> = {
  dec: {
    type: 'decision',
    scope: 'org.read',
    read: async (q, orgId, id, p) => {
      const d = await decisionHolding(q, orgId, id);
      return d ? { editor: d.driver === p.id || p.scopes.has('admin') } : null;
    },
  },
};
