import { z } from 'zod';
import { method } from '../contract.js';
import { id, text } from '../schema.js';
import { KeyIdParams, MintKeyParams, MintedKey, RevokedKey, SecretWithheld, mintExample, mintSecrets } from './keys.js';

export const Slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'must be 2 to 63 characters: lowercase letters, digits and dashes, not starting with a dash')
  .describe('URL-safe org name, unique on this server.');

const OrgSummary = z.strictObject({
  orgId: z.string(),
  slug: z.string(),
  name: z.string(),
  parentOrgId: z.string().nullable().describe('The org that created it.'),
  createdAt: z.string(),
  current: z.boolean().describe('True for the caller’s own org.'),
});

export const org = {
  create: method({
    summary: 'Create another org (a separate workspace with its own ledger) and its first admin key. Nothing of one org is visible to another.',
    params: z.strictObject({
      slug: Slug,
      name: text({ min: 1, max: 200, description: 'Display name.' }),
    }),
    result: z.strictObject({
      orgId: z.string(),
      slug: z.string(),
      name: z.string(),
      adminKey: z.string().nullable().describe('Admin API key of the new org. Shown only here. null only on a replay by another API key (see secretWithheld).'),
      adminKeyId: z.string(),
      secretWithheld: SecretWithheld,
    }),
    events: ['org.record.create'],
    example: { slug: 'acme-au', name: 'Acme Pty Ltd' },
    secrets: {
      fields: ['adminKey'],
      ifLost:
        'an operator mints a new admin key for org {slug} (npm run cli -- key mint --org {slug} --name admin --tier admin), or delete {orgId} (org.delete) and create another org',
    },
  }),
  delete: method({
    hold: { completion: 'release', when: 'an agent calls it' },
    summary: 'Delete an org this org created: its keys stop working at once; its ledger is kept. confirmSlug must repeat its slug.',
    params: z.strictObject({
      orgId: id('org', 'The org to delete (one this org created).'),
      confirmSlug: Slug.describe('The slug of the org being deleted, as a guard against deleting the wrong one.'),
    }),
    result: z.strictObject({ orgId: z.string(), deleted: z.literal(true) }),
    events: ['org.record.delete'],
    example: { orgId: 'org_0123456789abcdef', confirmSlug: 'acme-au' },
  }),
  list: method({
    summary: 'The caller’s org and the orgs it created.',
    params: z.strictObject({}),
    result: z.strictObject({ orgs: z.array(OrgSummary) }),
    example: {},
  }),
  mintApiKey: method({
    summary: 'Mint an API key from a tier or an exact scope list. The secret is in this result only.',
    params: MintKeyParams,
    result: MintedKey,
    events: ['org.key.mint'],
    example: mintExample,
    secrets: mintSecrets('org'),
  }),
  revokeApiKey: method({
    hold: { completion: 'release', when: "an agent revokes a human's key" },
    summary: 'Revoke a key: it answers UNAUTHORIZED from the next call on.',
    params: KeyIdParams,
    result: RevokedKey,
    events: ['org.key.revoke'],
    example: { keyId: 'key_0123456789abcdef' },
  }),
};
