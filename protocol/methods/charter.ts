import { z } from 'zod';
import { method } from '../contract.js';
import { id, int32, limit, proofFields, text } from '../schema.js';
import { decisionId } from './decision.js';

/**
 * The charter: one per org, versioned like Git (every write makes a version naming its parent's content hash and
 * takes baseVersion: not the head, CONFLICT). A title and mission, ordered sections with binding clauses, and a
 * record per colleague whose authority fields (roles, domains, autonomy, reportsTo) the decision rights read.
 * Binding edits (mission, clauses, authority) run under the decision rights (charter.<method>, charter, *;
 * default: humans); an agent's binding edit always holds for a human, and so does one's own authority.
 */

export const AUTONOMY_LEVELS = ['supervised', 'standard', 'delegated'] as const;
export const COLLEAGUE_FIELDS = ['title', 'summary', 'accountabilities', 'contact', 'roles', 'domains', 'autonomy', 'reportsTo'] as const;
/** The colleague fields the decision rights read: editing them is binding. */
export const AUTHORITY_FIELDS = ['roles', 'domains', 'autonomy', 'reportsTo'] as const;
export const MAX_CLAUSES = 100;
export const MAX_SECTIONS = 200;
/** The charter's canonical JSON may not pass this many bytes. */
export const MAX_CHARTER_BYTES = 256 * 1024;

const SLUG = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const sectionId = (description: string) => id('sec', description);
const clauseId = (description: string) => id('cls', description);

const SectionKey = z
  .string()
  .regex(SLUG, 'must be 1 to 63 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit')
  .describe('Short name, unique in the charter.');

export const Clause = z.strictObject({ id: z.string().describe('cls_…'), text: z.string() });
export const Section = z.strictObject({
  id: z.string().describe('sec_…'),
  key: z.string(),
  heading: z.string(),
  body: z.string().describe('Free text (markdown); not binding.'),
  clauses: z.array(Clause).describe('The binding clauses, in order.'),
});
export const Colleague = z.strictObject({
  principalId: z.string().describe('The member (usr_… or agt_…).'),
  title: z.string().nullable(),
  summary: z.string().nullable(),
  accountabilities: z.array(z.string()),
  contact: z.string().nullable().describe('How to reach them, in words.'),
  roles: z.array(z.string()).describe('Authority: charter role slugs (decision-rights selectors role:<slug>).'),
  domains: z.array(z.string()).describe('Authority: what they alone control.'),
  autonomy: z
    .enum(AUTONOMY_LEVELS)
    .nullable()
    .describe(
      'Authority (agents): supervised holds on every governing act; standard (the default) acts as an owner; delegated decides where a right names it by id.',
    ),
  reportsTo: z.string().nullable().describe('Authority: whom they answer to in the charter.'),
});

const meta = {
  id: z.string().describe('chr_…: one per org.'),
  version: z.number().int().describe('The head version (0: nothing written yet).'),
  contentHash: z.string().describe('SHA-256 of the canonical JSON of the whole charter at this version.'),
  parentHash: z.string().nullable().describe('The previous version’s contentHash (null for version 1 and 0).'),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
};
export const CharterHead = z.strictObject({
  ...meta,
  title: z.string(),
  mission: z.string(),
  sections: z.number().int().describe('How many sections.'),
  colleagues: z.number().int().describe('How many colleague records.'),
});
export const Charter = z.strictObject({ ...meta, title: z.string(), mission: z.string(), sections: z.array(Section), colleagues: z.array(Colleague) });
export const CharterVersion = z.strictObject({
  version: z.number().int(),
  contentHash: z.string(),
  parentHash: z.string().nullable(),
  method: z.string().describe('The write that made it (update, addSection, …, amend).'),
  binding: z.boolean().describe('It changed what binds (mission, clauses, authority).'),
  decisionId: z.string().nullable().describe('amend: the adopted decision it applied.'),
  approvalId: z.string().nullable().describe('The approval of the human who decided, when the writer did not.'),
  by: z.string(),
  at: z.string(),
});

