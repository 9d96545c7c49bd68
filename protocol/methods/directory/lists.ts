import { z } from 'zod';
import { method } from '../../contract.js';
import { limit, text } from '../../schema.js';
import { memberId } from '../member.js';
import { changed, coId, listId, partyId } from './common.js';
import { partyFilters } from './listing.js';

/**
 * Lists of parties: static (members added by hand, up to 50,000) or dynamic (a saved filter, evaluated when read).
 * Private lists are their owner's; shared ones also their grantees' (viewer or editor); workspace ones everyone's
 * (to read; editing takes an editor grant). Members are read, in pages, with listPeople/listOrgs {listId}.
 */

export const MAX_LIST_MEMBERS = 50_000;
export const VISIBILITIES = ['private', 'shared', 'workspace'] as const;

/** A dynamic list's filter: the listPeople/listOrgs filters (without q or listId). */
export const ListFilter = z
  .strictObject({
    orgId: coId('People working at, or organisations linked to, this organisation.').optional(),
    tag: partyFilters.tag,
    role: partyFilters.role,
    knownBy: partyFilters.knownBy,
    status: z.enum(['active', 'archived', 'all']).optional().describe('Default: as the read asks.'),
    updatedSince: partyFilters.updatedSince,
  })
  .describe('Dynamic lists: which parties belong, evaluated at every read.');

const partyIds = z
  .array(partyId('A person or organisation (a merged id is followed to its survivor).'))
  .min(1, 'must list at least one party')
  .max(500, 'must list at most 500 parties')
  .describe('Up to 500 parties.');

export const ListView = z.strictObject({
  id: z.string().describe('lst_…'),
  name: z.string(),
  kind: z.enum(['static', 'dynamic']),
  filter: z.record(z.string(), z.unknown()).nullable().describe('Dynamic lists: the saved filter.'),
  visibility: z.enum(VISIBILITIES),
  ownerId: z.string(),
  access: z.enum(['owner', 'editor', 'viewer']).describe('What the caller may do: owner (share), editor (add, remove), viewer (read).'),
  grants: z.array(z.strictObject({ principalId: z.string(), role: z.enum(['viewer', 'editor']) })).describe('Who the list is shared with.'),
  memberCount: z.number().int().nullable().describe('Static lists: members (archived ones included); dynamic: null (read them to count).'),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const lists = {
  createList: method({
    summary:
      'Create a list of parties: static (add members) or dynamic (a filter of the listPeople fields, evaluated at every read). Visibility private (default: only you), shared (you and your grantees) or workspace (everyone reads).',
    params: z
      .strictObject({
        name: text({ min: 1, max: 120, description: "The list's name." }),
        kind: z.enum(['static', 'dynamic']).default('static').describe('static (default) or dynamic.'),
        filter: ListFilter.optional(),
        visibility: z.enum(VISIBILITIES).default('private').describe('private (default), shared or workspace.'),
      })
      .refine((p) => (p.kind === 'dynamic') === (p.filter !== undefined), {
        message: 'a dynamic list needs a filter, a static one takes none',
        path: ['filter'],
      }),
    result: z.strictObject({ list: ListView, changed }),
    events: ['directory.list.create'],
    example: { name: 'Board contacts', kind: 'static', visibility: 'private' },
  }),
  addToList: method({
    summary:
      'Add up to 500 parties to a static list (owner or editor). Returns those added and those already in it. A dynamic list, or a list you only view, is a CONFLICT; one you cannot see is NOT_FOUND.',
    params: z.strictObject({ listId: listId('The list.'), partyIds }),
    result: z.strictObject({
      list: ListView,
      added: z.array(z.string()).describe('Parties added (merged ids as their survivors).'),
      already: z.array(z.string()).describe('Parties that were in it already.'),
      changed,
    }),
    events: ['directory.list.add'],
    example: { listId: 'lst_0123456789abcdef', partyIds: ['per_0123456789abcdef', 'co_0123456789abcdef'] },
  }),
  removeFromList: method({
    summary: 'Remove up to 500 parties from a static list (owner or editor). Parties not in it are listed as absent.',
    params: z.strictObject({ listId: listId('The list.'), partyIds }),
    result: z.strictObject({
      list: ListView,
      removed: z.array(z.string()).describe('Parties removed.'),
      absent: z.array(z.string()).describe('Parties that were not in it.'),
      changed,
    }),
    events: ['directory.list.remove'],
    example: { listId: 'lst_0123456789abcdef', partyIds: ['per_0123456789abcdef'] },
  }),
  shareList: method({
    summary:
      "Owner only: set a list's visibility and grant members viewer or editor (role none revokes). Grants make a private list shared; making it private again revokes every grant.",
    params: z
      .strictObject({
        listId: listId('The list.'),
        visibility: z.enum(VISIBILITIES).optional().describe('private, shared or workspace.'),
        grants: z
          .array(
            z.strictObject({
              principalId: memberId('A member of the org.'),
              role: z.enum(['viewer', 'editor', 'none']).describe('viewer, editor, or none to revoke.'),
            }),
          )
          .max(100)
          .optional()
          .describe('Up to 100 grants to set.'),
      })
      .refine((p) => p.visibility !== undefined || p.grants !== undefined, { message: 'give visibility or grants', path: ['visibility'] }),
    result: z.strictObject({ list: ListView, changed }),
    events: ['directory.list.share'],
    example: { listId: 'lst_0123456789abcdef', grants: [{ principalId: 'usr_0123456789abcdef', role: 'viewer' }] },
  }),
  listLists: method({
    summary: 'The lists you can see (yours, shared with you, workspace), by name; mine: only yours; q: name contains.',
    params: z.strictObject({
      mine: z.boolean().optional().describe('Only lists you own.'),
      q: text({ min: 1, max: 120, description: 'Only lists whose name contains this (case and accents ignored).' }).optional(),
      cursor: z.string().max(500).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ lists: z.array(ListView), nextCursor: z.string().nullable() }),
    example: { mine: true, limit: 50 },
  }),
};
