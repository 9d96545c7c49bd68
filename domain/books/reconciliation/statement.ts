import { createHash } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { MAX_CENTS } from '../../../protocol/methods/books/common.js';

/** What the CSV and OFX parsers share: the parsed transaction, amount and date parsing, and errors naming the place. */

export interface ParsedLine {
  /** The bank's id when the file has one (FITID, the CSV id column); null gets a derived id. */
  bankTxnId: string | null;
  date: string;
  amountCents: number;
  description: string;
  payee: string | null;
  reference: string | null;
}

/** `content: line 4: amount: "1.2.3" is not ...`: a parse error names where in the file and which field. */
export const parseError = (where: string, field: string | null, why: string): ApiError =>
  new ApiError('BAD_REQUEST', `content: ${where}: ${field ? `${field}: ` : ''}${why}`);

/**
 * Dollars as text to integer cents: `-12.34`, `1,234.50`, `$1,234.50`, `-$5`, `(12.00)` (negative). More than two
 * decimals only when the extra digits are zeros (`12.3400`). Null when it is not an amount.
 */
export function parseDollars(text: string): number | null {
  let s = text.replace(/\s+/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1);
  }
  const m = /^([+-]?)\$?([+-]?)(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?$/.exec(s);
  if (!m || (m[3] === undefined && m[4] === undefined) || (m[1] && m[2])) return null;
  const frac = m[4] ?? '';
  if (frac.length > 2 && /[^0]/.test(frac.slice(2))) return null;
  const cents = Number((m[3] ?? '0').replace(/,/g, '')) * 100 + Number(frac.slice(0, 2).padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) return null;
  return (m[1] === '-' || m[2] === '-') !== negative ? -cents : cents;
}

/** Check a parsed amount: a bank line moves money (never 0) and stays within the books' range. */
export function checkAmount(cents: number, raw: string, where: string, field: string): number {
  if (cents === 0) throw parseError(where, field, `"${raw}" is zero; a bank line moves money`);
  if (Math.abs(cents) > MAX_CENTS) throw parseError(where, field, `"${raw}" is larger than ${MAX_CENTS / 100} dollars`);
  return cents;
}

/** A real calendar date from year, month, day, as YYYY-MM-DD; null when it does not exist (31/02). */
export function calendarDate(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (y < 1900 || y > 2999 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

/** Text fields of a line: trimmed, at most `max` characters, empty as null. */
export function optionalText(value: string | undefined, max: number, where: string, field: string): string | null {
  const v = (value ?? '').replace(/\s+/g, ' ').trim();
  if (v.length > max) throw parseError(where, field, `longer than ${max} characters`);
  return v === '' ? null : v;
}

/**
 * The bank_txn_id of every line: the bank's own id when given, else sha256 of date|amount|description|n where n
 * counts the same date, amount and description so far in this file. Two identical coffees on one day stay two
 * lines, and re-importing the same file derives the same ids (so it adds nothing).
 */
export function assignBankIds(lines: ParsedLine[]): (ParsedLine & { bankTxnId: string })[] {
  const seen = new Map<string, number>();
  return lines.map((l) => {
    if (l.bankTxnId) return l as ParsedLine & { bankTxnId: string };
    const key = `${l.date}|${l.amountCents}|${l.description}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return { ...l, bankTxnId: `sha256:${createHash('sha256').update(`${key}|${n}`).digest('hex')}` };
  });
}
