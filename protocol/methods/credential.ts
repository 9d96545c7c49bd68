import { z } from 'zod';
import { method } from '../contract.js';
import { id, limit, proofFields, text } from '../schema.js';

/**
 * The vault (docs/families/runtime.md, Secrets and integrations): named secrets sealed per version, leased to the
 * principals granted them for a time-to-live, or used only by integrations. Values never reach events, idempotency
 * frames or MCP; methods that carry one are served over HTTP only.
 */

export const MAX_VALUE_BYTES = 64 * 1024;
export const CREDENTIAL_STATES = ['active', 'disabled', 'destroyed'] as const;
export const APPROVALS = ['none', 'each_lease'] as const;

export const NOT_OVER_MCP =
  'it carries a secret value, which over MCP would enter the model context and its provider logs; call it over HTTP (POST /api/v1/{method}) from code that keeps the value out of the model';

export const credentialId = (description: string) => id('cred', description);
const changed = z.boolean().describe('false when it was already so (its event says noop).');

const value = z
  .string()
  .min(1, 'must not be empty')
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_VALUE_BYTES, `must be at most ${MAX_VALUE_BYTES} bytes`)
  .describe('The secret value (at most 64 KiB). Never echoed, logged or put in an event.');
const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'must be 1 to 100 letters, digits, _ . - (starting with a letter or digit)')
  .describe('The secret’s name, unique in the org (e.g. github.deploy-token).');
/** A principal id, or * for every member (grants and access lists). */
export const principalRef = z.string().regex(/^(\*|(usr|agt)_[A-Za-z0-9]+)$/, 'must be a principal id (usr_…, agt_…) or *');
const ttl = (what: string) => z.number().int('must be an integer').min(30, 'must be >= 30').max(86_400, 'must be at most 86400').describe(what);

/** The policy fields put and upsertSecret share. */
export const policyFields = {
  leasableBy: z
    .array(principalRef)
    .max(100, 'must be at most 100 entries')
    .describe('Who may lease it: principal ids, * for every member; empty: only integrations use it (default empty).')
    .optional(),
  defaultTtlSeconds: ttl('A lease’s time-to-live when the caller names none (default 900).').optional(),
  maxTtlSeconds: ttl('The longest lease (default 3600).').optional(),
  approval: z.enum(APPROVALS).describe('each_lease: every lease holds for a human (break-glass); none (default).').optional(),
  rotationPeriodDays: z
    .number()
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(3650, 'must be at most 3650')
    .nullable()
    .describe('Rotate at least this often (rotationDueAt, overdue); null: no reminder.')
    .optional(),
};

