import { z } from 'zod';
import { method } from '../../contract.js';
import { isoDate, limit, text } from '../../schema.js';
import { memberId } from '../member.js';
import { changed, cursor, dealId, expectedVersion, nextCursor, playbookId, recommendationId, RISK_FLAGS, ROLES } from './shared.js';

/**
 * Playbooks and next best action (docs/families/crm.md): rules in JSON Logic syntax run by our own typed evaluator
 * (domain/crm/playbooks/rules.ts; no eval, no json-logic-js) over the design's typed facts, compiled with path
 * diagnostics; runNextBestAction records ranked recommendations with a ready-to-run suggestedCall and never acts;
 * taskFollowThrough turns one into a board task linked to the deal.
 */

export const MAX_RULES = 50;
export const MAX_DEPTH = 8;
export const ACTIONS = ['suggest', 'task', 'holdNextStep', 'flagRisk'] as const;
export const STEP_KINDS = ['send_contract', 'executive_contact', 'free_pilot', 'custom'] as const;
/** crm methods a suggest action may name: each takes dealId, which the run fills in. */
export const SUGGESTABLE = [
  'crm.moveStage',
  'crm.updateDeal',
  'crm.linkContact',
  'crm.closeDeal',
  'crm.getDeal',
  'crm.logInteraction',
  'crm.proposeTerms',
] as const;

/** The typed facts a rule's `var` may name, and their types (number? may be null: no offer, no guest view yet). */
export const FACTS: Readonly<Record<string, 'stage' | 'number' | 'number?' | 'boolean'>> = {
  'deal.stage': 'stage',
  'deal.amountCents': 'number',
  'deal.daysInStage': 'number',
  'deal.daysSinceActivity': 'number',
  'deal.daysToClose': 'number',
  'deal.closeDatePushes': 'number',
  ...Object.fromEntries(ROLES.map((r) => [`hasRole.${r}`, 'boolean' as const])),
  'offer.discountBps': 'number?',
  'room.daysSinceGuestView': 'number?',
  ...Object.fromEntries(RISK_FLAGS.map((f) => [`risk.${f}`, 'boolean' as const])),
};

const ruleId = z
  .string()
  .min(1, 'must be at least 1 character')
  .max(64, 'must be at most 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, _ . - (starting with a letter or digit)')
  .describe('Unique in the playbook.');

const Action = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('suggest'),
    text: text({ min: 1, max: 500, description: 'What to do.' }),
    call: z
      .strictObject({
        method: z.enum(SUGGESTABLE).describe('The method.'),
        params: z.record(z.string(), z.unknown()).default({}).describe('Its params but dealId (added at run).'),
      })
      .optional()
      .describe('Default: crm.taskFollowThrough.'),
  }),
  z.strictObject({
    action: z.literal('task'),
    title: text({ min: 1, max: 200, description: 'Task title.' }),
    dueInDays: z.number().int('must be an integer').min(0, 'must be >= 0').max(365, 'must be at most 365').default(2).describe('Due after the run.'),
  }),
  z.strictObject({
    action: z.literal('holdNextStep'),
    kind: z.enum(STEP_KINDS).describe('The step to stop at.'),
    title: text({ min: 1, max: 200, description: 'The step.' }),
    reason: text({ min: 1, max: 500, description: 'Why.' }),
  }),
  z.strictObject({
    action: z.literal('flagRisk'),
    flag: z
      .string()
      .regex(/^[a-z][A-Za-z0-9_]{0,39}$/, 'must be a camelCase code such as pricingRisk')
      .describe('The org’s own risk code.'),
    text: text({ min: 1, max: 500, description: 'The risk.' }),
  }),
]);

export const Rule = z.strictObject({
  id: ruleId,
  priority: z.number().int('must be an integer').min(1, 'must be >= 1').max(1000, 'must be at most 1000').default(500).describe('1 ranks first (default 500).'),
  when: z
    .unknown()
    .describe(
      `JSON Logic: and or ! == != < <= > >= in var, depth <= ${MAX_DEPTH}. var: deal.{stage,amountCents,daysInStage,daysSinceActivity,daysToClose,closeDatePushes}, hasRole.<role>, offer.discountBps, room.daysSinceGuestView, risk.<flag>. E.g. {">":[{"var":"deal.daysInStage"},21]}`,
    ),
  then: Action.describe('The action.'),
});

