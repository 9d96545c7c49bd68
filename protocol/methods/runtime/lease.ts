import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';
import { changed } from './shared.js';
import { registrationId } from './registry.js';

/**
 * Named leases: TTL locks on the database's clock with a fencing token per name that rises with each new holder
 * (k8s Lease, Kleppmann): a resource that remembers the highest token it saw refuses a holder that lapsed.
 */

export const LEASE_STATUSES = ['held', 'released', 'lapsed'] as const;
/** The shortest ttlSeconds by default; the server's leaseMinTtlSeconds setting may lower it (tests: 1). */
export const DEFAULT_LEASE_MIN_TTL_SECONDS = 10;

export const leaseId = (description: string) => id('lse', description);

export const Lease = z.strictObject({
  id: z.string().describe('lse_…'),
  name: z.string(),
  holderId: z.string().describe('The principal holding it.'),
  holderInstance: z.string(),
  registrationId: z.string().nullable(),
  fencingToken: z.number().int().describe('Rises by one with each new holder of this name: pass it to the resource you guard.'),
  status: z.enum(LEASE_STATUSES).describe('held until expiresAt; lapsed past it; released.'),
  ttlSeconds: z.number().int(),
  acquiredAt: z.string(),
  expiresAt: z.string(),
  releasedAt: z.string().nullable(),
});

const ttlSeconds = z.number().int('must be an integer').min(1, 'must be at least 1').max(86400, 'must be at most 86400');

export const lease = {
  claim: method({
    summary:
      'Take the named lease for ttlSeconds. Free or lapsed: a new lease with the next fencing token. Already yours (same principal and instance): the same lease and token, changed:false. Held by another: CONFLICT naming the holder and expiry.',
    params: z.strictObject({
      name: text({ min: 1, max: 200, description: 'What it guards (e.g. books:pay-run:2026-11).' }),
      ttlSeconds: ttlSeconds.describe(`Held this long unless renewed (${DEFAULT_LEASE_MIN_TTL_SECONDS}–86400).`),
      holderInstance: text({ min: 1, max: 100, description: 'Which instance of you holds it (default: your key id).' }).optional(),
      registrationId: registrationId('Your registration it belongs to: a stopped beat frees it.').optional(),
    }),
    result: z.strictObject({ lease: Lease, previousHolder: z.string().nullable().describe('Who held the name before (lapsed or released).'), changed }),
    events: ['lease.lock.claim'],
    example: { name: 'books:pay-run:2026-11', ttlSeconds: 60, holderInstance: 'worker-1' },
  }),
  heartbeat: method({
    summary: 'Renew your lease for ttlSeconds more (default its own). Lapsed or released: CONFLICT; claim again, and the token changes.',
    params: z.strictObject({
      leaseId: leaseId('The lease (lse_…).'),
      ttlSeconds: ttlSeconds.describe('Renew for this long (default the lease’s ttlSeconds).').optional(),
    }),
    result: z.strictObject({ lease: Lease }),
    events: ['lease.lock.heartbeat'],
    example: { leaseId: 'lse_0123456789abcdef', ttlSeconds: 60 },
  }),
  release: method({
    summary: 'Give your lease up. Already released or lapsed: changed:false. Another’s: CONFLICT, unless force (admin only).',
    params: z.strictObject({
      leaseId: leaseId('The lease (lse_…).'),
      force: z.boolean().default(false).describe('Release another’s lease (needs the admin scope).'),
    }),
    result: z.strictObject({ lease: Lease, changed }),
    events: ['lease.lock.release'],
    example: { leaseId: 'lse_0123456789abcdef' },
  }),
};
