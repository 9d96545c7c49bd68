import { MAX_FEED_CELLS } from '../../../protocol/methods/files/sheets.js';
import { MAX_INPUT } from './content.js';
import type { FeedSource } from './feeds.js';

/*
 * A feed's block from its source's result: the rows (a list of objects found by a dotted path, or the result's only
 * one), the columns (dotted fields of a row), a header row of their names. Numbers are written as they come, so
 * cents stay integers; text is written as a text literal ('Rent), never read as a formula, number or date; a field
 * that is a list or an object is refused by name. Each refusal is a sentence the caller can act on.
 */

export class SourceShapeError extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function at(value: unknown, path: string): unknown {
  let v = value;
  for (const key of path.split('.')) {
    if (!isRecord(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** Paths of the lists of objects in a result, two levels deep (lines, expenses.lines). */
function listsIn(result: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string, depth: number) => {
    if (!isRecord(v)) return;
    for (const [k, x] of Object.entries(v)) {
      const p = path ? `${path}.${k}` : k;
      if (Array.isArray(x) && x.every(isRecord)) out.push(p);
      else if (depth < 2) walk(x, p, depth + 1);
    }
  };
  walk(result, '', 1);
  return out;
}

const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** A field's value as a cell input: numbers as written, text as a text literal, booleans TRUE/FALSE, null empty. */
function inputOf(v: unknown, column: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new SourceShapeError(`column ${column} holds ${v}, not a number a cell can hold`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'string') {
    if (v.length >= MAX_INPUT) throw new SourceShapeError(`column ${column} holds text longer than the ${MAX_INPUT - 1} characters a cell takes`);
    return v === '' ? '' : `'${v}`;
  }
  throw new SourceShapeError(`column ${column} holds ${Array.isArray(v) ? 'a list' : 'an object'}: name a field inside it (${column}.…) or leave it out`);
}

/** The block's inputs, row by row; SourceShapeError says what in the result or the source does not fit. */
export function tableOf(result: unknown, source: FeedSource): string[][] {
  let rows: unknown;
  if (source.rows !== null) {
    rows = at(result, source.rows);
    if (!Array.isArray(rows)) {
      const lists = listsIn(result);
      throw new SourceShapeError(
        `${source.method}'s result has no list at ${source.rows}${lists.length ? ` (its lists: ${lists.slice(0, 10).join(', ')})` : ''}`,
      );
    }
  } else if (Array.isArray(result)) {
    rows = result;
  } else {
    const lists = listsIn(result);
    if (lists.length !== 1)
      throw new SourceShapeError(
        lists.length === 0
          ? `${source.method}'s result holds no list of rows`
          : `${source.method}'s result holds several lists (${lists.slice(0, 10).join(', ')}): name one in source.rows`,
      );
    rows = at(result, lists[0]);
  }
  const list = rows as unknown[];
  if (!list.every(isRecord)) throw new SourceShapeError(`the rows at ${source.rows ?? 'the result'} are not objects with fields`);
  const columns = source.columns ?? Object.keys(list[0] ?? {}).filter((k) => scalar(list[0][k]));
  if (columns.length === 0) throw new SourceShapeError('no columns: the rows have no number, text or boolean fields; name some in source.columns');
  const missing = list.length === 0 ? undefined : columns.find((c) => list.every((row) => at(row, c) === undefined));
  if (missing !== undefined) throw new SourceShapeError(`no row has a field ${missing} (their fields: ${Object.keys(list[0]).join(', ')})`);
  const cells = (list.length + (source.header ? 1 : 0)) * columns.length;
  if (cells > MAX_FEED_CELLS)
    throw new SourceShapeError(`the block would hold ${cells} cells, past the ${MAX_FEED_CELLS} a feed fills: narrow the source (fewer rows or columns)`);
  const body = list.map((row) => columns.map((c) => inputOf(at(row, c), c)));
  return source.header ? [columns.map((c) => `'${c}`), ...body] : body;
}
