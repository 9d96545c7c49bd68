import { z } from 'zod';
import { method } from '../contract.js';
import { text } from '../schema.js';

export const DecisionRight = z.strictObject({
  area: text({ min: 1, max: 100, description: 'What is decided: a family (`board`), a method (`board.assign`) or a named area (`hiring`).' }),
  decidedBy: text({ min: 1, max: 100, description: 'Who decides: a principal id (usr_…, agt_…), a role, or `humans`.' }),
  escalateTo: text({ min: 1, max: 100, description: 'Who takes it when the decider cannot.' }).optional(),
});

const GovernanceState = z.strictObject({
  declared: z.boolean().describe('True once decision rights are declared: governance-gated (G) methods may run.'),
  rights: z.array(DecisionRight),
  declaredAt: z.string().nullable(),
  declaredBy: z.string().nullable(),
  gatedMethods: z.array(z.string()).describe('The methods that refuse GOVERNANCE_NOT_READY until rights are declared.'),
});

export const governance = {
  set_decision_rights: method({
    summary: 'Declare who decides what in this org (replaces any earlier declaration). Until rights are declared, governance-gated methods answer GOVERNANCE_NOT_READY.',
    params: z.strictObject({
      rights: z
        .array(DecisionRight)
        .min(1, 'must declare at least one right')
        .max(200, 'must have at most 200 rights')
        .describe('Who decides what: one entry per area, 1 to 200.'),
    }),
    result: GovernanceState,
    example: { rights: [{ area: 'board.assign', decidedBy: 'humans' }, { area: 'handoff', decidedBy: 'humans', escalateTo: 'usr_owner' }] },
  }),
  status: method({
    summary: 'Whether decision rights are declared, what they are, and which methods they gate.',
    params: z.strictObject({}),
    result: GovernanceState,
    example: {},
  }),
};
