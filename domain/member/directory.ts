import { peopleReadContracts } from '../../protocol/reads/people.js';
import { reads } from '../family.js';
import { readHandler } from '../handler.js';
import { listMembers } from './list.js';

/** GET /directory: member cards. Its own short transaction, as search settings are transaction-local. */
export const directory = readHandler(peopleReadContracts.directory, async (ctx, query) => {
  const page = await ctx.deps.db.tx((q) => listMembers(q, ctx.orgId, { ...query, prefix: 'query' }));
  return {
    members: page.members.map(({ id, kind, name, handle, email, title, managerId, timezone, status, teams }) => ({
      id,
      kind,
      name,
      handle,
      email,
      title,
      managerId,
      timezone,
      status,
      teams,
    })),
    nextCursor: page.nextCursor,
  };
});

export const peopleReads = reads({ directory });