const changed = z.boolean().describe('false when the charter was already so (its event says noop).');
const baseVersion = int32(0, 'The head this edit was written against; another head: CONFLICT.').optional();
const heading = text({ min: 1, max: 200, description: 'The section heading.' });
const body = text({ max: 100_000, description: 'Free text (markdown); not binding.' });
const clauses = z
  .array(
    z.strictObject({
      id: clauseId('Keep this clause; omit for a new one.').optional(),
      text: text({ min: 1, max: 5_000, description: 'Binding text.' }),
    }),
  )
  .max(MAX_CLAUSES, `must list at most ${MAX_CLAUSES} clauses`)
  .describe('The clauses in order (binding); replaces the list.');

/** Each write's own params without baseVersion and proofs: what a decision's amendment op carries (charter.amend). */
export const CHARTER_OP_PARAMS = {
  update: z.strictObject({
    title: text({ min: 1, max: 200, description: 'The charter’s title.' }).optional(),
    mission: text({ max: 20_000, description: 'The mission (binding).' }).optional(),
  }),
  addSection: z.strictObject({
    key: SectionKey,
    heading,
    body: body.optional(),
    position: z
      .number()
      .int('must be an integer')
      .min(0, 'must be >= 0')
      .max(MAX_SECTIONS, `must be at most ${MAX_SECTIONS}`)
      .describe('0 first; default last.')
      .optional(),
    clauses: clauses.optional(),
  }),
  updateSection: z.strictObject({ sectionId: sectionId('The section.'), key: SectionKey.optional(), heading: heading.optional(), body: body.optional() }),
  deleteSection: z.strictObject({ sectionId: sectionId('The section.') }),
  reorderSections: z.strictObject({
    order: z
      .array(sectionId('A section.'))
      .max(MAX_SECTIONS, `must list at most ${MAX_SECTIONS} sections`)
      .describe('Every section id of the charter, each once, in the new order.'),
  }),
  updateClauses: z.strictObject({ sectionId: sectionId('The section.'), clauses }),
  editColleagueField: z.strictObject({
    principalId: z
      .string()
      .max(64, 'must be at most 64 characters')
      .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a member id (usr_… or agt_…)')
      .describe('The colleague (a member).'),
    field: z
      .enum(COLLEAGUE_FIELDS)
      .describe(
        'Texts: title, summary, contact; lists: accountabilities, roles, domains; autonomy (agents); reportsTo (member id). roles, domains, autonomy, reportsTo bind.',
      ),
    value: z
      .union([
        text({ max: 5_000, description: 'A text.' }),
        z.array(text({ min: 1, max: 500, description: 'An item.' })).max(50, 'must list at most 50 items'),
        z.null(),
      ])
      .describe('Text, list of texts, or null to clear.'),
  }),
} as const;
export type CharterOp = keyof typeof CHARTER_OP_PARAMS;

const write = <S extends z.ZodObject>(params: S, binding: boolean) => params.extend({ baseVersion, ...(binding ? proofFields : {}) });
const CharterWrite = z.strictObject({ charter: CharterHead, changed });

