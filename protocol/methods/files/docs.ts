import { z } from 'zod';
import { method } from '../../contract.js';
import { id, limit, proofFields, text } from '../../schema.js';

/**
 * Native docs (docs/families/files.md, Docs): ProseMirror JSON with Tiptap StarterKit names, in tabs (`tab_`) of
 * top-level blocks with stable ids (`blk_`). Writes name blocks, never offsets: replace, insert, delete,
 * replaceText and setContent, as JSON or GitHub-flavoured Markdown, against the revision you read (baseRevision):
 * ops on blocks changed since then are CONFLICT naming them, the rest merge onto the head. Revisions are immutable.
 * An agent's write to a review-mode doc, or any write in mode suggest, becomes a suggestion (`sug_`) that an editor
 * accepts or rejects; an agent's accept holds for a human.
 *
 * contentSha256 is the SHA-256 (hex) of the canonical JSON (RFC 8785: keys sorted, no whitespace) of `doc` as
 * files.docRead (format json) returns it for the whole doc: `{tabs:[{id, title, parentTabId, content}]}`, content
 * being each tab's ProseMirror doc `{type:'doc', content:[blocks]}`, pages joined. A tab's sha256 is that of its
 * `content` alone.
 */

export const MAX_DOC_OPS = 500;
const DOC_FORMATS = ['json', 'markdown', 'text'] as const;
export const SUGGESTION_STATUSES = ['open', 'stale', 'accepted', 'rejected'] as const;

const fileId = id('fil', 'The doc (a file of kind doc).');
const blockId = (description: string) => id('blk', description);
const tabId = (description: string) => id('tab', description);
const revision = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(2_000_000_000, 'must be at most 2000000000')
    .describe(description);
const changed = z.boolean().describe('false when nothing changed (the event says noop).');
const markdown = (description: string) => text({ max: 1_000_000, description });
const nodeJson = z
  .record(z.string(), z.unknown())
  .describe(
    'A top-level block as ProseMirror JSON with Tiptap names: paragraph, heading {level}, bulletList, orderedList {start}, listItem, blockquote, codeBlock {language}, horizontalRule, image {src: fil_…, alt}, hardBreak, mention {id: usr_/agt_}; marks bold, italic, strike, code, link {href}. attrs.id (blk_…) is kept when free, else given.',
  );

const replaceOp = z.strictObject({
  op: z.literal('replace').describe('Replace a block (it keeps its id; extra blocks from markdown follow it).'),
  blockId: blockId('The block to replace.'),
  node: nodeJson.optional(),
  markdown: markdown('The new block(s) as Markdown (instead of node).').optional(),
});
const insertOp = z.strictObject({
  op: z.literal('insert').describe('Insert blocks after or before a block, or at the end of a tab (default the first tab).'),
  afterBlockId: blockId('Insert after this block.').optional(),
  beforeBlockId: blockId('Insert before this block.').optional(),
  tabId: tabId('Without a block: append to this tab (default the first).').optional(),
  nodes: z.array(nodeJson).min(1, 'must hold at least 1 block').max(5_000, 'must hold at most 5000 blocks').describe('The blocks as JSON.').optional(),
  markdown: markdown('The blocks as Markdown (instead of nodes).').optional(),
});
const deleteOp = z.strictObject({
  op: z.literal('delete').describe('Delete a block (a tab left empty keeps one empty paragraph).'),
  blockId: blockId('The block to delete.'),
});
const replaceTextOp = z.strictObject({
  op: z.literal('replaceText').describe('Replace text inside one block, keeping its marks (the first matched character’s).'),
  blockId: blockId('The block holding the text.'),
  find: text({ min: 1, max: 10_000, description: 'The exact text to find (within one paragraph, heading or item).' }),
  replace: text({ max: 100_000, description: 'What replaces it ("" deletes it).' }),
  all: z.boolean().describe('Replace every occurrence; without it, find must occur exactly once.').optional(),
});
const setContentOp = z.strictObject({
  op: z.literal('setContent').describe('Replace a whole tab’s content; unchanged blocks keep their ids.'),
  tabId: tabId('The tab (default the first).').optional(),
  markdown: markdown('The tab as Markdown.').optional(),
  json: z.record(z.string(), z.unknown()).describe('The tab as a ProseMirror doc {type:"doc", content:[…]}.').optional(),
});

