import { z } from 'zod';
import { method } from '../../contract.js';
import { id, limit, proofFields } from '../../schema.js';
import { Org, PARTY_KINDS, Person, REASONS, changed, partyId } from './common.js';

/** Merges: propose with a preview, execute or dismiss, revert exactly from the change log, list. */

export const mergeId = (description: string) => id('mrg', description);

/** Fields a proposal may take from the merged party instead of the survivor (fieldChoices keys). */
export const PERSON_CHOICES = ['displayName', 'given', 'family', 'title', 'notes', 'country', 'email', 'phone'] as const;
export const ORG_CHOICES = ['name', 'legalName', 'website', 'notes', 'country', 'email', 'phone', 'identifiers'] as const;
export const FIELD_CHOICES = [...new Set([...PERSON_CHOICES, ...ORG_CHOICES])] as [string, ...string[]];
export const MERGE_STATUSES = ['proposed', 'executed', 'reverted', 'dismissed'] as const;

const fieldChoices = z
  .partialRecord(z.enum(FIELD_CHOICES), z.enum(['survivor', 'merged']))
  .describe("Per field, whose value wins (default survivor; its blanks take the merged one's). email/phone: whose primary stays primary.");

const count = (description: string) => z.number().int().describe(description);

/** What a merge does (the preview's counts, the event's counts). */
export const MergeCounts = z.strictObject({
  fields: count('Survivor fields changed (blanks filled, choices).'),
  channels: count('Channels moved to the survivor.'),
  duplicateChannels: count('Channels the survivor already held (left with the merged party).'),
  identifiers: count('Identifiers moved or overridden.'),
  links: count('Links repointed to the survivor.'),
  endedLinks: count('Links ended (between the two, or the survivor already had them).'),
  lists: count('List memberships moved.'),
  awareness: count('Awareness moved or combined.'),
  requests: count('Awareness requests repointed.'),
  captures: count('Captures repointed.'),
  references: count("Other families' rows repointed (their roles among them)."),
  changes: count('Rows of the change log.'),
});

export const MergePreview = z.strictObject({
  survivor: z.union([Person, Org]).describe('The survivor as it reads after the merge.'),
  counts: MergeCounts,
  roles: z
    .array(z.strictObject({ family: z.string(), role: z.string(), refId: z.string().nullable() }))
    .describe("The merged party's roles, moving to the survivor."),
  references: z.array(z.strictObject({ family: z.string(), rows: z.number().int() })).describe("Other families' rows repointed, by family."),
});

export const Merge = z.strictObject({
  id: z.string().describe('mrg_…'),
  kind: z.enum(PARTY_KINDS),
  survivorId: z.string(),
  mergedId: z.string(),
  status: z.enum(MERGE_STATUSES),
  score: z.number().int().describe('The dedupe rule score of the pair (0 when no rule holds).'),
  reasons: z.array(z.enum(REASONS)),
  fieldChoices: z.record(z.string(), z.enum(['survivor', 'merged'])),
  preview: MergePreview.nullable().describe('What executing does, computed when proposed.'),
  survivorVersion: z.number().int().describe('The versions the proposal was made against.'),
  mergedVersion: z.number().int(),
  stale: z.boolean().describe('Proposed, and a party changed since: executing is refused until it is proposed again.'),
  proposedBy: z.string().describe('A principal id; "" for the system (books import).'),
  decidedBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  executedAt: z.string().nullable(),
  revertedAt: z.string().nullable(),
  dismissedAt: z.string().nullable(),
});

const KeptEdit = z.strictObject({
  table: z.string().describe('The table of the row (directory_parties, directory_channels, books_contact_roles…).'),
  key: z.record(z.string(), z.unknown()).describe('The row key (ids).'),
  column: z.string().nullable().describe('The column kept; null: a whole row.'),
  reason: z.enum(['edited', 'gone', 'conflict']).describe('edited since the merge, the row is gone, or restoring it would clash with a later write.'),
});

export const merges = {
  proposeMerge: method({
    summary:
      "Propose merging two parties of one kind: the pair's score and reasons, and a preview of the survivor. The same open proposal again -> changed:false; other choices or edited parties revise it.",
    params: z.strictObject({
      survivorId: partyId('The party that stays.'),
      mergedId: partyId('The party merged into it (its id keeps answering, naming the survivor).'),
      fieldChoices: fieldChoices.optional(),
    }),
    result: z.strictObject({ merge: Merge, changed }),
    events: ['directory.merge.propose'],
    example: { survivorId: 'per_0123456789abcdef', mergedId: 'per_fedcba9876543210' },
  }),
  executeMerge: method({
    hold: { completion: 'retry', when: 'an agent merges a pair scoring below 90, or a party with a books or CRM role' },
    summary:
      "Merge or dismiss a proposal. The survivor wins, blanks filled, fieldChoices override, the merged name becomes an alias; channels, lists, links, awareness and roles move, logged so revertMerge is exact. An agent's merge holds (directory.execute_merge) below score 90 or when a party has a books or CRM role. Dismissed pairs are not proposed again.",
    params: z.strictObject({
      mergeId: mergeId('The proposal.'),
      decision: z.enum(['merge', 'dismiss']).describe('merge or dismiss.'),
      ...proofFields,
    }),
    result: z.strictObject({ merge: Merge, changed }),
    events: ['directory.merge.dismiss', 'directory.merge.execute'],
    example: { mergeId: 'mrg_0123456789abcdef', decision: 'merge' },
  }),
  revertMerge: method({
    summary: "Undo an executed merge where values are still the merge's; later edits stay, listed. A later merge on the survivor -> CONFLICT naming it.",
    params: z.strictObject({ mergeId: mergeId('The executed merge.') }),
    result: z.strictObject({
      merge: Merge,
      restored: z.number().int().describe('Changes undone.'),
      keptEdits: z.array(KeptEdit).describe('Changes left as later writes made them.'),
      changed,
    }),
    events: ['directory.merge.revert'],
    example: { mergeId: 'mrg_0123456789abcdef' },
  }),
  listMerges: method({
    summary: 'Merges, newest first, with their previews: by status, or those involving a party.',
    params: z.strictObject({
      status: z.enum(MERGE_STATUSES).optional().describe('Only merges in this state.'),
      partyId: partyId('Only merges where this party is the survivor or the merged one.').optional(),
      cursor: z.string().max(500).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ merges: z.array(Merge), nextCursor: z.string().nullable() }),
    example: { status: 'proposed', limit: 50 },
  }),
};
