import { z } from 'zod';
import { method } from '../../contract.js';
import { id, limit, text } from '../../schema.js';
import { CHANNEL_KINDS, Org, PARTY_KINDS, Person, REASONS, changed, channelFields, coId, country, partyId } from './common.js';

/**
 * Captures: parties an agent or a rule saw in a message, a mail, a meeting or a file, proposed with their evidence
 * and waiting for a member to accept (create or attach) or reject them. A proposal whose email already names one
 * party, adding nothing that disagrees with it, is attached by rule; repeats of a waiting one count as sightings;
 * a rejected identity stays rejected.
 */

export const SOURCES = ['message', 'email', 'meeting', 'file'] as const;
/** The id prefix each evidence source cites. */
export const SOURCE_PREFIX: Readonly<Record<(typeof SOURCES)[number], string>> = { message: 'msg', email: 'eml', meeting: 'mtg', file: 'fil' };
export const MAX_EVIDENCE = 20;

/** The fields a capture proposes: persons given/family/displayName/title, organisations name/legalName/website. */
export const CaptureFields = z
  .strictObject({
    given: text({ min: 1, max: 100, description: 'Person: given name.' }).optional(),
    family: text({ min: 1, max: 100, description: 'Person: family name.' }).optional(),
    displayName: text({ min: 1, max: 200, description: 'Person: name as shown.' }).optional(),
    title: text({ min: 1, max: 120, description: 'Person: job title.' }).optional(),
    name: text({ min: 1, max: 200, description: 'Organisation: name.' }).optional(),
    legalName: text({ min: 1, max: 200, description: 'Organisation: registered name.' }).optional(),
    website: text({ min: 1, max: 300, description: 'Organisation: web address.' }).optional(),
    country: country.optional(),
  })
  .describe('What was seen: a person needs given or displayName, an organisation name.');

const capturedChannel = { kind: channelFields.kind, value: channelFields.value, service: channelFields.service, label: channelFields.label };
const Evidence = z.strictObject({
  source: z.enum(SOURCES).describe('message, email, meeting or file.'),
  ref: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^(msg|eml|mtg|fil)_[A-Za-z0-9]+$/, 'must be a msg_, eml_, mtg_ or fil_ id')
    .describe('The record seen.'),
  snippet: text({ max: 280, description: 'The words seen (erased on resolve).' }).optional(),
});

const Match = z
  .strictObject({ partyId: z.string(), score: z.number().int(), reasons: z.array(z.enum(REASONS)) })
  .nullable()
  .describe('The best existing candidate when proposed (dedupe rule, score >= 65).');

export const CaptureView = z.strictObject({
  id: z.string().describe('cap_…'),
  kind: z.enum(PARTY_KINDS),
  fields: z.record(z.string(), z.string()),
  channels: z.array(
    z.strictObject({ kind: z.enum(CHANNEL_KINDS), service: z.string().nullable(), value: z.string(), key: z.string(), label: z.string().nullable() }),
  ),
  employerName: z.string().nullable(),
  evidence: z.array(z.strictObject({ source: z.enum(SOURCES), ref: z.string(), snippet: z.string().nullable() })),
  match: Match,
  sightings: z.number().int().describe('How often it was proposed while waiting.'),
  status: z.enum(['pending', 'accepted', 'rejected']),
  resolution: z.enum(['created', 'attached']).nullable(),
  partyId: z.string().nullable().describe('The party it created or was attached to.'),
  proposedBy: z.string(),
  resolvedBy: z.string().nullable().describe('The member who resolved it, or "rule".'),
  createdAt: z.string(),
  updatedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

export const captures = {
  proposeCapture: method({
    summary:
      'Propose a person or organisation seen in a message, mail, meeting or file, with evidence. outcome: attached (its email names one party and it adds nothing that disagrees: blanks filled, new channels added, by rule), absorbed (a waiting capture of the same identity counts one more sighting), rejected (that identity was rejected before) or pending (a member decides).',
    params: z.strictObject({
      kind: z.enum(PARTY_KINDS).describe('person or org.'),
      fields: CaptureFields,
      channels: z.array(z.strictObject(capturedChannel)).max(10).optional().describe('Emails, phones, IM handles seen.'),
      employerName: text({ min: 1, max: 200, description: 'Person: who they appeared for.' }).optional(),
      evidence: z.array(Evidence).min(1, 'must cite at least one record').max(MAX_EVIDENCE).describe('Where it was seen.'),
    }),
    result: z.strictObject({
      capture: CaptureView,
      outcome: z.enum(['pending', 'absorbed', 'attached', 'rejected']),
      changed,
    }),
    events: ['directory.capture.propose'],
    example: {
      kind: 'person',
      fields: { given: 'Jane', family: 'Doe', title: 'CFO' },
      channels: [{ kind: 'email', value: 'jane@acme.example.com' }],
      employerName: 'Acme',
      evidence: [{ source: 'message', ref: 'msg_0123456789abcdef', snippet: 'Jane Doe, CFO at Acme, will join the call.' }],
    },
  }),
  resolveCapture: method({
    summary:
      'Decide a waiting capture (not its proposer: CONFLICT): create a new party from it, attach it to a party (default: its match; blanks filled, your fields written), or reject it (its identity stays suppressed). Snippets are erased.',
    params: z.strictObject({
      captureId: id('cap', 'The capture.'),
      decision: z.enum(['create', 'attach', 'reject']).describe('create, attach or reject.'),
      partyId: partyId("attach: the party (default: the capture's match).").optional(),
      fields: CaptureFields.optional().describe('Your corrections: written over the proposal (and, on attach, over the party).'),
      employerId: coId('Person: the employer to link (default: the one organisation named employerName).').optional(),
    }),
    result: z.strictObject({ capture: CaptureView, party: z.union([Person, Org]).nullable().describe('The party created or attached to.'), changed }),
    events: ['directory.capture.resolve'],
    example: { captureId: 'cap_0123456789abcdef', decision: 'create' },
  }),
  listCaptures: method({
    summary: 'Captures by status (pending by default), oldest first, with their evidence and best match.',
    params: z.strictObject({
      status: z.enum(['pending', 'accepted', 'rejected', 'all']).default('pending').describe('pending (default), accepted, rejected or all.'),
      cursor: z.string().max(500).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ captures: z.array(CaptureView), nextCursor: z.string().nullable() }),
    example: { status: 'pending', limit: 50 },
  }),
};
