import { parse } from 'csv-parse/sync';
import { ApiError } from '../../../protocol/errors.js';
import { calendarDate, checkAmount, optionalText, parseDollars, parseError, type ParsedLine } from './statement.js';

/*
 * CSV bank statements. Columns are found by header name (case, spaces and punctuation ignored), in any order;
 * other columns (balance, category, ...) are ignored. Dates are YYYY-MM-DD or DD/MM/YYYY (Australian banks).
 * Amounts are one signed column, or debit (money out) and credit (money in) columns.
 */

const COLUMNS = {
  date: ['date', 'transactiondate', 'posteddate', 'postingdate', 'valuedate'],
  amount: ['amount', 'amountaud', 'value'],
  debit: ['debit', 'debits', 'debitamount', 'withdrawal', 'withdrawals', 'moneyout'],
  credit: ['credit', 'credits', 'creditamount', 'deposit', 'deposits', 'moneyin'],
  description: ['description', 'narrative', 'details', 'transactiondetails', 'particulars', 'memo'],
  payee: ['payee', 'name', 'merchant', 'counterparty'],
  reference: ['reference', 'ref', 'transactionreference'],
  id: ['id', 'transactionid', 'txnid', 'fitid', 'banktransactionid'],
} as const;
type Column = keyof typeof COLUMNS;

const normalise = (header: string): string => header.toLowerCase().replace(/[^a-z0-9]/g, '');

function mapHeader(header: string[]): Partial<Record<Column, number>> {
  const found: Partial<Record<Column, number>> = {};
  header.forEach((name, index) => {
    const key = normalise(name);
    const column = (Object.keys(COLUMNS) as Column[]).find((c) => (COLUMNS[c] as readonly string[]).includes(key));
    if (!column) return;
    if (found[column] !== undefined) throw parseError('line 1', 'header', `columns "${header[found[column]]}" and "${name}" both mean ${column}`);
    found[column] = index;
  });
  const missing: string[] = (['date', 'description'] as const).filter((c) => found[c] === undefined);
  if (found.amount === undefined && found.debit === undefined && found.credit === undefined) missing.push('amount (or debit and credit)');
  if (missing.length > 0) {
    throw parseError(
      'line 1',
      'header',
      `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (found: ${header.map((h) => `"${h}"`).join(', ')})`,
    );
  }
  return found;
}

/** YYYY-MM-DD or D/M/YYYY (also with - or . between): as YYYY-MM-DD. */
export function parseCsvDate(text: string): string | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (iso) return calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const au = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  if (au) return calendarDate(Number(au[3]), Number(au[2]), Number(au[1]));
  return null;
}

function amountOf(cells: Record<Column, string | undefined>, where: string): number {
  const amount = (field: string, raw: string): number => {
    const cents = parseDollars(raw);
    if (cents === null) throw parseError(where, field, `"${raw}" is not an amount in dollars and cents`);
    return cents;
  };
  if (cells.amount) return checkAmount(amount('amount', cells.amount), cells.amount, where, 'amount');
  const debit = cells.debit ? Math.abs(amount('debit', cells.debit)) : 0;
  const credit = cells.credit ? Math.abs(amount('credit', cells.credit)) : 0;
  if (debit && credit)
    throw parseError(where, 'debit', `the row has both a debit (${cells.debit}) and a credit (${cells.credit}); a bank line is one or the other`);
  if (!debit && !credit) throw parseError(where, 'amount', 'no amount: the amount (or debit or credit) is empty or zero');
  return checkAmount(credit || -debit, (cells.credit || cells.debit) as string, where, credit ? 'credit' : 'debit');
}

export function parseCsv(content: string): ParsedLine[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(content, { bom: true, skip_empty_lines: true, trim: true, info: true }) as unknown as typeof records;
  } catch (err) {
    throw new ApiError('BAD_REQUEST', `content: not readable as CSV: ${(err as Error).message}`);
  }
  if (records.length === 0) throw parseError('line 1', 'header', 'the file is empty; expected a header row (date, amount or debit/credit, description, ...)');
  const columns = mapHeader(records[0].record);
  return records.slice(1).map(({ record, info }) => {
    const where = `line ${info.lines}`;
    const cells = Object.fromEntries(
      (Object.keys(COLUMNS) as Column[]).map((c) => [c, columns[c] === undefined ? undefined : record[columns[c]]?.trim()]),
    ) as Record<Column, string | undefined>;
    const date = parseCsvDate(cells.date ?? '');
    if (!date) throw parseError(where, 'date', `"${cells.date ?? ''}" is not a date (YYYY-MM-DD or DD/MM/YYYY)`);
    const amountCents = amountOf(cells, where);
    const payee = optionalText(cells.payee, 200, where, 'payee');
    const description = optionalText(cells.description, 1000, where, 'description') ?? payee;
    if (!description) throw parseError(where, 'description', 'empty (and no payee to use instead)');
    return {
      bankTxnId: optionalText(cells.id, 200, where, 'id'),
      date,
      amountCents,
      description,
      payee,
      reference: optionalText(cells.reference, 200, where, 'reference'),
    };
  });
}