export const Definition = z
  .strictObject({
    name: text({ min: 1, max: 200, description: 'The playbook’s name.' }),
    rules: z.array(Rule).min(1, 'must have at least 1 rule').max(MAX_RULES, `must have at most ${MAX_RULES} rules`).describe('Its rules.'),
  })
  .describe('A name and rules.');

export const Diagnostic = z.strictObject({
  path: z.string().describe('Where in the definition (rules[2].when.>[0]).'),
  message: z.string(),
});

export const Playbook = z.strictObject({
  id: z.string().describe('pbk_…'),
  name: z.string(),
  version: z.number().int().describe('1 on the first save, +1 on each change.'),
  enabled: z.boolean().describe('Only enabled playbooks run in next best action.'),
  status: z.enum(['active', 'deleted']),
  rules: z.number().int().describe('How many rules.'),
  definition: Definition,
  createdAt: z.string(),
  updatedAt: z.string(),
});

const SuggestedCall = z
  .strictObject({ method: z.string(), params: z.record(z.string(), z.unknown()) })
  .describe('The call that would follow it, ready to run.');

export const Recommendation = z.strictObject({
  id: z.string().describe('nbr_…'),
  dealId: z.string(),
  rank: z.number().int().describe('1 first: by priority, playbook, rule id, deal id.'),
  priority: z.number().int(),
  playbookId: z.string().nullable().describe('null: a built-in risk rule.'),
  playbookVersion: z.number().int().nullable(),
  ruleId: z.string().describe('The rule (risk.<flag> for a built-in one).'),
  action: z.enum(ACTIONS),
  flags: z.array(z.string()).describe('Risk flags it raises.'),
  text: z.string().describe('What to do.'),
  suggestedCall: SuggestedCall,
});

const FactsOut = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).describe('The facts at the server’s clock.');

