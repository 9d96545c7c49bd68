import type { Reference } from '../../refs.js';
import { findTeams } from './find.js';

/** A team, read org-wide; org.write edits it. */
export const teamReferences: Readonly<Record<string, Reference>> = {
  team: {
    type: 'team',
    scope: 'org.read',
    read: async (q, orgId, id, p) =>
      (await findTeams(q, orgId, { ids: [id], offset: 0, limit: 1 })).teams.length ? { editor: p.scopes.has('org.write') } : null,
  },
};
