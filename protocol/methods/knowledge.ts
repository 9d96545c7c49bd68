import { z } from 'zod';
import { method } from '../contract.js';
import { id, int32, proofFields, text } from '../schema.js';

/**
 * Knowledge (docs/families/knowledge.md): entries of shared memory with their sources and validity. Agents cite;
 * humans' entries are verified; corrections are explicit (invalidate, replace, rewrite), and every search records
 * which revisions it served, so an invalidation says who was told a wrong fact. An agent changing what a human
 * verified holds for a human.
 */

export const ENTRY_KINDS = ['fact', 'decision', 'preference', 'procedure', 'note'] as const;
export const SOURCE_KINDS = ['url', 'email', 'message', 'file', 'task', 'meeting', 'call', 'decision', 'person', 'document', 'other'] as const;
export const ENTRY_STATUSES = ['active', 'expired', 'invalidated', 'superseded'] as const;
export const INVALID_REASONS = ['wrong', 'outdated', 'duplicate'] as const;
export const SEARCH_MODES = ['fulltext', 'hybrid'] as const;

export const MAX_BODY = 4000;

export const entryId = (description: string) => id('kn', description);
const instant = (description: string) =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-01T09:00:00Z' }).describe(description);
const changed = z.boolean().describe('false when it was already so (its event says noop).');

export const Source = z.strictObject({
  kind: z.enum(SOURCE_KINDS).describe('What is cited.'),
  ref: text({ min: 1, max: 500, description: 'A URL or a record id (eml_…, fil_…, task_…, mtg_…).' }),
  quote: text({ max: 1000, description: 'The words relied on, verbatim.' }).optional(),
});

const subjectIds = z
  .array(
    z
      .string()
      .min(1, 'must be at least 1 character')
      .max(64, 'must be at most 64 characters')
      .regex(/^[A-Za-z0-9_.:-]+$/, 'must be an id (letters, digits, _ . : -)'),
  )
  .max(20, 'must be at most 20 ids')
  .describe('Ids the entry is about (members, parties, tasks, accounts).');
const sources = z.array(Source).max(20, 'must be at most 20 sources');
const body = text({ min: 1, max: MAX_BODY, description: 'The entry, at most 4000 characters.' });

export const Entry = z.strictObject({
  id: z.string().describe('kn_…'),
  body: z.string(),
  kind: z.enum(ENTRY_KINDS),
  subjectIds: z.array(z.string()),
  sources: z.array(Source),
  verified: z.boolean().describe('A human wrote or confirmed it.'),
  verifiedBy: z.string().nullable(),
  authorId: z.string(),
  status: z.enum(ENTRY_STATUSES).describe('expired: its validUntil has passed.'),
  validFrom: z.string(),
  validUntil: z.string().nullable(),
  recordedAt: z.string(),
  revision: z.number().int(),
  supersedes: z.string().nullable(),
  supersededBy: z.string().nullable(),
  invalidatedReason: z.enum(INVALID_REASONS).nullable(),
});

const Served = z.strictObject({
  principalId: z.string(),
  searches: z.number().int().describe('Searches that served it to them.'),
  revisions: z.array(z.number().int()).describe('The revisions they were served.'),
  lastServedAt: z.string(),
});

const hold = (when: string) => ({ completion: 'retry' as const, when });
const VERIFIED_HOLD = 'an agent changes an entry a human verified';

