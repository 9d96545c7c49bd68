import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';
import { changed, emailId, mailboxId, memberId } from './shapes.js';

/**
 * Spam and rules (scope email.write, rules also email.read). A rule is data in a closed grammar: `when` is all, any
 * or not over enumerated fields and operators (no regex, no code), `then` a list of acts that file, mark, assign,
 * hold or triage mail; nothing a rule does sends or forwards mail. Events carry ids, counts, statuses, hashes and
 * senders' domains: never a rule's name, its values, an address or a folder path.
 */

export const AUTH_VERDICTS = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'] as const;
export const RULE_TEXT_FIELDS = ['from', 'fromDomain', 'to', 'cc', 'subject', 'body', 'listId'] as const;
export const RULE_OPS = ['is', 'contains', 'startsWith', 'endsWith', 'matchesDomain'] as const;
export const TRIAGE_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
/** Most conditions in one rule, actions in one rule, and rules in one mailbox. */
export const MAX_CONDITIONS = 20;
export const MAX_ACTIONS = 6;
export const MAX_RULES = 100;

const ruleId = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^rul_[A-Za-z0-9]+$/, 'must be an id of the form rul_…')
  .describe('The rule.');

const TextCondition = z.strictObject({
  field: z
    .enum(RULE_TEXT_FIELDS)
    .describe(
      "from: the sender's address; fromDomain: its domain; to, cc: any address there; subject; body: the plain text; listId: the List-Id (e.g. news.example.com).",
    ),
  op: z.enum(RULE_OPS).describe('Case-insensitive. matchesDomain: the domain or one under it (addresses, fromDomain and listId only).'),
  value: text({ min: 1, max: 200, description: 'The text compared (lower and upper case alike).' }),
});
const AttachmentCondition = z.strictObject({
  field: z.literal('hasAttachment'),
  op: z.literal('is'),
  value: z.boolean().describe('true: the message has an attachment.'),
});
const DmarcCondition = z.strictObject({
  field: z.literal('dmarc'),
  op: z.literal('is'),
  value: z.enum(AUTH_VERDICTS).describe("The message's DMARC verdict (mail without one counts as none)."),
});

export const RuleCondition = z.discriminatedUnion('field', [TextCondition, AttachmentCondition, DmarcCondition]);
const Negated = z.strictObject({ not: RuleCondition });
const Item = z.union([RuleCondition, Negated]);
const items = z
  .array(Item)
  .min(1, 'must list at least one condition')
  .max(MAX_CONDITIONS, `must list at most ${MAX_CONDITIONS} conditions`)
  .describe('Conditions: {field, op, value}, or {not: {field, op, value}}.');

export const RuleWhen = z
  .union([z.strictObject({ all: items }), z.strictObject({ any: items }), Negated])
  .describe('all: every condition holds; any: at least one; not: the condition does not hold.');

const Triage = z
  .strictObject({
    category: text({ min: 1, max: 40, description: 'A category, e.g. billing.' }).optional(),
    priority: z.enum(TRIAGE_PRIORITIES).optional(),
  })
  .refine((t) => t.category !== undefined || t.priority !== undefined, 'give category, priority or both');

export const RuleAction = z.union([
  z.strictObject({ move: text({ min: 1, max: 200, description: 'A folder path (made if new); never Trash, Spam (use spam), Drafts or Sent.' }) }),
  z.strictObject({ markRead: z.literal(true).describe('Read for every member of the mailbox.') }),
  z.strictObject({ assign: memberId('A member of the mailbox who answers the thread (when no one does yet).') }),
  z.strictObject({ spam: z.literal(true).describe('To Spam (a rule a person wrote only).') }),
  z.strictObject({ holdReplies: z.literal(true).describe("Hold agents' replies on the thread for a person's review.") }),
  z.strictObject({ triage: Triage }),
]);
export const RuleThen = z
  .array(RuleAction)
  .min(1, 'must list at least one action')
  .max(MAX_ACTIONS, `must list at most ${MAX_ACTIONS} actions`)
  .describe('What to do, in order: move, markRead, assign, spam, holdReplies, triage (each at most once). Nothing sends or forwards.');

export const RuleMatch = z.strictObject({
  matched: z.boolean(),
  because: z.array(z.string()).describe('The conditions that decided it, in words.'),
});

