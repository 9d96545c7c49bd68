import { z } from 'zod';
import { method } from '../../contract.js';
import { id, text } from '../../schema.js';

/**
 * Native sheets (docs/families/files.md, Sheets): tabs (`tab_`) of cells addressed in A1 notation, each holding an
 * input, a literal or a `=formula`, and the value the engine (IronCalc) computes from it. A write that would
 * replace a formula is refused unless it says overwriteFormulas; revisions are immutable. Errors are values:
 * `#DIV/0!`, `#REF!`, `#NAME?`, a circular reference `#CIRC!`.
 *
 * contentSha256 is the SHA-256 (hex) of the canonical JSON (RFC 8785) of `{tabs:[{id, title, cells:{A1: input}}]}`
 * over every tab in order, cells holding only non-empty inputs; a tab's sha256 is that of its `{A1: input}` alone.
 */

export const MAX_READ_CELLS = 10_000;
export const MAX_WRITE_CELLS = 10_000;

const fileId = id('fil', 'The sheet (a file of kind sheet).');
const tabId = (description: string) => id('tab', description);
const revision = (description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(2_000_000_000, 'must be at most 2000000000')
    .describe(description);
const changed = z.boolean().describe('false when nothing changed (the event says noop).');
const a1 = (description: string) => z.string().min(1).max(20).describe(description);

const Value = z.union([z.number(), z.string(), z.boolean(), z.null()]).describe('The computed value: number, string, boolean, or null (empty or an error).');
const CellError = z
  .string()
  .nullable()
  .describe(
    'An error value such as #DIV/0!, #REF!, #NAME?, #CIRC! (circular reference), else null. #N/A also marks a fed cell you may not read (and formulas over it): see feeds.',
  );

const TabInfo = z.strictObject({
  id: z.string().describe('tab_…'),
  title: z.string(),
  sha256: z.string().describe('SHA-256 of the canonical JSON of the tab’s {A1: input}.'),
  cells: z.number().int().describe('Non-empty input cells.'),
});

const ReadCell = z.strictObject({
  a1: z.string(),
  input: z.string().describe('What was written: a literal or =formula ("" for a cell that only shows a spilled value).'),
  value: Value,
  error: CellError,
});

const ValueCell = z.strictObject({ tabId: z.string(), a1: z.string(), value: Value, error: CellError });

export const MAX_FEED_CELLS = 10_000;

const Source = z.strictObject({
  method: z.string().min(3).max(80).describe('A read (R) method you may call, e.g. books.reports; it runs as whoever sets or refreshes the feed.'),
  params: z.record(z.string(), z.unknown()).default({}).describe('Its params, as the method takes them ({report:"profitAndLoss", from, to}).'),
  rows: z
    .string()
    .min(1)
    .max(200)
    .describe('Dotted path to the list of rows in its result (expenses.lines). Default: the result’s only list of objects.')
    .optional(),
  columns: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(100)
    .describe('Fields of each row taken as columns, in order (dotted paths). Default: the first row’s number, text and boolean fields.')
    .optional(),
  header: z.boolean().default(true).describe('Write the column names as the block’s first row.'),
});

const Feed = z.strictObject({
  id: z.string().describe('fed_…'),
  tabId: z.string(),
  range: z.string().nullable().describe('The block it fills now (A5:C12), null while empty.'),
  source: z.strictObject({
    method: z.string(),
    params: z.record(z.string(), z.unknown()),
    rows: z.string().nullable(),
    columns: z.array(z.string()).nullable(),
    header: z.boolean(),
  }),
  scope: z.string().describe('The scope a reader needs to see its values; without it they read #N/A.'),
  status: z.enum(['ok', 'error']).describe('How its last refresh went.'),
  error: z.string().nullable().describe('Why the last refresh failed (the source’s error or a block in the way); the old values stay.'),
  refreshedAt: z.string(),
  hidden: z.boolean().describe('true when you lack its scope: its cells and formulas over them read #N/A for you.'),
});

const rowsOrCols = (description: string) => z.number().int('must be an integer').min(1, 'must be >= 1').describe(description);

export const sheets = {
  sheetRead: method({
    summary:
      'Read cells of a sheet (head or a revision): each cell’s input (literal or =formula), computed value and error, ≤10k cells per read; plus the tabs.',
    params: z.strictObject({
      fileId,
      tabId: tabId('The tab (default the first).').optional(),
      range: z
        .string()
        .min(1)
        .max(40)
        .describe(`A1 notation: a cell (B7) or a range (A1:C10), at most ${MAX_READ_CELLS} cells. Default: the tab’s used range.`)
        .optional(),
      revision: revision('A past revision (default the head).').optional(),
    }),
    result: z.strictObject({
      fileId: z.string(),
      tabId: z.string(),
      revision: z.number().int().describe('The revision read.'),
      head: z.number().int().describe('The head revision: pass it as baseRevision to write.'),
      contentSha256: z.string().describe('Of the revision read (see the family summary).'),
      range: z.string().nullable().describe('The range read (null: the tab is empty).'),
      cells: z.array(ReadCell).describe('Non-empty cells of the range, row by row.'),
      tabs: z.array(TabInfo).describe('Every tab, in order.'),
      feeds: z.array(Feed).describe('Fed ranges of every tab at the revision read (files.sheetFedRange).'),
    }),
    example: { fileId: 'fil_0123456789abcdef', range: 'A1:C10' },
  }),
  sheetWriteCells: method({
    summary:
      'Write cells of a sheet tab (≤10k): literals or =formulas ("" clears). Replacing a formula cell is CONFLICT unless overwriteFormulas. Returns the new revision, formula cells whose value changed, and cells now holding an error.',
    params: z.strictObject({
      fileId,
      tabId: tabId('The tab (default the first).').optional(),
      baseRevision: revision('The revision you read: a written cell changed since then is CONFLICT naming it.').optional(),
      cells: z
        .array(
          z.strictObject({
            a1: a1('The cell, A1 notation (B7).'),
            input: z
              .union([z.string().max(32_767), z.number(), z.boolean()])
              .describe('A literal ("Q3", 42, "10%", TRUE) or a formula starting with = ("=SUM(A1:A3)"); "" clears the cell.'),
          }),
        )
        .min(1, 'must hold at least 1 cell')
        .max(MAX_WRITE_CELLS, `at most ${MAX_WRITE_CELLS} cells per call: split the write into several calls`)
        .describe('Applied together; all or none. A cell named twice takes the last.'),
      overwriteFormulas: z.boolean().default(false).describe('Allow replacing (or clearing) cells that hold a formula.'),
    }),
    result: z.strictObject({
      revision: z.number().int().describe('The head after the call.'),
      contentSha256: z.string(),
      cells: z.array(ReadCell).describe('The cells written, as they now read.'),
      recalculated: z.array(ValueCell).describe('Other formula cells (any tab) whose value changed, at most 10k.'),
      errors: z.array(ValueCell).describe('Written or recalculated cells now holding an error value.'),
      changed,
    }),
    events: ['files.sheet.write'],
    example: { fileId: 'fil_0123456789abcdef', cells: [{ a1: 'A4', input: '=SUM(A1:A3)' }] },
  }),
  sheetTabOp: method({
    summary:
      'Change a sheet’s tabs (add, rename, move, duplicate, delete; the last tab cannot go) or a tab’s rows and columns (insert/delete at `at`, `count`); formula references move with them.',
    params: z.strictObject({
      fileId,
      op: z.enum(['add', 'rename', 'move', 'duplicate', 'delete', 'insertRows', 'deleteRows', 'insertColumns', 'deleteColumns']).describe('What to do.'),
      tabId: tabId('The tab (every op but add).').optional(),
      title: text({ min: 1, max: 31, description: 'The tab’s title, unique in the sheet (add, rename; duplicate: default "<title> (1)").' }).optional(),
      position: z
        .number()
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(1_000)
        .describe('Place among the tabs, 0 first (add, move, duplicate; default last).')
        .optional(),
      at: rowsOrCols('The first row (1-based) or column (1 = A) inserted before or deleted (row and column ops).').max(1_048_576).optional(),
      count: rowsOrCols('How many rows or columns (default 1).').max(1_048_576).optional(),
    }),
    result: z.strictObject({ tabId: z.string(), tabs: z.array(TabInfo), revision: z.number().int(), contentSha256: z.string(), changed }),
    events: ['files.sheet_tab.change'],
    example: { fileId: 'fil_0123456789abcdef', op: 'insertRows', tabId: 'tab_0123456789abcdef', at: 2, count: 1 },
  }),
  sheetFedRange: method({
    summary:
      'A block of a sheet filled from a read method run as you: set (tabId?, anchor, source {method, params, rows?, columns?, header?}), refresh (feedId, default every feed; ok or error per feed), remove (feedId; keepValues leaves the values as plain cells). Fed cells refuse writes; readers without the source’s scope see them and formulas over them as #N/A.',
    params: z.strictObject({
      fileId,
      op: z.enum(['set', 'refresh', 'remove']).describe('set a new feed, refresh feeds now, or remove one.'),
      feedId: id('fed', 'The feed (refresh: default every feed of the sheet; remove: required).').optional(),
      tabId: tabId('The tab (set; default the first).').optional(),
      anchor: a1('The block’s top-left cell (set), A1 notation.').optional(),
      source: Source.describe('Where the values come from (set).').optional(),
      overwrite: z.boolean().default(false).describe('set: replace the literals and formulas in the block’s way (otherwise CONFLICT naming them).'),
      keepValues: z
        .boolean()
        .default(false)
        .describe('remove: keep the fed values as plain cells every reader of the sheet sees (needs the source’s scope); default clears them.'),
    }),
    result: z.strictObject({
      revision: z.number().int().describe('The head after the call.'),
      contentSha256: z.string(),
      feeds: z.array(Feed).describe('The feeds the call set, refreshed or removed, with how each went.'),
      recalculated: z.number().int().describe('Formula cells whose value changed.'),
      changed,
    }),
    events: ['files.sheet_feed.set', 'files.sheet_feed.refresh', 'files.sheet_feed.remove'],
    example: {
      fileId: 'fil_0123456789abcdef',
      op: 'set',
      anchor: 'A5',
      source: { method: 'books.reports', params: { report: 'profitAndLoss', from: '2026-07-01', to: '2026-09-30' }, rows: 'expenses.lines' },
    },
  }),
};
