import { z } from 'zod';
import { method } from '../../contract.js';
import { id, isoDate, text } from '../../schema.js';
import { changed, partyId } from './common.js';

/** Links between parties, named one way (from -> to): a person works at an organisation, reports to a person… */

export const RELATIONS = ['works_at', 'reports_to', 'assistant_of', 'client_of', 'subsidiary_of', 'partner_of'] as const;

export const LinkView = z.strictObject({
  id: z.string().describe('plk_…'),
  fromId: z.string().describe('The party the relation is said of.'),
  toId: z.string().describe('The party it points at.'),
  relation: z.enum(RELATIONS),
  role: z.string().nullable().describe('The role in the relation (works_at: the job there).'),
  primary: z.boolean().describe("works_at: the person's primary employer."),
  since: z.string().nullable().describe('YYYY-MM-DD.'),
  until: z.string().nullable().describe('YYYY-MM-DD, once ended.'),
  status: z.enum(['active', 'ended']),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
});

export const links = {
  linkParty: method({
    summary:
      'Link two parties: works_at (person -> organisation; role, primary), reports_to and assistant_of (person -> person, no reporting cycles), client_of, subsidiary_of (organisation -> organisation, no cycles), partner_of (either way round). A merged target is followed to its survivor; the same active link again is changed:false.',
    params: z.strictObject({
      fromId: partyId('The party the relation is said of (a merged or archived one is a CONFLICT).'),
      toId: partyId('The party it points at (a merged one is followed to its survivor).'),
      relation: z.enum(RELATIONS).describe('works_at, reports_to, assistant_of, client_of, subsidiary_of or partner_of.'),
      role: text({ min: 1, max: 120, description: 'The role in the relation (works_at: the job there, e.g. CFO).' }).optional(),
      since: isoDate('Since when (YYYY-MM-DD).').optional(),
      primary: z.boolean().optional().describe("works_at: make it the person's primary employer (the first one is)."),
    }),
    result: z.strictObject({ link: LinkView, changed }),
    events: ['directory.link.create'],
    example: { fromId: 'per_0123456789abcdef', toId: 'co_0123456789abcdef', relation: 'works_at', role: 'CFO' },
  }),
  unlinkParty: method({
    summary:
      'End a link (it stays, as history, with its until date). Ending a primary employer makes the next oldest one primary. An ended link is changed:false.',
    params: z.strictObject({
      linkId: id('plk', 'The link.'),
      until: isoDate('The last day (default today); not before its since.').optional(),
    }),
    result: z.strictObject({ link: LinkView, newPrimaryId: z.string().nullable().describe('The works_at link now primary, when this one was.'), changed }),
    events: ['directory.link.end'],
    example: { linkId: 'plk_0123456789abcdef', until: '2025-06-30' },
  }),
};
