import { z } from 'zod';
import { method } from '../../contract.js';
import { id, proofFields, text } from '../../schema.js';
import { changed, dealId, guestTokenId, Room, roomId } from './shared.js';

/**
 * Deal rooms for buyers (docs/families/crm.md, Rooms): a room shows an allow-list of a deal (names, offered terms,
 * approved next steps, shared files, the guest's calls; never probability, notes or held terms) to outside people
 * holding a guest token. A token is shown once and stored hashed; revoking a room or a token is effective on the next
 * request (every guest request re-checks token, room, deal and capability). Events carry ids and counts only.
 */

export const GUEST_CAPABILITIES = ['download', 'join_calls'] as const;
export type GuestCapability = (typeof GUEST_CAPABILITIES)[number];

const days = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer number of days')
    .min(1, 'must be >= 1')
    .max(365, 'must be at most 365')
    .describe(description);

export const GuestToken = z.strictObject({
  id: z.string().describe('gtk_…'),
  roomId: z.string(),
  dealId: z.string(),
  personId: z.string().describe('The directory person (per_…) the token is for.'),
  capabilities: z.array(z.enum(GUEST_CAPABILITIES)),
  status: z.enum(['active', 'revoked', 'expired']).describe('expired: expiresAt has passed (or its room’s).'),
  expiresAt: z.string(),
  createdAt: z.string(),
});

const fileId = id('fil', 'A file linked to the deal (crm.linkFiles).');
const callId = id('call', 'A call (calling.start) you may read.');

export const crmRooms = {
  shareDeal: method({
    summary:
      'Open a deal room: what it shows (offered terms, approved next steps, files linked to the deal, contact names), whether files download, and how long it lives (default 14 days, at most the policy’s shareMaxDays). Give buyers access with crm.mintGuestToken. A file not linked to the deal: BAD_REQUEST naming it.',
    params: z.strictObject({
      dealId: dealId('The deal to show.'),
      show: z
        .strictObject({
          offer: z.boolean().describe('The terms in force, when offered (held terms are never shown).').default(false),
          nextSteps: z.boolean().describe('Next steps a human signed (crm.signEscalation).').default(false),
          fileIds: z.array(fileId).max(50, 'must hold at most 50 files').describe('Files linked to the deal (crm.linkFiles) to show.').default([]),
          contacts: z.boolean().describe('The names of the deal’s contacts.').default(false),
        })
        .describe('What the room shows beyond the deal’s and account’s names.'),
      allowDownload: z.boolean().describe('Guests holding the download capability may download shared uploads.').default(false),
      expiresInDays: days('Days the room lives (default 14; at most the policy’s shareMaxDays, 90 by default).').optional(),
    }),
    result: z.strictObject({ room: Room }),
    events: ['crm.share.create'],
    example: { dealId: 'deal_0123456789abcdef', show: { offer: true, fileIds: ['fil_0123456789abcdef'] }, expiresInDays: 14 },
  }),
  mintGuestToken: method({
    // WORKSPACE rule: an agent granting someone outside the org access waits for a human.
    hold: { completion: 'retry', when: 'an agent calls it (it gives a person outside the org access to a deal room)' },
    summary:
      'Give one outside person a link to a room: the token (and the link /room#t=…) is in this result once and only its hash is kept. The person is found by email in the directory, else made; capabilities: download (shared uploads, when the room allows) and join_calls (crm.addCallGuest). Expires in 7 days by default, at most the policy’s tokenMaxDays, never after its room.',
    params: z
      .strictObject({
        shareId: roomId('The room (crm.shareDeal).'),
        personId: id('per', 'A directory person.').optional(),
        email: z
          .string()
          .max(254, 'must be at most 254 characters')
          .pipe(z.email({ message: 'must be an email address' }))
          .describe('Found in the directory, else a person is made.')
          .optional(),
        name: text({ min: 1, max: 200, description: 'The person’s name when one is made (default from the email).' }).optional(),
        capabilities: z.array(z.enum(GUEST_CAPABILITIES)).max(2, 'must hold at most 2 capabilities').describe('Beyond viewing the room.').default([]),
        expiresInDays: days('Days the token lives (default 7; at most the policy’s tokenMaxDays, 30 by default).').optional(),
        ...proofFields,
      })
      .describe('Exactly one of personId and email.'),
    result: z.strictObject({
      guestToken: GuestToken,
      token: z.string().nullable().describe('The bearer token (Authorization: Guest <token>): shown once. null only on a replay by another API key.'),
      url: z.string().nullable().describe('The room link with its token in the #t= fragment: shown once. null only on a replay by another API key.'),
      secretWithheld: z.string().describe('Only on a replay of a keyed call made with another API key: the link is withheld; says what to do.').optional(),
    }),
    secrets: { fields: ['token', 'url'], ifLost: 'revoke this guest token (crm.revokeDealShare) and mint a new one' },
    events: ['crm.guest_token.mint'],
    example: { shareId: 'room_0123456789abcdef', email: 'jane@buyer.example', capabilities: ['join_calls'] },
  }),
  revokeDealShare: method({
    summary:
      'Revoke a room (and every token of it) or one guest token, in one statement: the next guest request gets the same 404 as an unknown link. View history stays. Revoked already: changed:false.',
    params: z
      .strictObject({
        shareId: roomId('A room: it and all its tokens.').optional(),
        guestTokenId: guestTokenId('One guest token.').optional(),
      })
      .describe('Exactly one of shareId and guestTokenId.'),
    result: z.strictObject({
      roomId: z.string(),
      guestTokenId: z.string().nullable(),
      tokenCount: z.number().int().describe('Tokens this call revoked.'),
      changed,
    }),
    events: ['crm.share.revoke'],
    example: { shareId: 'room_0123456789abcdef' },
  }),
  addCallGuest: method({
    hold: { completion: 'retry', when: 'an agent admits a guest it has not admitted to the call before (access for someone outside the org)' },
    summary:
      'Admit a guest token holder to one call: the token must be live and hold join_calls; the room then lists that call (and its .ics) to that guest only. Admitted already: changed:false.',
    params: z.strictObject({ callId, guestTokenId: guestTokenId('A live guest token with join_calls.'), ...proofFields }),
    result: z.strictObject({ callId: z.string(), guestTokenId: z.string(), roomId: z.string(), changed }),
    events: ['crm.call_guest.add'],
    example: { callId: 'call_0123456789abcdef', guestTokenId: 'gtk_0123456789abcdef' },
  }),
};
