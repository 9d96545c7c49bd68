import { sheetFedRange } from './fed-range.js';
import { sheetRead } from './read.js';
import { sheetTabOp } from './tabs.js';
import { sheetWriteCells } from './write.js';

/*
 * The sheet area of files.* (docs/families/files.md, Sheets): read ranges, write cells, tab and row/column ops,
 * fed ranges (fed-range.ts, visible.ts), on the IronCalc engine (engine.ts). The sheet kind's content (create, duplicate, restore, export) is content.ts.
 */
export const sheetHandlers = { sheetRead, sheetWriteCells, sheetTabOp, sheetFedRange };