export const DocOp = z.discriminatedUnion('op', [replaceOp, insertOp, deleteOp, replaceTextOp, setContentOp]);
export type DocOpInput = z.infer<typeof DocOp>;

const TabInfo = z.strictObject({
  id: z.string().describe('tab_…'),
  title: z.string(),
  parentTabId: z.string().nullable().describe('The tab it is nested under; null at the top.'),
  sha256: z.string().describe('SHA-256 of the canonical JSON of the tab’s content.'),
  blockCount: z.number().int(),
});

const TabDoc = z.strictObject({
  id: z.string(),
  title: z.string(),
  parentTabId: z.string().nullable(),
  content: z
    .strictObject({ type: z.literal('doc'), content: z.array(z.record(z.string(), z.unknown())) })
    .describe('The tab’s ProseMirror doc (this page’s blocks).'),
});

const Change = z.strictObject({
  index: z.number().int().describe('Its place in ops.'),
  op: z.enum(['replace', 'insert', 'delete', 'replaceText', 'setContent']),
  tabId: z.string(),
  blockIds: z.array(z.string()).describe('The blocks it changes (before) or adds (insert).'),
  before: z.string().nullable().describe('Those blocks at the base, as Markdown (null: insert).'),
  after: z.string().nullable().describe('What they become, as Markdown (null: delete).'),
});

