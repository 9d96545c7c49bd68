import { z } from 'zod';
import { method } from '../contract.js';
import { text } from '../schema.js';

const SELECTORS =
  "usr_… or agt_… (a member, by id), `humans`, `owner` (who holds the subject: a decision's driver, a task's holder), or a charter role (`role:<slug>`; a bare slug is a role)";

const party = (description: string) =>
  z
    .array(text({ min: 1, max: 100, description: `A selector: ${SELECTORS}, or \`agents\` or \`anyone\`.` }))
    .max(50, 'must list at most 50 selectors')
    .describe(description);

export const DecisionRight = z.strictObject({
  area: text({
    min: 1,
    max: 100,
    description:
      'What is decided: a decision area (`pricing`, `pricing.eu`), `decision`, `charter`, `charter.<method>`, `handoff`, `handoff.<area>`, `compact` or `*`. An act takes the first match of its lookup order (decision a.b: a.b, a, decision, *).',
  }),
  decidedBy: text({
    min: 1,
    max: 100,
    description: `Who decides (RAPID D): ${SELECTORS}. Admin-scope humans satisfy any; an agent only when named by id with autonomy delegated.`,
  }),
  escalateTo: text({
    min: 1,
    max: 100,
    description: 'Who takes it when the decider cannot (same selectors as decidedBy); its humans approve holds when decidedBy names none.',
  }).optional(),
  agree: party(
    'Agree (A): whose signatures a decision in this area needs on its current version before adoption; an id signs itself, a group or role needs one of its members.',
  ).optional(),
  perform: party('Perform (P): who carries the decision out (a handoff goes only to them).').optional(),
  input: party('Input (I): who is consulted.').optional(),
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
    summary:
      'Declare who decides what in this org (replaces any earlier declaration): per area the decider, escalation and RAPID agree/perform/input selectors. Until rights are declared, governance-gated methods answer GOVERNANCE_NOT_READY.',
    params: z.strictObject({
      rights: z
        .array(DecisionRight)
        .min(1, 'must declare at least one right')
        .max(200, 'must have at most 200 rights')
        .describe('Who decides what: one entry per area, 1 to 200.'),
    }),
    result: GovernanceState,
    events: ['governance.decision_rights.set'],
    example: {
      rights: [
        { area: 'pricing', decidedBy: 'usr_0123456789abcdef', agree: ['role:cfo'], perform: ['agents'], input: ['anyone'] },
        { area: 'handoff', decidedBy: 'owner', escalateTo: 'humans' },
      ],
    },
  }),
  status: method({
    summary: 'Whether decision rights are declared, what they are, and which methods they gate.',
    params: z.strictObject({}),
    result: GovernanceState,
    example: {},
  }),
};
