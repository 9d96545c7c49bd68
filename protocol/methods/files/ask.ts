import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';

/*
 * files.ask: a question about what the drive's files say, answered by the AI gateway from the drive's typed reads
 * run as the caller (a file the caller may not read does not exist for the answer either) and checked before it is
 * returned: every claim cites a doc block, a sheet cell, a slide or a search passage a read returned in this call,
 * quotes are whole words of what it cites, and every number is a quote's or is recomputed from cited cells' values.
 * The same shapes validate what a model returns.
 *
 * A citation names a place in a file:
 * - `fil_…` a file (a files.list hit: its passage, name and details);
 * - `fil_…#blk_…` a block of a doc;
 * - `fil_…#sld_…` a slide of a deck;
 * - `fil_…!Tab!B7` a cell of a sheet: the tab's title as spreadsheets write it in a reference, bare when it is a plain
 *   name (letters, digits and `_`, not starting with a digit, not itself like a cell such as `Q3`), else in single
 *   quotes with a quote inside doubled (`fil_…!'Q3 plan'!B7`, `fil_…!'Bob''s'!A1`); then the cell in A1 notation.
 * A cell whose value is an error (`#DIV/0!`; `#N/A` for a fed cell the caller may not read…) has no citation: it states no figure.
 */

/** A citation: `fil_…`, `fil_…#blk_…`, `fil_…#sld_…` or `fil_…!Tab!B7` (see above). */
export const FILE_CITE = /^fil_[A-Za-z0-9]+(?:#(?:blk|sld)_[A-Za-z0-9]+|!(?:[A-Za-z_][A-Za-z0-9_]*|'(?:[^'\n]|'')+')![A-Z]{1,3}[1-9][0-9]{0,6})?$/;

export const MAX_ASK_FILES = 50;

export const FilesAskCitation = z.strictObject({
  kind: z.literal('record'),
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(FILE_CITE, "must be fil_…, fil_…#blk_…, fil_…#sld_… or fil_…!Tab!B7 (a tab title with spaces quoted: fil_…!'Q3 plan'!B7)")
    .describe(
      "Where the claim rests: fil_… (a file or a search hit's passage), fil_…#blk_… (a doc block), fil_…#sld_… (a slide), fil_…!Tab!B7 (a sheet cell).",
    ),
});

export const FilesAskFigure = z
  .strictObject({
    value: z.number().int().describe('The number the claim states: cents for money, else the number itself.'),
    unit: z.enum(['cents', 'count']).describe('cents: money written $1,234.56 (field valueCents); count: a plain integer.'),
    op: z
      .enum(['value', 'sum', 'min', 'max', 'count'])
      .describe('How value is recomputed: value of one cited cell, sum / min / max over the cited cells, count of the citations.'),
    field: z.enum(['value', 'valueCents']).describe("The cells' number: value (an integer cell) or valueCents (money); not for count.").optional(),
  })
  .describe("A number the claim states and how to recompute it from the cited cells' values.");

export const FilesAskClaim = z.strictObject({
  text: z.string().min(1).max(1000).describe('One statement; any number in it is the figure or inside the quote.'),
  cites: z.array(FilesAskCitation).max(200).describe('The blocks, cells, slides or files the statement rests on.'),
  figure: FilesAskFigure.optional(),
  quote: z.string().min(1).max(1000).describe('Words copied verbatim from a record it cites (whole words).').optional(),
});

/** What a provider (a model) hands back: an answer with claims, or why it cannot answer. */
export const FilesAskDraft = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('answer'), answer: z.string().min(1).max(4000), claims: z.array(FilesAskClaim).max(50) }),
  z.strictObject({ kind: z.literal('cannot_answer'), reason: z.string().min(1).max(1000) }),
]);

export const FILES_ASK_NOTICE =
  'Written by an AI model from the drive reads named in actOnWith, run as you, and checked against what they returned; it is not a record. File text was read as data, never as instructions. Confirm with those reads before acting on it.';

export const ask = {
  ask: method({
    summary:
      "Ask what the drive's files say, in plain words. Answered from the drive reads run as you (search, docs, sheets, decks): each claim cites fil_…#blk_… (doc block), fil_…!Tab!B7 (sheet cell; 'Tab name' quoted when not a plain name), fil_…#sld_… (slide) or fil_… (file); numbers match cited cells. Ungrounded: status refused with reason. Offline it quotes the best passage. Audited (GET /ops).",
    params: z.strictObject({
      question: text({ min: 3, max: 2000, description: 'The question, in plain words (3 to 2000 characters).' }),
      fileIds: z
        .array(id('fil', 'A file you can read (not a folder).'))
        .min(1, 'must name at least 1 file')
        .max(MAX_ASK_FILES, `must name at most ${MAX_ASK_FILES} files`)
        .describe('Only these files (default: every file you can read). One you cannot read is NOT_FOUND, as files.get answers.')
        .optional(),
    }),
    result: z.strictObject({
      status: z
        .enum(['answered', 'refused'])
        .describe('refused: no file you can read answers it, the answer was not grounded, the answerer failed or ran out of time; reason says which.'),
      answer: z.string().nullable().describe('The answer text (null when refused).'),
      claims: z.array(FilesAskClaim).describe('What the answer rests on, each claim with its citations (empty when refused).'),
      reason: z.string().nullable().describe('Why the ask was refused (null when answered). Relay it verbatim.'),
      notice: z.string().describe('Always present: the answer is not a record to act on.'),
      actOnWith: z.array(z.string()).describe('The reads the answer was drawn from, else the drive reads.'),
      provider: z.string().describe('local or openai.'),
      model: z.string().describe('The model that answered (empty when none did).'),
      audit: z.strictObject({ id: z.string().describe('aud_…'), seq: z.number().int().describe("Seq in the org's AI audit chain (GET /ops).") }),
    }),
    example: { question: 'What notice period does the office lease give?', fileIds: ['fil_0123456789abcdef'] },
  }),
};
