import { z } from 'zod';
import { method } from '../contract.js';
import { id, int32, limit, proofFields, text } from '../schema.js';

/**
 * Standard operating procedures (docs/families/knowledge.md): versioned steps, each optionally naming the registry
 * method it is done with. draft -> active -> archived; every version carries the SHA-256 of what agents are told.
 * An agent activating an SOP, or changing or archiving an active one, holds for a human.
 */

export const SOP_STATUSES = ['draft', 'active', 'archived'] as const;
export const STEP_KINDS = ['action', 'check', 'decision', 'note'] as const;
export const MAX_STEPS = 100;

export const sopId = (description: string) => id('sop', description);
const changed = z.boolean().describe('false when it was already so (its event says noop).');

const StepInput = z.strictObject({
  id: id('stp', 'An existing step kept (update); omit for a new step.').optional(),
  text: text({ min: 1, max: 2000, description: 'What to do.' }),
  kind: z.enum(STEP_KINDS).default('action').describe('action (default), check, decision or note.'),
  method: z.string().max(100).describe('The registry method it is done with (board.createTask).').optional(),
  requiresHuman: z.boolean().default(false).describe('A human does or signs off this step.'),
});

export const Step = z.strictObject({
  id: z.string().describe('stp_…'),
  text: z.string(),
  kind: z.enum(STEP_KINDS),
  method: z.string().nullable(),
  requiresHuman: z.boolean(),
});

export const Sop = z.strictObject({
  id: z.string().describe('sop_…'),
  slug: z.string(),
  title: z.string(),
  purpose: z.string(),
  trigger: z.string(),
  ownerId: z.string(),
  status: z.enum(SOP_STATUSES),
  version: z.number().int(),
  sha256: z.string().describe('SHA-256 of the version’s canonical content.'),
  steps: z.array(Step),
  updatedAt: z.string(),
  updatedBy: z.string(),
});

const steps = z
  .array(StepInput)
  .min(1, 'must have at least 1 step')
  .max(MAX_STEPS, `must be at most ${MAX_STEPS} steps`)
  .describe('The steps in order (update: the whole list; keep a step by its id).');
const title = text({ min: 1, max: 200, description: 'The title; its slug names the SOP.' });
const purpose = text({ min: 1, max: 2000, description: 'Why the procedure exists.' });
const trigger = text({ max: 500, description: 'When to follow it.' });

export const sop = {
  create: method({
    hold: { completion: 'retry', when: 'an agent creates it active' },
    summary:
      'Create an SOP (draft by default) with up to 100 steps; its slug comes from the title (taken: CONFLICT). A step’s method must be a registry method.',
    params: z.strictObject({
      title,
      purpose,
      trigger: trigger.default(''),
      steps,
      status: z.enum(['draft', 'active']).default('draft').describe('draft (default) or active.'),
      ...proofFields,
    }),
    result: z.strictObject({ sop: Sop }),
    events: ['sop.procedure.create'],
    example: {
      title: 'Month-end close',
      purpose: 'Close the books by the 5th.',
      trigger: 'First working day of the month',
      steps: [
        { text: 'Reconcile the bank feed', method: 'books.matchAccept' },
        { text: 'Sign the BAS', requiresHuman: true },
      ],
    },
  }),
  update: method({
    hold: { completion: 'retry', when: 'an agent activates an SOP or changes an active one' },
    summary:
      'Change an SOP as a new version (ifVersion: the version read, else CONFLICT): title, purpose, trigger, steps (keep a step by its id), status draft or active. Returns the diff. The same: changed:false.',
    params: z.strictObject({
      sopId: sopId('The SOP.'),
      ifVersion: int32(1, 'The version read.'),
      title: title.optional(),
      purpose: purpose.optional(),
      trigger: trigger.optional(),
      steps: steps.optional(),
      status: z.enum(['draft', 'active']).describe('draft, or active (publish).').optional(),
      ...proofFields,
    }),
    result: z.strictObject({
      sop: Sop,
      diff: z.strictObject({
        fields: z.array(z.string()).describe('Top-level fields changed.'),
        added: z.array(z.string()).describe('Step ids added.'),
        removed: z.array(z.string()).describe('Step ids removed.'),
        changed: z.array(z.string()).describe('Step ids whose text, kind, method or requiresHuman changed.'),
        moved: z.boolean().describe('Kept steps in another order.'),
      }),
      changed,
    }),
    events: ['sop.procedure.update'],
    example: { sopId: 'sop_0123456789abcdef', ifVersion: 1, status: 'active' },
  }),
  delete: method({
    hold: { completion: 'retry', when: 'an agent archives an active SOP' },
    summary: 'Archive an SOP (its versions and slug stay). Already archived: changed:false.',
    params: z.strictObject({ sopId: sopId('The SOP.'), ...proofFields }),
    result: z.strictObject({ sop: Sop, changed }),
    events: ['sop.procedure.delete'],
    example: { sopId: 'sop_0123456789abcdef' },
  }),
  list: method({
    summary: 'SOPs by slug, or by relevance with q; status (default draft and active), method: those with a step done with it.',
    params: z.strictObject({
      status: z.enum(SOP_STATUSES).describe('Only this status (default draft and active).').optional(),
      q: text({ min: 1, max: 256, description: 'Search words.' }).optional(),
      method: z.string().max(100).describe('A registry method a step names.').optional(),
      cursor: z.string().max(400, 'must be at most 400 characters').describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({ sops: z.array(Sop), nextCursor: z.string().nullable() }),
    example: { status: 'active', method: 'books.matchAccept' },
  }),
};
