import { z } from 'zod';
import { method } from '../contract.js';
import { id, int32, proofFields, text } from '../schema.js';

/**
 * Memory blocks (docs/families/knowledge.md), as Letta's: a label, a description, a value within a character limit,
 * loaded into the prompts of its audience. Others change a block by amendments on a base version, merged by its
 * owner or an admin, never by the proposer; an agent writing a block other principals load holds for a human.
 */

export const AUDIENCES = ['self', 'org'] as const;
export const AMENDMENT_OPS = ['append', 'replace'] as const;
export const AMENDMENT_STATUSES = ['open', 'merged', 'rejected'] as const;
export const DEFAULT_LIMIT = 2000;

export const blockId = (description: string) => id('mem', description);
export const amendmentId = (description: string) => id('mam', description);
const changed = z.boolean().describe('false when it was already so (its event says noop).');

const Audience = z
  .union([z.enum(AUDIENCES), z.strictObject({ agents: z.array(id('agt', 'An agent.')).min(1, 'must name an agent').max(50, 'must be at most 50 agents') })])
  .describe('self (the owner), org (every agent) or {agents: [agt_…]}.');

export const Block = z.strictObject({
  id: z.string().describe('mem_…'),
  ownerId: z.string(),
  label: z.string(),
  description: z.string(),
  value: z.string(),
  limit: z.number().int(),
  chars: z.number().int(),
  audience: z.union([z.enum(AUDIENCES), z.strictObject({ agents: z.array(z.string()) })]),
  readOnly: z.boolean(),
  version: z.number().int(),
  sha256: z.string().describe('SHA-256 of the value, as the ledger records it.'),
  updatedAt: z.string(),
  updatedBy: z.string(),
});

export const Amendment = z.strictObject({
  id: z.string().describe('mam_…'),
  blockId: z.string(),
  baseVersion: z.number().int(),
  op: z.enum(AMENDMENT_OPS),
  oldText: z.string().nullable(),
  newText: z.string(),
  reason: z.string(),
  proposerId: z.string(),
  status: z.enum(AMENDMENT_STATUSES),
  decidedBy: z.string().nullable(),
  mergedVersion: z.number().int().nullable(),
  createdAt: z.string(),
});

const label = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/, 'must be 1 to 63 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit')
  .describe('The block’s label, one per owner (persona, clients, house-style).');

export const memory = {
  author: method({
    hold: { completion: 'retry', when: 'an agent writes a block other principals load' },
    summary:
      'Write one of your blocks by label (new, or its whole value): value within limit (default 2000 characters). audience: who loads it. ifVersion: the version read, else CONFLICT. The same: changed:false.',
    params: z.strictObject({
      label,
      value: z.string().max(100_000, 'must be at most 100000 characters').describe('The whole value, within the limit.'),
      description: text({ max: 500, description: 'What the block is for, told to the agent (default the current).' }).optional(),
      limit: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(20_000, 'must be at most 20000')
        .describe('Character limit (default 2000, or the current).')
        .optional(),
      audience: Audience.optional(),
      readOnly: z.boolean().describe('Agents may not propose amendments.').optional(),
      ifVersion: int32(0, '0: must be new.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ block: Block, changed }),
    events: ['memory.block.author'],
    example: { label: 'house-style', description: 'How we write to clients.', value: 'Plain words. Sign off with the team name.', audience: 'org' },
  }),
  list: method({
    summary:
      'Memory blocks: humans see all, agents the blocks they load. forAgentId: what that agent loads. format prompt: the compiled text an agent loads (labels, descriptions, values). Open amendments on the listed blocks.',
    params: z.strictObject({
      forAgentId: id('agt', 'The agent whose loaded blocks to list (an agent: itself only).').optional(),
      format: z.enum(['json', 'prompt']).default('json').describe('json (default) or prompt.'),
    }),
    result: z.strictObject({
      blocks: z.array(Block),
      amendments: z.array(Amendment).describe('Open amendments on these blocks.'),
      prompt: z.string().nullable().describe('With format prompt: the compiled blocks.'),
    }),
    example: { forAgentId: 'agt_0123456789abcdef', format: 'prompt' },
  }),
  proposeAmendment: method({
    summary:
      'Propose a change to a block you load, on its current version: append newText, or replace oldText (present exactly once) by newText. The owner or an admin merges it.',
    params: z.strictObject({
      blockId: blockId('The block.'),
      op: z.enum(AMENDMENT_OPS).describe('append or replace.'),
      oldText: z.string().min(1, 'must be at least 1 character').max(20_000).describe('With replace: the text replaced.').optional(),
      newText: z.string().max(20_000).describe('The new text.'),
      reason: text({ min: 1, max: 1000, description: 'Why, for the reviewer.' }),
      baseVersion: int32(1, 'The version read (default the current).').optional(),
    }),
    result: z.strictObject({ amendment: Amendment }),
    events: ['memory.amendment.propose'],
    example: { blockId: 'mem_0123456789abcdef', op: 'append', newText: 'Never promise dates before the PM confirms.', reason: 'Client complaint 12 May.' },
  }),
  mergeAmendment: method({
    hold: { completion: 'retry', when: 'an agent merges into a block other principals load' },
    summary:
      'Merge or reject an open amendment: the block’s owner or an admin, never its proposer. A replace whose oldText is no longer in the block: CONFLICT (stale).',
    params: z.strictObject({
      amendmentId: amendmentId('The amendment.'),
      decision: z.enum(['merge', 'reject']).describe('merge or reject.'),
      ...proofFields,
    }),
    result: z.strictObject({ amendment: Amendment, block: Block, changed }),
    events: ['memory.amendment.merge', 'memory.amendment.reject'],
    example: { amendmentId: 'mam_0123456789abcdef', decision: 'merge' },
  }),
};
