import { badRequest } from '../../protocol/errors.js';
import { INT32_MAX } from '../../protocol/schema.js';

/*
 * Keyset cursors, for every list and read that pages: the sort key of a page's last row as base64url JSON, opaque to
 * callers. A cursor that does not decode to a key of the expected shape is a BAD_REQUEST naming the field.
 */

export const encodeCursor = (key: readonly (string | number)[]): string => Buffer.from(JSON.stringify(key)).toString('base64url');

/** The key a cursor holds, if `valid` accepts it; else BAD_REQUEST `<field>: not a cursor this <source>`. */
export function decodeCursor<T extends readonly unknown[]>(raw: string, field: string, valid: (v: unknown[]) => boolean, source = 'list returned'): T {
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && valid(v)) return v as unknown as T;
  } catch {
    // not JSON: refused below
  }
  throw badRequest(field, `not a cursor this ${source}`);
}

/** A key of exactly `n` strings. */
export const strings =
  (n: number) =>
  (v: unknown[]): boolean =>
    v.length === n && v.every((x) => typeof x === 'string');

/** A key of a string that parses as a time, then a string id. */
export const timeAndId = (v: unknown[]): boolean => v.length === 2 && typeof v[0] === 'string' && !Number.isNaN(Date.parse(v[0])) && typeof v[1] === 'string';

/** An integer an `integer` column holds (a seq or number in a key): past it PostgreSQL refuses the query, a 5xx. */
export const fitsInt32 = (x: unknown): x is number => Number.isInteger(x) && Math.abs(x as number) <= INT32_MAX;
