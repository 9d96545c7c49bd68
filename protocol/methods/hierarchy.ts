import { z } from 'zod';
import { method } from '../contract.js';
import { proofFields } from '../schema.js';
import { memberId } from './member.js';

/** The org chart as a whole: one atomic re-parenting (an HRIS import, a reorg). */

export const MAX_HIERARCHY_LINES = 5000;

const Line = z.strictObject({
  memberId: memberId('The member whose manager this line sets.'),
  managerId: memberId('Its manager; null puts it at the top of the chart.').nullable(),
});

export const hierarchy = {
  set: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Set many reporting lines at once, checked as one forest: any bad line (unknown or archived member, a member listed twice, a cycle) fails the whole call naming it (`lines.17.managerId`) and nothing changes. expectedRevision must be the current chart revision (GET /hierarchy), else CONFLICT. An agent caller gets a hold for a human (a reorg changes who approves what).',
    params: z.strictObject({
      lines: z
        .array(Line)
        .min(1)
        .max(MAX_HIERARCHY_LINES, `must list at most ${MAX_HIERARCHY_LINES} lines`)
        .describe('The lines to set; members not listed keep their manager.'),
      expectedRevision: z.number().int().min(0).describe('The chart revision these lines were computed from (GET /hierarchy revision).'),
      ...proofFields,
    }),
    result: z.strictObject({
      lines: z.number().int().describe('Lines given.'),
      moved: z.number().int().describe('Members whose manager changed.'),
      revision: z.number().int().describe('The chart revision now.'),
      changed: z.boolean().describe('false when every line was already so (its event says noop).'),
    }),
    events: ['hierarchy.lines.set'],
    example: { lines: [{ memberId: 'usr_0123456789abcdef', managerId: 'usr_fedcba9876543210' }], expectedRevision: 12 },
  }),
};