export const Suggestion = z.strictObject({
  id: z.string().describe('sug_…'),
  fileId: z.string(),
  baseRevision: z.number().int(),
  status: z.enum(SUGGESTION_STATUSES).describe('stale: open, but a block it changes has changed since its base (accepting it is CONFLICT).'),
  staleBlocks: z.array(z.string()).describe('Open: the blocks (or tabs) changed since the base.'),
  opCount: z.number().int(),
  changes: z.array(Change),
  authorId: z.string(),
  createdAt: z.string(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  revision: z.number().int().nullable().describe('accepted: the revision it made.'),
});

export const docs = {
  docRead: method({
    summary:
      'Read a doc (head or a revision): tabs, and a page of blocks as json (`doc`, ProseMirror), markdown or text (`blocks` with their ids). sha256 of canonical JSON of a whole read’s `doc` = contentSha256.',
    params: z.strictObject({
      fileId,
      tabId: tabId('Only this tab.').optional(),
      revision: revision('A past revision (default the head).').optional(),
      format: z.enum(DOC_FORMATS).default('json').describe('json: ProseMirror JSON; markdown: GFM per block; text: plain text per block.'),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 500).describe('Blocks per page, 1 to 500 (default 500).'),
    }),
    result: z.strictObject({
      fileId: z.string(),
      revision: z.number().int().describe('The revision read.'),
      head: z.number().int().describe('The head revision: pass it as baseRevision to write.'),
      contentSha256: z.string().describe('Of the revision read (see the family summary).'),
      format: z.enum(DOC_FORMATS),
      tabs: z.array(TabInfo).describe('Every tab, in reading order.'),
      doc: z
        .strictObject({ tabs: z.array(TabDoc) })
        .optional()
        .describe('json: this page, tabs holding its blocks.'),
      blocks: z
        .array(z.strictObject({ id: z.string(), tabId: z.string(), type: z.string(), markdown: z.string().optional(), text: z.string().optional() }))
        .optional()
        .describe('markdown and text: this page’s blocks.'),
      nextCursor: z.string().nullable(),
    }),
    example: { fileId: 'fil_0123456789abcdef', format: 'markdown' },
  }),
  docWriteRevision: method({
    summary:
      'Edit a doc by block ids against baseRevision (≤500 ops: replace, insert, delete, replaceText, setContent; JSON or Markdown). Blocks changed since the base: CONFLICT naming them; others merge. mode suggest (or an agent on a review-mode doc): a suggestion sug_.',
    params: z.strictObject({
      fileId,
      baseRevision: revision('The revision your ops were written against (docRead head).'),
      ops: z
        .array(DocOp)
        .min(1, 'must hold at least 1 op')
        .max(MAX_DOC_OPS, `at most ${MAX_DOC_OPS} ops per call: split the edit into several calls`)
        .describe('Applied in order; all or none.'),
      mode: z.enum(['edit', 'suggest']).default('edit').describe('edit (editor): a new revision; suggest (commenter): a suggestion for an editor to accept.'),
    }),
    result: z.strictObject({
      outcome: z.enum(['revised', 'suggested', 'unchanged']),
      revision: z.number().int().describe('The head after the call.'),
      contentSha256: z.string().describe('The head’s (see the family summary).'),
      suggestionId: z.string().nullable(),
      changedBlocks: z.array(z.string()).describe('Blocks added, changed or removed (suggested: that would be).'),
      results: z.array(z.strictObject({ blockIds: z.array(z.string()) })).describe('Per op: the blocks it left (new ids for inserted blocks).'),
      changed,
    }),
    events: ['files.doc.revise', 'files.doc.suggest'],
    example: { fileId: 'fil_0123456789abcdef', baseRevision: 3, ops: [{ op: 'replaceText', blockId: 'blk_0123456789abcdef', find: 'Q3', replace: 'Q4' }] },
  }),
  docTabOp: method({
    summary:
      'Add, rename, move or delete a doc tab (editor). Tabs nest under parentTabId (3 levels); position counts among siblings from 0. Deleting removes its child tabs; the last tab cannot go.',
    params: z.strictObject({
      fileId,
      op: z.enum(['add', 'rename', 'move', 'delete']).describe('What to do.'),
      tabId: tabId('The tab (rename, move, delete).').optional(),
      title: text({ min: 1, max: 200, description: 'The tab’s title (add, rename).' }).optional(),
      position: z
        .number()
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(1_000, 'must be at most 1000')
        .describe('Place among its siblings, 0 first (default last).')
        .optional(),
      parentTabId: tabId('Nest under this tab (add, move); null: top level.').nullable().optional(),
    }),
    result: z.strictObject({ tabId: z.string(), tabs: z.array(TabInfo), revision: z.number().int(), contentSha256: z.string(), changed }),
    events: ['files.doc_tab.change'],
    example: { fileId: 'fil_0123456789abcdef', op: 'add', title: 'Appendix' },
  }),
  docSuggestions: method({
    summary:
      'A doc’s suggestions, newest first, each op with its blocks before and after (Markdown); stale ones (a block changed since their base) cannot be accepted.',
    params: z.strictObject({
      fileId,
      status: z.enum(SUGGESTION_STATUSES).describe('Only this status (open: not stale).').optional(),
      cursor: z.string().max(200).describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({ suggestions: z.array(Suggestion), nextCursor: z.string().nullable() }),
    example: { fileId: 'fil_0123456789abcdef', status: 'open' },
  }),
  docSuggestResolve: method({
    hold: { completion: 'retry', when: 'an agent accepts' },
    summary:
      'Accept (a new revision) or reject a suggestion (editor; its author may reject it). A stale one is CONFLICT and nothing changes. An agent’s accept holds for a human (files.doc_suggest_resolve).',
    params: z.strictObject({
      suggestionId: id('sug', 'The suggestion.'),
      action: z.enum(['accept', 'reject']).describe('accept: apply it as a new revision; reject: close it.'),
      ...proofFields,
    }),
    result: z.strictObject({ suggestion: Suggestion, revision: z.number().int().describe('The head after the call.'), contentSha256: z.string(), changed }),
    events: ['files.suggestion.accept', 'files.suggestion.reject'],
    example: { suggestionId: 'sug_0123456789abcdef', action: 'accept' },
  }),
};
