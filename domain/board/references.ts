import type { Reference } from '../refs.js';
import { findWorkstream } from './model.js';
import { taskHolding } from './people.js';

/** Tasks and workstreams, read org-wide with board.read; board.write edits them. */
export const boardReferences: Readonly<Record<string, Reference>> = {
  task: {
    type: 'task',
    scope: 'board.read',
    read: async (q, orgId, id, p) => ((await taskHolding(q, orgId, id)) ? { editor: p.scopes.has('board.write') } : null),
  },
  ws: {
    type: 'workstream',
    scope: 'board.read',
    read: async (q, orgId, id, p) => ((await findWorkstream(q, orgId, id)) ? { editor: p.scopes.has('board.write') } : null),
  },
};
