import { z } from 'zod';
import { method } from '../../contract.js';
import { Channel, changed, channelFields, channelId, partyId } from './common.js';

/** A party's emails, phones and IM handles. */

export const channels = {
  addChannel: method({
    summary:
      'Add an email, phone or IM handle to a party. One it already holds -> changed:false; an email another active person holds -> CONFLICT naming them.',
    params: z.strictObject({ partyId: partyId('The person or organisation.'), ...channelFields }),
    result: z.strictObject({ channel: Channel, changed }),
    events: ['directory.channel.add'],
    example: { partyId: 'per_0123456789abcdef', kind: 'phone', value: '0412 345 678', label: 'mobile' },
  }),
  removeChannel: method({
    summary: 'Remove a channel (kept as history); the next oldest of its kind becomes primary.',
    params: z.strictObject({ channelId: channelId('The channel.') }),
    result: z.strictObject({ channel: Channel, newPrimaryId: z.string().nullable().describe('The channel now primary, when this one was.'), changed }),
    events: ['directory.channel.remove'],
    example: { channelId: 'chn_0123456789abcdef' },
  }),
  setPrimaryChannel: method({
    summary: 'Make a channel the primary of its kind for its party.',
    params: z.strictObject({ channelId: channelId('The channel.') }),
    result: z.strictObject({ channel: Channel, changed }),
    events: ['directory.channel.primary'],
    example: { channelId: 'chn_0123456789abcdef' },
  }),
};
