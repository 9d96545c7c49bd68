import { z } from 'zod';
import { method } from '../../contract.js';
import { INT32_MAX, proofFields } from '../../schema.js';
import { FoundationDoc } from './foundation.js';

/**
 * The org's design tokens as settings sees them: a view of the brand foundation's tokens (one source), saved through
 * the same commit as branding.saveFoundation, with the same checks and the same hold for an agent.
 */
export const settingsDesignTokens = {
  getDesignTokens: method({
    summary: "The org's design tokens (DTCG 2025.10, the brand foundation's) and the brand version they are at.",
    params: z.strictObject({}),
    result: z.strictObject({ tokens: z.record(z.string(), z.unknown()), version: z.number().int().describe('The brand foundation version.') }),
    example: {},
  }),
  saveDesignTokens: method({
    hold: { completion: 'retry', when: 'an agent saves a change' },
    summary:
      "Replace the org's design tokens (the brand foundation's) as a new brand version: valid DTCG, aliases that resolve, no cycles, and the usage pairs still meeting WCAG AA. ifVersion is the brand version read (else CONFLICT naming it). The same tokens: changed:false.",
    params: z.strictObject({
      ifVersion: z
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(INT32_MAX, `must be at most ${INT32_MAX}`)
        .describe('The brand version read (getDesignTokens).'),
      tokens: FoundationDoc.shape.tokens.unwrap().describe('The whole token tree (DTCG 2025.10); at most 64 KiB.'),
      ...proofFields,
    }),
    result: z.strictObject({ tokens: z.record(z.string(), z.unknown()), version: z.number().int(), changed: z.boolean(), paths: z.array(z.string()) }),
    events: ['settings.tokens.save'],
    example: { ifVersion: 3, tokens: { color: { $type: 'color', brand: { primary: { $value: '#0b5cad' } } } } },
  }),
};