export const Rule = z.strictObject({
  id: z.string().describe('rul_…'),
  mailboxId: z.string(),
  name: z.string(),
  position: z.number().int().describe('Rules run in this order.'),
  enabled: z.boolean(),
  when: RuleWhen,
  then: RuleThen,
  description: z.string().describe('The rule in words.'),
  authorId: z.string(),
  updatedBy: z.string(),
  enabledBy: z.string().nullable().describe('The person who last enabled it.'),
  createdAt: z.string(),
  updatedAt: z.string(),
  match: RuleMatch.optional().describe('With rules {messageId}: whether the rule matches that message, and why.'),
});

const Existing = z
  .strictObject({
    scanned: z.number().int().describe('Received messages looked at (Spam and Trash left out; newest 5000 at most).'),
    matched: z.number().int(),
    moved: z.number().int().describe('Messages that changed folder.'),
    threads: z.number().int().describe('Threads assigned, held or triaged.'),
  })
  .nullable()
  .describe('applyToExisting: what the rule did to mail already here; null when not asked or the rule is disabled.');

export const emailRules = {
  reportSpam: method({
    summary:
      'Report messages (or threads) as spam: they move to Spam; block: sender or domain makes later mail from the same sender or domain land in Spam. spam:false moves them back to Inbox and lifts blocks on their senders. People only: agents may not move mail to Spam.',
    params: z.strictObject({
      ids: z
        .array(
          z
            .string()
            .max(64, 'must be at most 64 characters')
            .regex(/^(eml|thr)_[A-Za-z0-9]+$/, 'must be a message (eml_…) or thread (thr_…) id'),
        )
        .min(1, 'must list at least one id')
        .max(500, 'must list at most 500 ids')
        .describe('Received messages (eml_…) or threads (thr_…).'),
      spam: z.boolean().describe('true: spam (to Spam); false: not spam (back to Inbox).'),
      block: z.enum(['sender', 'domain']).optional().describe("With spam:true: block the senders' addresses, or their whole domains, in this mailbox."),
    }),
    result: z.strictObject({
      moved: z.number().int(),
      blocked: z.number().int().describe('Senders or domains newly blocked.'),
      unblocked: z.number().int().describe('Blocks lifted (spam:false).'),
      changed,
    }),
    events: ['email.message.report_spam'],
    example: { ids: ['eml_0123456789abcdef'], spam: true, block: 'domain' },
  }),
  ruleSave: method({
    summary:
      "Create a rule (mailboxId, when, then) or change one (ruleId; the fields given replace). Rules run on arriving mail in order; applyToExisting also runs it over the mailbox's mail now. A person's rule starts enabled; an agent's starts (and after an agent's change, goes back to) disabled until a person enables it. Nothing a rule does sends mail.",
    params: z.strictObject({
      ruleId: ruleId.optional(),
      mailboxId: mailboxId('The mailbox (a new rule).').optional(),
      name: text({ max: 80, description: 'A name to know it by.' }).optional(),
      when: RuleWhen.optional(),
      then: RuleThen.optional(),
      applyToExisting: z.boolean().default(false).describe("Also run it over the mailbox's received mail now (an enabled rule only)."),
    }),
    result: z.strictObject({ rule: Rule, existing: Existing, changed }),
    events: ['email.rule.save'],
    example: {
      mailboxId: 'mbx_0123456789abcdef',
      name: 'Invoices',
      when: {
        all: [
          { field: 'fromDomain', op: 'is', value: 'client.example' },
          { field: 'subject', op: 'contains', value: 'invoice' },
        ],
      },
      then: [{ move: 'Finance' }, { markRead: true }],
    },
  }),
  ruleSetEnabled: method({
    summary:
      "Enable or disable a rule. Enabling an agent's rule, or any rule, is a person's act; an agent may disable only its own. Already so: changed:false.",
    params: z.strictObject({
      ruleId,
      enabled: z.boolean().describe("true: the rule runs on mail as it arrives (enabling an agent's rule is a person's act); false: it stops."),
    }),
    result: z.strictObject({ rule: Rule, changed }),
    events: ['email.rule.set_state'],
    example: { ruleId: 'rul_0123456789abcdef', enabled: true },
  }),
  rules: method({
    summary: "A mailbox's rules in the order they run, each in words; with messageId, whether each matches that message and which conditions decided it.",
    params: z.strictObject({ mailboxId: mailboxId('The mailbox.'), messageId: emailId('Explain the rules against this message of the mailbox.').optional() }),
    result: z.strictObject({ rules: z.array(Rule) }),
    example: { mailboxId: 'mbx_0123456789abcdef' },
  }),
};
