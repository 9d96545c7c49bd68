import { z } from 'zod';

/**
 * What a family's `ask` answers (calendar.ask, crm.ask): the answer with its claims and what each cites, or a
 * refusal with its reason; always the notice that an answer is not a record, the reads it came from, and its AI
 * audit record. `cites` says what this family's claims may cite; `refused` when this family refuses.
 */
export const askResult = (opts: { cites: string; refused: string }) =>
  z.strictObject({
    status: z.enum(['answered', 'refused']).describe(`refused: ${opts.refused}; reason says which.`),
    answer: z.string().nullable().describe('The answer text (null when refused).'),
    claims: z
      .array(z.strictObject({ text: z.string().describe('One statement.'), cites: z.array(z.string()).describe(opts.cites) }))
      .describe('What the answer rests on (empty when refused).'),
    reason: z.string().nullable().describe('Why it was refused (null when answered). Relay it verbatim.'),
    notice: z.string().describe('Always present: the answer is not a record to act on.'),
    actOnWith: z.array(z.string()).describe('The reads it was drawn from.'),
    provider: z.string().describe('local or openai.'),
    model: z.string().describe('The model that answered (empty when none did).'),
    auditSeq: z.number().int().describe('Seq of this ask in the org’s AI audit chain (GET /ops).'),
  });
