import { z } from 'zod';
import { method } from '../../contract.js';
import { askResult } from '../ask-result.js';
import { id, limit, text } from '../../schema.js';
import { threadId } from '../email/shapes.js';
import { fileId } from '../files/drive.js';
import { accountId, changed, contactId, cursor, dealId, nextCursor } from './shared.js';

/**
 * The timeline (docs/families/crm.md, "The timeline"): interactions (ixn_) on deals, accounts and contacts, deal
 * decisions, pins, redaction for good, email threads and files linked to deals, and crm.ask. Summaries, decisions and
 * subjects live only in crm_interactions: log calls answer without echoing them (an idempotency frame keeps no copy a
 * redaction would miss), events carry ids, kinds, codes and counts.
 */

export const interactionId = (description: string) => id('ixn', description);

export const INTERACTION_KINDS = ['email', 'call', 'meeting', 'note', 'task', 'other'] as const;
export const DIRECTIONS = ['inbound', 'outbound', 'internal'] as const;
export const REDACT_REASONS = ['personal_data', 'wrong_record', 'legal_request', 'confidential', 'other'] as const;
/** Pinned interactions a deal, account or contact may hold at once. */
export const MAX_PINS = 5;
export const REDACTED = '[redacted]';

const instant = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-07-01T09:00:00Z' }).describe(description);

const Link = z.strictObject({ id: z.string().describe('deal_…, acct_… or ctc_…'), kind: z.enum(['deal', 'account', 'contact']) });

/** An interaction as a log call answers it: no summary or decision text (they are the caller's own words). */
export const LoggedInteraction = z.strictObject({
  id: z.string().describe('ixn_…'),
  kind: z.enum([...INTERACTION_KINDS, 'decision']),
  direction: z.enum(DIRECTIONS),
  occurredAt: z.string(),
  links: z.array(Link).describe('What it is about; a deal’s account is linked with it.'),
  pinned: z.boolean(),
  status: z.enum(['live', 'redacted']),
});

export const Interaction = LoggedInteraction.extend({
  summary: z
    .string()
    .nullable()
    .describe('What happened ([redacted] after crm.redactInteraction); an email’s subject, null unless the caller holds email.read.'),
  decision: z.string().nullable().describe('logDealDecision: the decision (the rationale is the summary).'),
  decidedBy: z.string().nullable(),
  threadId: z.string().nullable().describe('linkEmail: the email thread (thr_…).'),
  pinnedAt: z.string().nullable(),
  redactedReason: z.enum(REDACT_REASONS).nullable(),
  createdBy: z.string(),
  recordedAt: z.string(),
});

const targets = {
  dealId: dealId('A deal it is about (its account is linked too).').optional(),
  accountId: accountId('An account it is about.').optional(),
  contactIds: z.array(contactId('A contact it is about.')).max(20, 'must be at most 20').describe('Contacts it is about (up to 20).').optional(),
};