export const Credential = z.strictObject({
  id: z.string().describe('cred_…'),
  name: z.string(),
  state: z.enum(CREDENTIAL_STATES),
  leasableBy: z.array(z.string()),
  defaultTtlSeconds: z.number().int(),
  maxTtlSeconds: z.number().int(),
  approval: z.enum(APPROVALS),
  rotationPeriodDays: z.number().int().nullable(),
  rotatedAt: z.string(),
  rotationDueAt: z.string().nullable(),
  overdue: z.boolean(),
  version: z.number().int().describe('The current version (0 once destroyed or before a value).'),
  versionsKept: z.number().int().describe('Sealed versions kept (at most 10).'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const CredentialLease = z.strictObject({
  id: z.string().describe('crl_…'),
  credentialId: z.string(),
  version: z.number().int(),
  principalId: z.string(),
  purpose: z.string(),
  taskId: z.string().nullable(),
  approvalId: z.string().nullable(),
  issuedAt: z.string(),
  expiresAt: z.string(),
  status: z.enum(['active', 'stale', 'expired', 'revoked']).describe('stale: a newer version exists (rotate to it).'),
});

export const PutResult = z.strictObject({
  credential: Credential,
  version: z.number().int(),
  created: z.boolean().describe('true when the secret was new.'),
  changed,
});

export const credential = {
  put: method({
    notOverMcp: NOT_OVER_MCP,
    summary:
      'Create or update a secret by name: a new value adds a sealed version (10 kept); the same value as the current one writes nothing (changed:false), so a retry is safe. Re-enables a disabled secret.',
    params: z.strictObject({ name, value, ...policyFields }),
    result: PutResult,
    events: ['credential.secret.put'],
    example: { name: 'github.deploy-token', value: 'ghp_example', leasableBy: ['agt_0123456789abcdef'], defaultTtlSeconds: 900 },
  }),
  lease: method({
    notOverMcp: NOT_OVER_MCP,
    hold: { completion: 'retry', when: 'the secret’s approval is each_lease' },
    summary:
      'Lease a secret granted to you: its value and a lease that expires. Not granted or unknown: NOT_FOUND; disabled: CONFLICT. A break-glass secret (approval each_lease) holds for a human every time. Never cached: each call is a new lease.',
    params: z.strictObject({
      credentialId: credentialId('The secret (or name).').optional(),
      name: name.optional(),
      purpose: text({ min: 1, max: 500, description: 'Why you need it (admins see it; never in events).' }),
      ttlSeconds: ttl('How long (default the secret’s defaultTtlSeconds, at most its maxTtlSeconds).').optional(),
      taskId: id('task', 'The board task it serves.').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ lease: CredentialLease, value: z.string().describe('The secret value: keep it out of logs and model context.') }),
    events: ['credential.lease.issue'],
    example: { name: 'github.deploy-token', purpose: 'Deploy the docs site', ttlSeconds: 600 },
  }),
  list: method({
    summary:
      'Secrets’ metadata (never values): state, grants, TTLs, approval, version, rotationDueAt and overdue, active and stale leases, and the integrations that use each.',
    params: z.strictObject({
      prefix: z.string().max(100, 'must be at most 100 characters').describe('Names starting with this.').optional(),
      state: z.enum(CREDENTIAL_STATES).describe('Only this state (default active and disabled).').optional(),
      cursor: z.string().max(120, 'must be at most 120 characters').describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({
      credentials: z.array(
        Credential.extend({
          leases: z.array(CredentialLease).describe('Active and stale leases.'),
          usedBy: z.array(z.string()).describe('Active integrations (int_…) that authenticate with it.'),
        }),
      ),
      nextCursor: z.string().nullable(),
    }),
    example: { prefix: 'github.' },
  }),
  revoke: method({
    summary:
      'Revoke leases: exactly one of leaseId, credentialId (all its leases) or principalId (all theirs); disable (with credentialId) also stops new leases until the next put.',
    params: z.strictObject({
      leaseId: id('crl', 'One lease.').optional(),
      credentialId: credentialId('Every active lease of this secret.').optional(),
      principalId: z
        .string()
        .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a principal id (usr_…, agt_…)')
        .describe('Every active lease of this principal.')
        .optional(),
      disable: z.boolean().describe('With credentialId: disable the secret too.').optional(),
    }),
    result: z.strictObject({ revoked: z.number().int(), disabled: z.boolean(), changed }),
    events: ['credential.lease.revoke'],
    example: { credentialId: 'cred_0123456789abcdef', disable: true },
  }),
};

/** The settings family's secret methods: the same vault, keyed by name or id, for admins' settings pages. */
export const settingsSecrets = {
  upsertSecret: method({
    notOverMcp: NOT_OVER_MCP,
    summary:
      'Create a secret (value required) or change one by credentialId or name: a new value adds a version; without one only the policy changes. The same again: changed:false.',
    params: z.strictObject({
      credentialId: credentialId('The secret to change (else by name).').optional(),
      name,
      value: value.optional(),
      ...policyFields,
    }),
    result: PutResult,
    events: ['settings.secret.put'],
    example: { name: 'stripe.api-key', value: 'sk_test_example', rotationPeriodDays: 90 },
  }),
  deleteSecret: method({
    hold: { completion: 'retry', when: 'an agent deletes a secret' },
    summary:
      'Destroy a secret for good (crypto-shredding): its sealed values and data keys are deleted, its metadata kept, its leases revoked. confirmName must be its name. Used by an active integration: CONFLICT.',
    params: z.strictObject({
      credentialId: credentialId('The secret.'),
      confirmName: z.string().max(100, 'must be at most 100 characters').describe('Its name, typed again.'),
      ...proofFields,
    }),
    result: z.strictObject({ credential: Credential, versionsDestroyed: z.number().int(), leasesRevoked: z.number().int(), changed }),
    events: ['settings.secret.destroy'],
    example: { credentialId: 'cred_0123456789abcdef', confirmName: 'stripe.api-key' },
  }),
  recordSecretRotation: method({
    notOverMcp: NOT_OVER_MCP,
    summary:
      'Record that a secret was rotated at its provider: restarts the rotation clock; with value, adds that as a new version and makes older leases stale.',
    params: z.strictObject({
      credentialId: credentialId('The secret.'),
      value: value.optional(),
      rotatedAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).describe('When (default now; not in the future).').optional(),
    }),
    result: z.strictObject({ credential: Credential, version: z.number().int(), changed }),
    events: ['settings.secret.rotate'],
    example: { credentialId: 'cred_0123456789abcdef', rotatedAt: '2026-11-30T09:00:00Z' },
  }),
};