export const charter = {
  get: method({
    summary:
      'The charter at its head or any version (version), with its version history newest first (paged) and, with diffFrom, a unified diff of the two versions as markdown.',
    params: z.strictObject({
      version: int32(0, 'Read this version (default the head).').optional(),
      diffFrom: int32(0, 'Also diff from this version to the one read.').optional(),
      cursor: z.string().max(40).describe('History: the nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({
      charter: Charter,
      history: z.array(CharterVersion).describe('Versions newest first, from the head.'),
      nextCursor: z.string().nullable(),
      diff: z
        .strictObject({
          from: z.number().int(),
          to: z.number().int(),
          markdown: z.string().describe('A unified diff of the two versions rendered as markdown, in a ```diff block.'),
        })
        .nullable(),
    }),
    example: { diffFrom: 1, limit: 20 },
  }),
  update: method({
    hold: { completion: 'retry', when: "an agent makes a binding edit, or the caller's decision rights do not cover it" },
    summary: 'Set the charter’s title and mission (the mission is binding: decision rights charter.update). Unchanged: changed:false.',
    params: write(CHARTER_OP_PARAMS.update, true),
    result: CharterWrite,
    events: ['charter.document.update'],
    example: { title: 'Acme charter', mission: 'Make bookkeeping effortless for small firms.', baseVersion: 3 },
  }),
  addSection: method({
    hold: { completion: 'retry', when: "an agent makes a binding edit, or the caller's decision rights do not cover it" },
    summary: 'Add a section (default last); its clauses bind (rights charter.addSection). A taken key: CONFLICT.',
    params: write(CHARTER_OP_PARAMS.addSection, true),
    result: z.strictObject({ charter: CharterHead, section: Section, changed }),
    events: ['charter.section.add'],
    example: {
      key: 'spending',
      heading: 'Spending',
      body: 'How money leaves the company.',
      clauses: [{ text: 'Agents never commit spend above their compact limit.' }],
    },
  }),
  updateSection: method({
    summary: 'Change a section’s key, heading or body (not binding; clauses: charter.updateClauses). A deleted section: CONFLICT.',
    params: write(CHARTER_OP_PARAMS.updateSection, false),
    result: z.strictObject({ charter: CharterHead, section: Section, changed }),
    events: ['charter.section.update'],
    example: { sectionId: 'sec_0123456789abcdef', heading: 'Spending and budgets' },
  }),
  deleteSection: method({
    hold: { completion: 'retry', when: "an agent makes a binding edit, or the caller's decision rights do not cover it" },
    summary: 'Delete a section (binding when it has clauses: decision rights charter.deleteSection). Already deleted: changed:false.',
    params: write(CHARTER_OP_PARAMS.deleteSection, true),
    result: z.strictObject({ charter: CharterHead, sectionId: z.string(), changed }),
    events: ['charter.section.delete'],
    example: { sectionId: 'sec_0123456789abcdef' },
  }),
  reorderSections: method({
    summary: 'Put the sections in a new order: list every section id once (not binding).',
    params: write(CHARTER_OP_PARAMS.reorderSections, false),
    result: z.strictObject({ charter: CharterHead, order: z.array(z.string()), changed }),
    events: ['charter.section.reorder'],
    example: { order: ['sec_0123456789abcdef', 'sec_fedcba9876543210'] },
  }),
  updateClauses: method({
    hold: { completion: 'retry', when: "an agent makes a binding edit, or the caller's decision rights do not cover it" },
    summary: `Replace a section’s clauses (at most ${MAX_CLAUSES}; binding: decision rights charter.updateClauses). Kept clauses name their id; new ones get one.`,
    params: write(CHARTER_OP_PARAMS.updateClauses, true),
    result: z.strictObject({ charter: CharterHead, section: Section, changed }),
    events: ['charter.clauses.update'],
    example: { sectionId: 'sec_0123456789abcdef', clauses: [{ text: 'Agents never sign contracts.' }, { text: 'Refunds above $500 need a human.' }] },
  }),
  editColleagueField: method({
    hold: { completion: 'retry', when: "an agent makes a binding edit, a caller sets their own authority, or the caller's decision rights do not cover it" },
    summary:
      'Set one field of a colleague’s charter record. Authority fields bind (rights charter.editColleagueField); one’s own authority always holds for another human.',
    params: write(CHARTER_OP_PARAMS.editColleagueField, true),
    result: z.strictObject({ charter: CharterHead, colleague: Colleague, changed }),
    events: ['charter.colleague.edit'],
    example: { principalId: 'agt_0123456789abcdef', field: 'autonomy', value: 'supervised' },
  }),
  amend: method({
    summary:
      'Apply an adopted decision’s amendment (its charter operations, in order) as one new version: the merge. Not adopted, or an operation stale against the head: CONFLICT. Applied already: changed:false.',
    params: z.strictObject({ decisionId: decisionId('The adopted decision (area charter) whose amendment to apply.'), baseVersion }),
    result: z.strictObject({ charter: CharterHead, decisionId: z.string(), ops: z.number().int().describe('Operations applied.'), changed }),
    events: ['charter.document.amend'],
    example: { decisionId: 'dec_0123456789abcdef' },
  }),
};
