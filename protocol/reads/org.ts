import { z } from 'zod';
import { read } from '../contract.js';
import { Slug } from '../methods/org.js';
import { Principal } from '../methods/keys.js';

export const orgReadContracts = {
  'org/whoami': read({
    summary: 'The calling key’s own member record: its org, principal, tier and scopes. With slug, NOT_FOUND unless the key belongs to that org.',
    query: z.strictObject({ slug: Slug.optional() }),
    result: z.strictObject({
      orgId: z.string(),
      slug: z.string(),
      keyId: z.string(),
      principal: Principal,
      tier: z.string().nullable(),
      scopes: z.array(z.string()),
      governanceReady: z.boolean(),
    }),
    example: { slug: 'default' },
  }),
};
