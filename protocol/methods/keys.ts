import { z } from 'zod';
import { SCOPES, TIER_NAMES } from '../scopes.js';
import { id, text } from '../schema.js';

/** Shapes shared by org.* and settings.* key management (the two families offer the same acts). */
export const Principal = z.strictObject({
  kind: z.enum(['human', 'agent']),
  id: z.string().describe('usr_… or agt_…: the ledger actor for this key.'),
  name: z.string(),
});

export const MintKeyParams = z
  .strictObject({
    name: text({ min: 1, max: 100, description: 'A label for the key, e.g. "payroll agent" or "Dana (laptop)".' }),
    tier: z
      .enum(TIER_NAMES as [string, ...string[]])
      .describe(
        "admin: every scope (human). approver: approval.decide, approval.request and every read scope (human). member: every scope except admin and approval.decide (human). viewer: org.read and every *.read scope (human). agent: as member, for an agent. reader: as viewer, for an agent. A key for an existing human (principalId) may not exceed that human's role.",
      )
      .optional(),
    scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).describe('Exact scopes instead of a tier; may be empty. Give tier or scopes, not both.').optional(),
    principalKind: z.enum(['human', 'agent']).describe('With scopes: who holds the key (default agent).').optional(),
    principalId: z
      .string()
      .regex(/^(usr|agt)_[a-z0-9]+$/, 'must be a principal id usr_… or agt_…')
      .describe('Add the key to an existing principal of this org instead of creating one.')
      .optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.tier === undefined) === (p.scopes === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['tier'], message: 'give exactly one of tier or scopes' });
    }
    if (p.tier !== undefined && p.principalKind !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['principalKind'], message: 'only with scopes: a tier fixes the principal kind' });
    }
  });

/** Present only on a replay that could not recover a result's secret (contract `secrets`). */
export const SecretWithheld = z
  .string()
  .optional()
  .describe('Only on a replay of a keyed call made with another API key: the secret is withheld (null); says what to do if it was lost.');

export const MintedKey = z.strictObject({
  keyId: z.string(),
  apiKey: z.string().nullable().describe('The bearer secret. Shown only here: store it now. null only on a replay by another API key (see secretWithheld).'),
  scopes: z.array(z.string()),
  tier: z.string().nullable(),
  principal: Principal,
  secretWithheld: SecretWithheld,
});

/** The secret of a minted key, as the contracts of org.mintApiKey and settings.mintApiKey declare it. */
export const mintSecrets = (family: 'org' | 'settings') => ({
  fields: ['apiKey'],
  ifLost: `revoke {keyId} (${family}.revokeApiKey) and mint a new key with a new idempotency key`,
});

export const KeyIdParams = z.strictObject({ keyId: id('key', 'The key to act on (from mintApiKey or listApiKeys).') });

export const RevokedKey = z.strictObject({ keyId: z.string(), revoked: z.literal(true), revokedAt: z.string() });

export const mintExample = { name: 'ops agent', tier: 'agent' };
