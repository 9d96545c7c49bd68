import { policyReadContracts } from '../../protocol/reads/policy.js';
import { reads } from '../family.js';
import { readHandler } from '../handler.js';
import { booksPolicy } from './policy.js';

export const policy = readHandler(policyReadContracts.policy, async (ctx) => ({ books: await booksPolicy(ctx.q, ctx.orgId) }));

export const booksReads = reads({ policy });
