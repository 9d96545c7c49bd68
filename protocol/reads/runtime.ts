import { z } from 'zod';
import { read } from '../contract.js';
import { limit } from '../schema.js';
import { CompanyProfile, OfficeLocation } from '../methods/runtime/company.js';
import { Lease } from '../methods/runtime/lease.js';
import { Presence } from '../methods/runtime/presence.js';
import { HEALTH, Registration } from '../methods/runtime/registry.js';

/** GET /api/v1/org/{agents, leases, company}: the runtime's control plane as org DTO reads (health on the database's clock). */

const pageCursor = z.string().max(200).describe('The nextCursor of the previous page.').optional();

export const runtimeReadContracts = {
  'org/agents': read({
    summary:
      "Who runs: every registration with its health now (critical once its TTL lapsed, stopped after 72 hours critical), and every principal's presence (an agent's falls back to its registrations). Filter by status.",
    query: z.strictObject({
      status: z.enum(HEALTH).optional().describe('Only registrations with this health now.'),
      limit: limit(500, 100),
      cursor: pageCursor,
    }),
    result: z.strictObject({
      registrations: z.array(Registration).describe('Ordered by principal, then instance.'),
      presence: z.array(Presence).describe('One per principal with a beat or a registration on this page.'),
      counts: z
        .strictObject(Object.fromEntries(HEALTH.map((h) => [h, z.number().int()])) as Record<(typeof HEALTH)[number], z.ZodNumber>)
        .describe('All registrations by health now.'),
      nextCursor: z.string().nullable(),
    }),
    example: { status: 'critical', limit: 100 },
  }),
  'org/leases': read({
    summary:
      'Leases held now (or, with all, also the released and lapsed of the last 24 hours), by name, with holder, fencing token and expiry on the database’s clock.',
    query: z.strictObject({
      all: z.enum(['true', 'false']).default('false').describe('true: also released and lapsed leases of the last 24 hours.'),
      prefix: z.string().max(200).describe('Only names starting with this.').optional(),
      limit: limit(500, 100),
      cursor: pageCursor,
    }),
    result: z.strictObject({ leases: z.array(Lease), nextCursor: z.string().nullable() }),
    example: { prefix: 'books:', limit: 100 },
  }),
  'org/company': read({
    summary: 'The company profile and its offices (active first, the head office at the top; archived ones with all=true).',
    query: z.strictObject({ all: z.enum(['true', 'false']).default('false').describe('true: archived offices too.') }),
    result: z.strictObject({
      profile: CompanyProfile,
      offices: z.array(OfficeLocation),
      headOfficeId: z.string().nullable(),
    }),
    example: {},
  }),
};
