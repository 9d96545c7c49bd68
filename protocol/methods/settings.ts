import { z } from 'zod';
import { method } from '../contract.js';
import { text } from '../schema.js';
import { KeyIdParams, MintKeyParams, MintedKey, Principal, RevokedKey, mintExample, mintSecrets } from './keys.js';

const KeyInfo = z.strictObject({
  keyId: z.string(),
  name: z.string(),
  prefix: z.string().describe('The first characters of the secret, to recognise it (empty for a secret an operator chose, e.g. BOOTSTRAP_ADMIN_KEY).'),
  tier: z.string().nullable(),
  scopes: z.array(z.string()),
  principal: Principal,
  createdAt: z.string(),
  createdBy: z.string(),
  revokedAt: z.string().nullable(),
});

/** The deployed part of settings: API key management. */
export const settings = {
  mintApiKey: method({
    summary: 'Mint an API key (same as org.mintApiKey). The secret is in this result only.',
    params: MintKeyParams,
    result: MintedKey,
    events: ['settings.key.mint'],
    example: mintExample,
    secrets: mintSecrets('settings'),
  }),
  revokeApiKey: method({
    hold: { completion: 'release', when: "an agent revokes a human's key" },
    summary: 'Revoke a key (same as org.revokeApiKey).',
    params: KeyIdParams,
    result: RevokedKey,
    events: ['settings.key.revoke'],
    example: { keyId: 'key_0123456789abcdef' },
  }),
  listApiKeys: method({
    summary: 'The org’s keys without their secrets, newest first.',
    params: z.strictObject({
      includeRevoked: z.boolean().describe('Also list revoked keys (default false).').default(false),
    }),
    result: z.strictObject({ keys: z.array(KeyInfo) }),
    example: { includeRevoked: true },
  }),
  renameApiKey: method({
    summary: 'Change a key’s label.',
    params: KeyIdParams.extend({ name: text({ min: 1, max: 100, description: 'The new label.' }) }),
    result: z.strictObject({ keyId: z.string(), name: z.string() }),
    events: ['settings.key.rename'],
    example: { keyId: 'key_0123456789abcdef', name: 'payroll agent (prod)' },
  }),
};
