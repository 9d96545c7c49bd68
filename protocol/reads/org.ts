import { z } from 'zod';
import { read } from '../contract.js';
import { Slug } from '../methods/org.js';
import { Principal } from '../methods/keys.js';
import { Member } from '../methods/member.js';
import { WhoamiPersona } from '../methods/persona-view.js';
import { Billing, Usage } from '../methods/billing.js';

export const orgReadContracts = {
  'org/whoami': read({
    summary:
      'The calling key’s own member record: its org, principal, tier and scopes, its member (as member.get shows it) and, for an agent with a persona, its compiled prompt and prompt hash. With slug, NOT_FOUND unless the key belongs to that org.',
    query: z.strictObject({ slug: Slug.optional() }),
    result: z.strictObject({
      orgId: z.string(),
      slug: z.string(),
      keyId: z.string(),
      principal: Principal,
      tier: z.string().nullable(),
      scopes: z.array(z.string()),
      governanceReady: z.boolean(),
      member: Member,
      persona: WhoamiPersona.nullable().describe('An agent’s persona: the prompt to run under (null for humans and agents without one).'),
    }),
    example: { slug: 'default' },
  }),
  'org/billing': read({
    summary: 'The org’s subscription (plan, cycle, seats, agent seats, contact, tax id; null when none is set: no seat limits) and the seats in use.',
    query: z.strictObject({}),
    result: z.strictObject({ billing: Billing.nullable(), usage: Usage }),
    example: {},
  }),
};
