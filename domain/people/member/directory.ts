import { peopleReadContracts } from '../../../protocol/reads/people.js';
import { reads } from '../../core/family.js';
import { readHandler } from '../../core/handler.js';
import { hierarchy } from './hierarchy.js';
import { listMembers } from './list.js';

/** GET /directory: member cards. Its own short transaction, as search settings are transaction-local. */
export const directory = readHandler(peopleReadContracts.directory, async (ctx, query) => {
  const page = await ctx.deps.db.tx((q) => listMembers(q, ctx.orgId, { ...query }));
  return {
    // The card is the member less its version and timestamps (protocol/reads/people.ts Card).
    members: page.members.map(({ version: _v, createdAt: _c, updatedAt: _u, ...card }) => card),
    nextCursor: page.nextCursor,
  };
});

export const peopleReads = reads({ directory, hierarchy });