export const knowledge = {
  append: method({
    summary:
      'Record an entry with its sources (an agent must cite at least one). A human’s entry is verified. The same body, kind and subjects as an active entry: that entry, changed:false. possibleDuplicates: active entries sharing most words.',
    params: z.strictObject({
      body,
      kind: z.enum(ENTRY_KINDS).default('fact').describe('fact (default), decision, preference, procedure or note.'),
      subjectIds: subjectIds.default([]),
      sources: sources.default([]).describe('What it rests on; required of agents.'),
      validFrom: instant('When it became true (default now).').optional(),
      validUntil: instant('When it stops being true, if known.').optional(),
    }),
    result: z.strictObject({
      entry: Entry,
      possibleDuplicates: z.array(z.strictObject({ entryId: z.string(), similarity: z.number() })),
      changed,
    }),
    events: ['knowledge.entry.append'],
    example: {
      body: 'Acme pays invoices on 45-day terms.',
      kind: 'fact',
      subjectIds: ['co_0123456789abcdef'],
      sources: [{ kind: 'email', ref: 'eml_0123456789abcdef', quote: 'our terms are 45 days' }],
    },
  }),
  search: method({
    summary:
      'Search entries by words (full text) or fetch them by id or subject; asOf answers what was valid then. Records what it served (ids and revisions in the ledger, never the query; the text is erased after 30 days). mode hybrid also ranks by meaning (embeddings, fused with the word ranks): without an embedding model, the vector extension, budget or a timely answer it runs fulltext and says so in note.',
    params: z.strictObject({
      q: text({ min: 1, max: 256, description: 'Search words (websearch syntax).' }).optional(),
      entryIds: z.array(entryId('An entry.')).max(50, 'must be at most 50 ids').describe('Entries by id, in any state.').optional(),
      subjectIds: subjectIds.optional(),
      kind: z.enum(ENTRY_KINDS).describe('Only entries of this kind.').optional(),
      asOf: instant('Entries valid at this moment (default now).').optional(),
      verifiedOnly: z.boolean().describe('Only verified entries.').optional(),
      mode: z.enum(SEARCH_MODES).default('fulltext').describe('fulltext (default) or hybrid: words and meaning (needs q).'),
      limit: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(50, 'must be at most 50')
        .default(10)
        .describe('Results, 1 to 50 (default 10).'),
    }),
    result: z.strictObject({
      searchId: z.string().describe('ks_…'),
      mode: z.enum(SEARCH_MODES).describe('The mode that ran: fulltext when hybrid was asked but could not run (note says why).'),
      note: z.string().nullable().describe('Why the mode differs from the one asked, and what to do.'),
      results: z.array(
        z.strictObject({
          entry: Entry,
          matched: z
            .enum(['text', 'fuzzy', 'filter', 'vector', 'both'])
            .describe('text or fuzzy: by its words (full text); vector: by meaning only; both: words and meaning; filter: by id or subject.'),
          score: z.number().describe('Full text: its rank; hybrid: the reciprocal rank fusion of both ranks.'),
          excerpt: z.array(z.strictObject({ text: z.string(), match: z.boolean() })).nullable(),
        }),
      ),
    }),
    events: ['knowledge.search.run'],
    example: { q: 'Acme payment terms', limit: 5 },
  }),
  invalidate: method({
    hold: hold(VERIFIED_HOLD),
    summary:
      'Mark an entry as never true or no longer to be used (wrong, outdated, duplicate); never automatic. Returns who was served it (servedTo). Already invalidated: changed:false.',
    params: z.strictObject({ entryId: entryId('The entry.'), reason: z.enum(INVALID_REASONS).describe('wrong, outdated or duplicate.'), ...proofFields }),
    result: z.strictObject({ entry: Entry, servedTo: z.array(Served), changed }),
    events: ['knowledge.entry.invalidate'],
    example: { entryId: 'kn_0123456789abcdef', reason: 'wrong' },
  }),
  replace: method({
    hold: hold(VERIFIED_HOLD),
    summary:
      'The world changed: a new entry takes over from validFrom (default now); the old one is closed then and linked to it, in one act. A closed entry: CONFLICT naming its successor.',
    params: z.strictObject({
      entryId: entryId('The entry replaced.'),
      body,
      sources: sources.default([]).describe('What the new entry rests on; required of agents.'),
      validFrom: instant('When the new fact took effect (default now).').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ entry: Entry, replaced: Entry }),
    events: ['knowledge.entry.replace'],
    example: {
      entryId: 'kn_0123456789abcdef',
      body: 'Acme pays invoices on 30-day terms from March.',
      sources: [{ kind: 'email', ref: 'eml_0123456789abcdeg' }],
    },
  }),
  rewrite: method({
    hold: hold(VERIFIED_HOLD),
    summary:
      'Reword an entry without changing its meaning (revision+1), or verify it (humans only). ifRevision: the revision read, else CONFLICT. Nothing new: changed:false.',
    params: z.strictObject({
      entryId: entryId('The entry.'),
      body: body.optional(),
      verify: z.boolean().describe('true: a human confirms it; false: no longer confirmed.').optional(),
      ifRevision: int32(1, 'The revision read.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ entry: Entry, changed }),
    events: ['knowledge.entry.rewrite'],
    example: { entryId: 'kn_0123456789abcdef', body: 'Acme pays on net-45 terms.', ifRevision: 1 },
  }),
};
