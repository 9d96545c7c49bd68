import { z } from 'zod';
import { method } from '../../contract.js';
import { id, limit, text } from '../../schema.js';
import { memberId } from '../member.js';
import { PARTY_KINDS, changed, partyId } from './common.js';

/** Who in the company knows a party (awareness) and asking a colleague to introduce or brief on one. */

export const LEVELS = ['knows_of', 'met', 'works_with', 'close'] as const;
export const REQUEST_STATUSES = ['pending', 'accepted', 'done', 'declined', 'cancelled'] as const;

export const AwarenessView = z.strictObject({
  id: z.string().describe('awr_…'),
  partyId: z.string(),
  principalId: z.string().describe('The member who knows the party.'),
  level: z.enum(LEVELS).nullable().describe('knows_of < met < works_with < close; null: cleared.'),
  source: z.enum(['declared', 'derived']).nullable().describe('declared (setAwareness) or derived (mail, meetings, a done request).'),
  lastInteractionAt: z.string().nullable(),
  interactions: z.number().int(),
  updatedAt: z.string(),
});

export const RequestView = z.strictObject({
  id: z.string().describe('awq_…'),
  party: z.strictObject({ id: z.string(), kind: z.enum(PARTY_KINDS), displayName: z.string() }),
  kind: z.enum(['introduce', 'brief']),
  requesterId: z.string(),
  targetId: z.string().describe('The colleague asked.'),
  note: z.string().nullable(),
  status: z.enum(REQUEST_STATUSES),
  createdAt: z.string(),
  updatedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

export const awareness = {
  setAwareness: method({
    summary:
      'Declare how well a member (default: you) knows a party: knows_of, met, works_with, close, or none to clear. A declared level is never changed by mail or meetings seen later. A merged party is followed to its survivor.',
    params: z.strictObject({
      partyId: partyId('The person or organisation.'),
      principalId: memberId('The member who knows them (default: you).').optional(),
      level: z.enum([...LEVELS, 'none']).describe('knows_of, met, works_with, close, or none to clear.'),
    }),
    result: z.strictObject({ awareness: AwarenessView, changed }),
    events: ['directory.awareness.set'],
    example: { partyId: 'per_0123456789abcdef', level: 'met' },
  }),
  requestAwareness: method({
    summary:
      'Ask a colleague to introduce you to a party or brief you on it: by default the colleague who knows it best (closest level, then latest contact). Nobody recorded as knowing it is a CONFLICT. The same open request again is changed:false.',
    params: z.strictObject({
      partyId: partyId('The person or organisation.'),
      kind: z.enum(['introduce', 'brief']).describe('introduce or brief.'),
      targetPrincipalId: memberId('The colleague to ask (default: the best knower).').optional(),
      note: text({ max: 2000, description: 'Why, for the colleague (never in events).' }).optional(),
    }),
    result: z.strictObject({ request: RequestView, changed }),
    events: ['directory.awareness.request'],
    example: { partyId: 'per_0123456789abcdef', kind: 'introduce', note: 'Pitching them next week.' },
  }),
  resolveAwarenessRequest: method({
    summary:
      'Move a request on: the colleague asked accepts, declines or marks it done; the requester cancels. Anyone else, or a finished request, is a CONFLICT. Done raises levels: an introduction makes the requester at least met, a briefing at least knows_of.',
    params: z.strictObject({
      requestId: id('awq', 'The request.'),
      decision: z.enum(['accept', 'decline', 'done', 'cancel']).describe('accept, decline, done (the colleague asked) or cancel (the requester).'),
    }),
    result: z.strictObject({
      request: RequestView,
      raised: z.array(AwarenessView).describe('Awareness raised by done.'),
      changed,
    }),
    events: ['directory.awareness.resolve'],
    example: { requestId: 'awq_0123456789abcdef', decision: 'accept' },
  }),
  listAwarenessRequests: method({
    summary: 'Requests asked of you (to_me, default), made by you (mine) or both (all), newest first; status filters.',
    params: z.strictObject({
      box: z.enum(['to_me', 'mine', 'all']).default('to_me').describe('to_me (default), mine or all (both).'),
      status: z.enum(REQUEST_STATUSES).optional().describe('Only requests in this status.'),
      partyId: partyId('Only requests about this party.').optional(),
      cursor: z.string().max(500).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ requests: z.array(RequestView), nextCursor: z.string().nullable() }),
    example: { box: 'to_me', status: 'pending' },
  }),
};
