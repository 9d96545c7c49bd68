import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';
import { changed } from './shared.js';

/**
 * The agent registry: a runtime registers an instance of an agent principal and beats on a TTL, as Consul's TTL
 * checks. passing ⇄ warning ⇄ critical (reported, or the TTL lapsed on the database's clock); 72 hours critical, or a
 * `stopped` beat, is stopped. A stopped beat frees the leases claimed under the registration.
 */

export const HEALTH = ['passing', 'warning', 'critical', 'stopped'] as const;
/** Hours critical before a registration counts as stopped. */
export const STOP_AFTER_CRITICAL_HOURS = 72;
/** A heartbeat within max(this, ttlSeconds/10) seconds of the last one is RATE_LIMITED. */
export const MIN_BEAT_SECONDS = 5;

export const registrationId = (description: string) => id('reg', description);

export const Registration = z.strictObject({
  id: z.string().describe('reg_…'),
  principalId: z.string().describe('The agent (or human) principal the runtime runs as.'),
  instance: z.string(),
  name: z.string(),
  version: z.string(),
  capabilities: z.array(z.string()),
  ttlSeconds: z.number().int(),
  status: z.enum(HEALTH).describe('Health now: the last beat, or critical once the TTL lapsed, stopped after 72 hours critical.'),
  reportedStatus: z.enum(HEALTH).describe('What the last beat said.'),
  lapsed: z.boolean().describe('No beat within ttlSeconds: status is critical whatever was reported.'),
  lastBeatAt: z.string(),
  expiresAt: z.string().describe('lastBeatAt + ttlSeconds: beat before then.'),
  criticalSince: z.string().nullable().describe('When it went critical (reported or lapsed); null while passing or warning.'),
  note: z.string().nullable().describe('The last beat’s note (never in the ledger).'),
  registeredAt: z.string(),
});

const capability = z
  .string()
  .min(1, 'must be at least 1 character')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9_.:/-]+$/, 'must be letters, digits and _ . : / -');

export const registry = {
  register: method({
    summary:
      'Register a runtime instance of the calling principal (or update it: principal and instance are the key). It starts passing; beat with registry.heartbeat before expiresAt.',
    params: z.strictObject({
      instance: text({ min: 1, max: 100, description: 'This runtime instance (host, pod, process), unique per principal.' }),
      name: text({ min: 1, max: 100, description: 'What runs (e.g. books-agent).' }),
      version: text({ min: 1, max: 50, description: 'Its version.' }),
      capabilities: z.array(capability).max(50, 'must be at most 50 capabilities').default([]).describe('What it can do (method names, tool names).'),
      ttlSeconds: z
        .number()
        .int('must be an integer')
        .min(15, 'must be at least 15')
        .max(3600, 'must be at most 3600')
        .default(60)
        .describe('Beat at least this often (15–3600, default 60).'),
    }),
    result: z.strictObject({ registration: Registration, changed }),
    events: ['registry.agent.register'],
    example: { instance: 'worker-1', name: 'books-agent', version: '1.4.2', capabilities: ['books.billCreate'], ttlSeconds: 60 },
  }),
  heartbeat: method({
    summary:
      'Beat for a registration of yours: its health now (passing, warning, critical, stopped) and an optional note. Revives a lapsed one; stopped frees its leases. Sooner than max(5 s, ttlSeconds/10) after the last beat is RATE_LIMITED.',
    params: z.strictObject({
      registrationId: registrationId('The registration (reg_…).'),
      status: z.enum(HEALTH).default('passing').describe('passing (default), warning, critical or stopped.'),
      note: text({ max: 500, description: 'What is wrong or fine, for people reading /org/agents (never in the ledger).' }).optional(),
    }),
    result: z.strictObject({
      registration: Registration,
      leasesReleased: z.number().int().describe('Leases freed by a stopped beat.'),
      nextBeatInSeconds: z.number().int().describe('Beat again after this (and before expiresAt).'),
    }),
    events: ['registry.agent.heartbeat'],
    example: { registrationId: 'reg_0123456789abcdef', status: 'passing' },
  }),
};