export const crmPlaybooks = {
  compilePlaybook: method({
    summary:
      'Check a playbook (a definition, or a saved playbookId) without saving: valid, diagnostics with the path of each problem, the rules as compiled, and with dealId a dry run of which rules fire on that deal now.',
    params: z.strictObject({
      definition: Definition.optional().describe('The playbook to check (or playbookId).'),
      playbookId: playbookId('A saved playbook to check (or definition).').optional(),
      dealId: dealId('Dry-run the rules on this deal at the server’s clock.').optional(),
    }),
    result: z.strictObject({
      valid: z.boolean(),
      diagnostics: z.array(Diagnostic).describe('Empty when valid; savePlaybook refuses the first.'),
      rules: z.array(
        z.strictObject({ id: z.string(), priority: z.number().int(), action: z.enum(ACTIONS), facts: z.array(z.string()).describe('Facts it reads.') }),
      ),
      dryRun: z
        .strictObject({
          dealId: z.string(),
          asOf: z.string(),
          facts: FactsOut,
          fired: z.array(z.strictObject({ ruleId: z.string(), priority: z.number().int(), action: z.enum(ACTIONS), text: z.string() })),
        })
        .nullable()
        .describe('null without dealId, or when not valid.'),
    }),
    example: {
      definition: {
        name: 'Stalled deals',
        rules: [{ id: 'stalled-call', when: { '>': [{ var: 'deal.daysInStage' }, 21] }, then: { action: 'task', title: 'Call the champion', dueInDays: 2 } }],
      },
      dealId: 'deal_0123456789abcdef',
    },
  }),
  savePlaybook: method({
    summary:
      'Save a playbook (new, or a new version of playbookId): compiled first, and the first diagnostic refused as BAD_REQUEST with its path. A new playbook starts disabled (crm.togglePlaybook enables it); a new version keeps its state. The same definition again: changed:false.',
    params: z.strictObject({
      definition: Definition,
      playbookId: playbookId('Save a new version of this playbook.').optional(),
      expectedVersion,
    }),
    result: z.strictObject({ playbook: Playbook, changed }),
    events: ['crm.playbook.save'],
    example: {
      definition: {
        name: 'Stalled deals',
        rules: [{ id: 'stalled-call', when: { var: 'risk.stalled' }, then: { action: 'task', title: 'Call the champion', dueInDays: 2 } }],
      },
    },
  }),
  togglePlaybook: method({
    summary: 'Enable or disable a playbook (next best action runs enabled ones only). Already so: changed:false. Deleted: CONFLICT.',
    params: z.strictObject({ playbookId: playbookId('The playbook.'), enabled: z.boolean().describe('true runs it in next best action.') }),
    result: z.strictObject({ playbook: Playbook, changed }),
    events: ['crm.playbook.toggle'],
    example: { playbookId: 'pbk_0123456789abcdef', enabled: true },
  }),
  deletePlaybook: method({
    summary: 'Delete a playbook (soft: it stops running; its versions and past recommendations stay). Deleted already: changed:false.',
    params: z.strictObject({ playbookId: playbookId('The playbook.') }),
    result: z.strictObject({ playbook: Playbook, changed }),
    events: ['crm.playbook.delete'],
    example: { playbookId: 'pbk_0123456789abcdef' },
  }),
  listPlaybooks: method({
    summary: 'Playbooks, oldest first, with their definitions; deleted ones only with status deleted or all.',
    params: z.strictObject({
      enabled: z.boolean().optional().describe('Only enabled (true) or disabled (false) ones.'),
      status: z.enum(['active', 'deleted', 'all']).default('active').describe('Default active.'),
      cursor,
      limit: limit(500, 100),
    }),
    result: z.strictObject({ playbooks: z.array(Playbook), nextCursor }),
    example: { enabled: true },
  }),
  runNextBestAction: method({
    summary:
      'Rank what to do next on one deal (dealId) or an owner’s open deals (ownerId, up to limit, soonest close first): the built-in risk flags and the enabled playbooks’ rules at the server’s clock, at most 10 per deal. Records the run and its recommendations, each with a ready-to-run suggestedCall; acts on nothing.',
    params: z.strictObject({
      dealId: dealId('One open deal (or ownerId).').optional(),
      ownerId: memberId('Every open deal this member owns (or dealId).').optional(),
      limit: limit(200, 50).describe('With ownerId: at most this many deals, 1 to 200 (default 50).'),
    }),
    result: z.strictObject({
      run: z.strictObject({
        id: z.string().describe('nba_…'),
        dealId: z.string().nullable(),
        ownerId: z.string().nullable(),
        asOf: z.string().describe('The server’s clock the facts were read at.'),
        deals: z.number().int().describe('Deals looked at.'),
        count: z.number().int().describe('Recommendations recorded.'),
      }),
      recommendations: z.array(Recommendation),
    }),
    events: ['crm.nba.run'],
    example: { ownerId: 'usr_0123456789abcdef', limit: 50 },
  }),
  taskFollowThrough: method({
    summary:
      'Make a board task for a deal (in triage, linked to the deal: crm.getDeal lists it): from a recommendation (its text and due date), or a title. A recommendation followed already: its task, created:false.',
    params: z.strictObject({
      dealId: dealId('The deal (open).'),
      recommendationId: recommendationId('Follow this recommendation (or give title).').optional(),
      title: text({ min: 1, max: 200, description: 'The task’s title (default the recommendation’s text).' }).optional(),
      dueDate: isoDate('When it is due (default the rule’s dueInDays after its run).').optional(),
      assignee: memberId('Who does it (default the deal’s delegate, else its owner).').optional(),
    }),
    result: z.strictObject({
      taskId: z.string().describe('task_… on the board.'),
      dealId: z.string(),
      recommendationId: z.string().nullable(),
      title: z.string(),
      dueDate: z.string().nullable(),
      assignee: z.string().nullable(),
      created: z.boolean().describe('false: the recommendation was followed already (its task).'),
    }),
    events: ['crm.task.create'],
    example: { dealId: 'deal_0123456789abcdef', recommendationId: 'nbr_0123456789abcdef' },
  }),
};