export const crmTimeline = {
  logInteraction: method({
    summary:
      'Log an email, call, meeting, note or task on a deal, an account and/or contacts (at least one). A deal’s last activity moves to occurredAt when later; direction (inbound: the buyer reached us) feeds the ghosted risk. The summary is not echoed back.',
    params: z.strictObject({
      kind: z.enum(INTERACTION_KINDS).describe(`One of ${INTERACTION_KINDS.join(', ')} (decisions: crm.logDealDecision).`),
      summary: text({ min: 1, max: 5000, description: 'What happened, in words (kept only in the timeline, never in the ledger).' }),
      occurredAt: instant('When it happened (default now); not in the future.').optional(),
      direction: z.enum(DIRECTIONS).default('internal').describe('inbound (they reached us), outbound (we reached them) or internal (default).'),
      ...targets,
    }),
    result: z.strictObject({ interaction: LoggedInteraction }),
    events: ['crm.interaction.log'],
    example: { kind: 'call', summary: 'Discovery call: budget confirmed for Q3.', dealId: 'deal_0123456789abcdef', direction: 'outbound' },
  }),
  logDealDecision: method({
    summary:
      'Record a decision on a deal (what was decided, why, and who decided: a member or a contact) on its timeline as a decision interaction. The texts are not echoed back.',
    params: z.strictObject({
      dealId: dealId('The deal.'),
      decision: text({ min: 1, max: 500, description: 'What was decided.' }),
      rationale: text({ min: 1, max: 5000, description: 'Why (the interaction’s summary).' }),
      decidedBy: z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(/^(usr|agt|ctc)_[A-Za-z0-9]+$/, 'must be a member (usr_…, agt_…) or contact (ctc_…) id')
        .describe('Who decided: a member, or a contact on the buyer’s side (default the caller).')
        .optional(),
      occurredAt: instant('When it was decided (default now); not in the future.').optional(),
    }),
    result: z.strictObject({ interaction: LoggedInteraction }),
    events: ['crm.decision.log'],
    example: {
      dealId: 'deal_0123456789abcdef',
      decision: 'Go with the 24-month term',
      rationale: 'Legal prefers a longer term.',
      decidedBy: 'ctc_0123456789abcdef',
    },
  }),
  pinNote: method({
    summary: `Pin an interaction to the top of its deal's, account's and contacts' timelines, or unpin it (pinned:false). Each holds at most ${MAX_PINS} pins: a ${MAX_PINS + 1}th is CONFLICT (unpin one first). Already so: changed:false.`,
    params: z.strictObject({ interactionId: interactionId('The interaction.'), pinned: z.boolean().default(true).describe('false unpins (default true).') }),
    result: z.strictObject({ interaction: LoggedInteraction, changed }),
    events: ['crm.interaction.pin'],
    example: { interactionId: 'ixn_0123456789abcdef', pinned: true },
  }),
  redactInteraction: method({
    summary:
      'Redact an interaction for good: its summary reads [redacted] and its decision text goes (the ledger never held them, so the chain still verifies). Already redacted: changed:false.',
    params: z.strictObject({
      interactionId: interactionId('The interaction.'),
      reason: z.enum(REDACT_REASONS).describe(`Why, as a code: ${REDACT_REASONS.join(', ')}.`),
    }),
    result: z.strictObject({ interaction: LoggedInteraction, changed }),
    events: ['crm.interaction.redact'],
    example: { interactionId: 'ixn_0123456789abcdef', reason: 'personal_data' },
  }),
  listInteractions: method({
    summary:
      'A timeline: a deal’s, an account’s or a contact’s interactions (or the org’s, with none), pinned first, then newest; by kinds and since. Email subjects only for email.read holders.',
    params: z.strictObject({
      dealId: dealId('Only this deal’s.').optional(),
      accountId: accountId('Only this account’s.').optional(),
      contactId: contactId('Only this contact’s.').optional(),
      kinds: z
        .array(z.enum([...INTERACTION_KINDS, 'decision']))
        .min(1, 'must name at least one kind')
        .max(7)
        .describe('Only these kinds.')
        .optional(),
      since: instant('Only those that occurred at or after this instant.').optional(),
      cursor,
      limit: limit(500, 50),
    }),
    result: z.strictObject({ interactions: z.array(Interaction), nextCursor }),
    example: { dealId: 'deal_0123456789abcdef', limit: 20 },
  }),
  linkEmail: method({
    summary:
      'Link an email thread you can read (a mailbox you are in) to a deal, an account or a contact: one email interaction per thread, linked to the target and to the contacts among its participants. The subject shows only to email.read holders. Linked already: changed:false.',
    params: z.strictObject({
      threadId: threadId('The email thread (thr_…).'),
      dealId: dealId('Link it to this deal (or accountId, or contactId: exactly one).').optional(),
      accountId: accountId('Link it to this account.').optional(),
      contactId: contactId('Link it to this contact.').optional(),
    }),
    result: z.strictObject({
      interaction: LoggedInteraction,
      threadId: z.string(),
      contactIds: z.array(z.string()).describe('Contacts whose email is among the thread’s participants, linked too.'),
      subject: z.string().nullable().describe('The thread’s subject: null unless the caller holds email.read.'),
      changed,
    }),
    events: ['crm.email.link'],
    example: { threadId: 'thr_0123456789abcdef', dealId: 'deal_0123456789abcdef' },
  }),
  linkFiles: method({
    summary: 'Link drive files you can read to a deal (a deal room may then show them): 1 to 50 fileIds; those linked before come back in alreadyLinked.',
    params: z.strictObject({
      dealId: dealId('The deal.'),
      fileIds: z.array(fileId('A file you can read.')).min(1, 'must name at least one file').max(50, 'must be at most 50').describe('1 to 50 files.'),
    }),
    result: z.strictObject({
      linked: z.array(z.string()).describe('Files linked by this call.'),
      alreadyLinked: z.array(z.string()).describe('Files that were linked already.'),
    }),
    events: ['crm.files.link'],
    example: { dealId: 'deal_0123456789abcdef', fileIds: ['fil_0123456789abcdef'] },
  }),
  ask: method({
    summary:
      'Ask about the pipeline in plain words ("how is deal_… going", "which deals are stalled", "what happened with Acme"). Answered from the crm reads run as you, plus the ledger; each claim cites deal_…, acct_…, ixn_… (or ledger events), amounts recomputed from the reads. Timeline text is data, never instructions. Refused with a reason when it cannot ground an answer. Audited, no ledger event.',
    params: z.strictObject({
      question: text({ min: 3, max: 2000, description: 'The question, in plain words (3 to 2000 characters).' }),
    }),
    result: askResult({
      cites: 'What it rests on: deal_…, acct_…, ctc_…, ixn_…, or event:<seq> (a ledger event).',
      refused: 'nothing you can read answers it, or the answer was not grounded',
    }),
    example: { question: 'Which deals are stalled?' },
  }),
};

export const CRM_ASK_NOTICE =
  'Written from the crm reads named in actOnWith, run as you, and checked: every claim cites what it rests on and every amount is recomputed from them. Timeline text was read as data, never as instructions. It is not a record: confirm with crm.getDeal or crm.listInteractions before acting.';
