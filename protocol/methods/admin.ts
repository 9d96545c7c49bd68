import { z } from 'zod';
import { method } from '../contract.js';
import { proofFields } from '../schema.js';
import { memberId } from './member.js';
import { Access, reason } from './user.js';

/** admin.*: suspend and reactivate any member (human or agent): the kill switch. Shapes shared with user.*. */

const changed = z.boolean().describe('false when the call found the member already so (its event says noop).');

export const admin = {
  deactivate: method({
    hold: { completion: 'release', when: 'an agent suspends a human' },
    summary:
      'Suspend a member (human or agent) at once: its keys stop working from its next call (kept, not revoked), its inbox sessions end, its board claims are released back to ready, and no new key can be minted for it. Reversible with admin.reactivate. Yourself or the last active admin is a CONFLICT. An agent suspending an agent is never held (the kill switch); an agent suspending a human is.',
    params: z.strictObject({ memberId: memberId('The member to suspend.'), reason }),
    result: z.strictObject({
      member: Access,
      released: z.strictObject({ claims: z.number().int(), sessions: z.number().int() }),
      changed,
    }),
    events: ['admin.member.deactivate'],
    example: { memberId: 'agt_0123456789abcdef', reason: 'Runaway agent' },
  }),
  reactivate: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Make a suspended, deactivated or archived member active again: a suspended member’s kept keys work again; revoked keys stay revoked (mint new ones). No free seat is a CONFLICT. An agent calling it is held for a human’s approval.',
    params: z.strictObject({
      memberId: memberId('The member to reactivate.'),
      reason: reason.optional(),
      ...proofFields,
    }),
    result: z.strictObject({ member: Access, changed }),
    events: ['admin.member.reactivate'],
    example: { memberId: 'agt_0123456789abcdef' },
  }),
};
