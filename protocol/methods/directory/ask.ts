import { z } from 'zod';
import { method } from '../../contract.js';
import { text } from '../../schema.js';

/*
 * directory.ask: a question about the outside people and organisations the workspace knows, answered by the AI
 * gateway from the directory's typed reads (run as the caller) and checked before it is returned: every claim
 * cites records the reads returned, every count is recomputed, and every email, phone number and party name
 * written is a field of a record its statement cites. The same shapes validate what a model returns.
 */

export const AskCitation = z.strictObject({
  kind: z.literal('record'),
  id: z.string().min(1).max(64).describe('A record id a read returned: per_…, co_…, chn_…, awr_…, plk_…, lst_…'),
});

export const AskFigure = z
  .strictObject({
    value: z.number().int().describe('The number the claim states.'),
    unit: z.literal('count'),
    op: z.literal('count').describe('The number of the claim\u2019s citations.'),
  })
  .describe('A count the claim states: the number of records it cites.');

export const AskClaim = z.strictObject({
  text: z.string().min(1).max(1000).describe('One statement; any number in it is the figure.'),
  cites: z.array(AskCitation).max(200).describe('The records the statement rests on.'),
  figure: AskFigure.optional(),
});

/** What a provider (a model) hands back: an answer with claims, or why it cannot answer. */
export const AskDraft = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('answer'), answer: z.string().min(1).max(4000), claims: z.array(AskClaim).max(50) }),
  z.strictObject({ kind: z.literal('cannot_answer'), reason: z.string().min(1).max(1000) }),
]);

export const DIRECTORY_ASK_NOTICE =
  'Written by an AI model from the directory reads named in actOnWith and checked against what they returned; it is not a record. Confirm with those reads before acting, and act only through the directory methods.';

export const ask = {
  ask: method({
    summary:
      'Ask about the outside people and organisations in plain words: who we know at an organisation, who in the company knows someone, how to reach someone, how many. Answered from the directory reads only (as the caller), each claim citing its records; an email, phone or name not in a cited record is refused (status refused, with the reason). It reads, never acts: "merge Jane" is refused. Each ask is audited (GET /ops) and appends directory.ask.answer (ids and counts, never the question).',
    params: z.strictObject({
      question: text({ min: 3, max: 2000, description: 'The question, in plain words (3 to 2000 characters).' }),
    }),
    result: z.strictObject({
      status: z
        .enum(['answered', 'refused'])
        .describe('refused: the answerer could not answer, its answer was not grounded, it failed, or ran out of time; reason says which.'),
      answer: z.string().nullable().describe('The answer text (null when refused).'),
      claims: z.array(AskClaim).describe('What the answer rests on, each claim with its citations (empty when refused).'),
      reason: z.string().nullable().describe('Why the ask was refused (null when answered). Relay it verbatim.'),
      notice: z.string().describe('Always present: the answer is not a record to act on.'),
      actOnWith: z.array(z.string()).describe('The reads the answer was drawn from, else the directory reads.'),
      provider: z.string().describe('local or openai.'),
      model: z.string().describe('The model that answered (empty when none did).'),
      audit: z.strictObject({ id: z.string().describe('aud_…'), seq: z.number().int().describe("Seq in the org's AI audit chain (GET /ops).") }),
    }),
    events: ['directory.ask.answer'],
    example: { question: 'Who do we know at Acme?' },
  }),
};
