import { z } from 'zod';
import { method } from '../contract.js';
import { id, text } from '../schema.js';
import { Slug } from './org.js';
import { agentId } from './persona.js';

const pairingId = id('pair', 'The pairing (from the first pairing.request).');

export const pairing = {
  request: method({
    summary:
      'Pre-auth: an agent with no credential asks to join an org. First call {orgSlug, agentName}: returns a pairingId, a code to read to an admin, and a pollSecret. An admin approves with pairing.approve; then call again with {orgSlug, pairingId, pollSecret} to receive the API key once. Polls append nothing until the pairing changes; calls are limited per address and per org (RATE_LIMITED with Retry-After).',
    params: z
      .strictObject({
        orgSlug: Slug.describe('The org to join.'),
        agentName: text({ min: 1, max: 100, description: 'First call: how the agent will be named in the org.' }).optional(),
        pairingId: pairingId.optional(),
        pollSecret: z.string().max(100).describe('Later calls: the pollSecret the first call returned.').optional(),
      })
      .superRefine((p, ctx) => {
        const polling = p.pairingId !== undefined || p.pollSecret !== undefined;
        if (polling && (p.pairingId === undefined || p.pollSecret === undefined)) {
          ctx.addIssue({
            code: 'custom',
            path: [p.pairingId === undefined ? 'pairingId' : 'pollSecret'],
            message: 'required when polling (give pairingId and pollSecret)',
          });
        } else if (polling && p.agentName !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['agentName'], message: 'only on the first call' });
        } else if (!polling && p.agentName === undefined) {
          ctx.addIssue({ code: 'custom', path: ['agentName'], message: 'required on the first call' });
        }
      }),
    result: z.strictObject({
      pairingId: z.string(),
      status: z.enum(['pending', 'claimed', 'expired']).describe('claimed: this result carries the key, once.'),
      expiresAt: z.string(),
      code: z.string().optional().describe('First call: the code an admin checks when approving.'),
      pollSecret: z.string().optional().describe('First call: keep it; it proves the later calls are yours.'),
      agentId: z.string().optional(),
      keyId: z.string().optional(),
      apiKey: z.string().optional().describe('Once approved: the agent’s API key. Shown only in this result.'),
      scopes: z.array(z.string()).optional(),
      message: z.string(),
    }),
    events: ['pairing.request.claim', 'pairing.request.create'],
    example: { orgSlug: 'default', agentName: 'bookkeeping agent' },
  }),
  approve: method({
    summary:
      'An admin approves a pending pairing after checking its code; the agent’s next pairing.request receives its key. With agentId the key is bound to that existing agent (and its persona) instead of a new one.',
    params: z.strictObject({
      pairingId,
      code: z
        .string()
        .regex(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/, 'must look like K7QM-4ZPX')
        .describe('The code the agent showed.'),
      tier: z.enum(['agent', 'reader']).default('agent').describe('What the agent may do (default agent).'),
      agentId: agentId('Bind the key to this existing agent (made by persona.generateAgentId: active, no live key) instead of creating a new one.').optional(),
    }),
    result: z.strictObject({ pairingId: z.string(), status: z.literal('approved'), agentId: z.string(), tier: z.string() }),
    events: ['pairing.request.approve'],
    example: { pairingId: 'pair_0123456789abcdef', code: 'K7QM-4ZPX', tier: 'agent' },
  }),
};
