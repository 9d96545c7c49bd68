import { ApiError } from '../../../protocol/errors.js';
import { calendarDate, checkAmount, optionalText, parseDollars, parseError, type ParsedLine } from './statement.js';

/*
 * OFX bank statements: the STMTTRN blocks of OFX 1.x (SGML: leaf elements are not closed) and 2.x (XML).
 *
 * Written here rather than taken from npm: ofx-data-extractor (evaluated, 1.5.0) fails on OFX 1.x files that put
 * several tags on one line (`<STATUS><CODE>0<SEVERITY>INFO</STATUS>`, common in real bank exports) with a JSON
 * error, leaves entities such as `&amp;` undecoded, and silently returns no transactions for malformed blocks, so
 * an import could not name the line and field that is wrong. Only five fields matter (DTPOSTED, TRNAMT, FITID, NAME,
 * MEMO, plus REFNUM/CHECKNUM), and every STMTTRN aggregate is closed in both dialects, so a block scanner suffices.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === '#') {
      const code = e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

/** The leaf values of one STMTTRN block by upper-cased tag; the first occurrence wins (NAME inside PAYEE too). */
function leafValues(block: string): Map<string, string> {
  const values = new Map<string, string>();
  // A leaf's text runs to the next tag: its own closing tag (XML) or the next element (SGML).
  for (const m of block.matchAll(/<([A-Za-z0-9.]+)>([^<]*)/g)) {
    const tag = m[1].toUpperCase();
    const value = decode(m[2].replace(/<!\[CDATA\[|\]\]>/g, '')).trim();
    if (value !== '' && !values.has(tag)) values.set(tag, value);
  }
  return values;
}

/** DTPOSTED: YYYYMMDD, optionally followed by time and zone (`20261103120000.000[+10:AEST]`): the bank's date. */
export function parseOfxDate(text: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:\d{2}(?:\d{2}(?:\d{2}(?:\.\d{1,3})?)?)?)?(?:\s*\[[^\]]*\])?$/.exec(text);
  return m ? calendarDate(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** TRNAMT: a signed decimal; some banks write a decimal comma (`-55,50`), never thousands separators. */
function parseOfxAmount(text: string): number | null {
  if (/^[+-]?\d+,\d{1,2}$/.test(text)) return parseDollars(text.replace(',', '.'));
  return text.includes(',') ? null : parseDollars(text);
}

export function parseOfx(content: string): ParsedLine[] {
  const start = content.search(/<OFX>/i);
  if (start < 0) throw new ApiError('BAD_REQUEST', 'content: not an OFX file: no <OFX> element found');
  const lineAt = lineCounter(content);
  const opened = [...content.matchAll(/<STMTTRN>/gi)].length;
  const blocks = [...content.matchAll(/<STMTTRN>([\s\S]*?)<\/STMTTRN>/gi)];
  if (blocks.length !== opened || blocks.some((b) => /<STMTTRN>/i.test(b[1]))) {
    // A block swallowing the next one starts at the unclosed transaction; else the last one ran to the end.
    const unclosed = blocks.find((b) => /<STMTTRN>/i.test(b[1])) ?? [...content.matchAll(/<STMTTRN>/gi)].find((o) => !blocks.some((b) => b.index === o.index));
    throw parseError(`line ${lineAt(unclosed?.index ?? start)}`, 'STMTTRN', 'not closed by </STMTTRN> before the next transaction or the end of the file');
  }
  return blocks.map((b, i) => {
    const where = `line ${lineAt(b.index)} (transaction ${i + 1})`;
    const v = leafValues(b[1]);
    const rawDate = v.get('DTPOSTED');
    if (!rawDate) throw parseError(where, 'DTPOSTED', 'missing');
    const date = parseOfxDate(rawDate);
    if (!date) throw parseError(where, 'DTPOSTED', `"${rawDate}" is not an OFX date (YYYYMMDD, optionally with time)`);
    const rawAmount = v.get('TRNAMT');
    if (!rawAmount) throw parseError(where, 'TRNAMT', 'missing');
    const cents = parseOfxAmount(rawAmount);
    if (cents === null) throw parseError(where, 'TRNAMT', `"${rawAmount}" is not an amount`);
    const name = optionalText(v.get('NAME'), 200, where, 'NAME');
    const memo = optionalText(v.get('MEMO'), 800, where, 'MEMO');
    const description = [name, memo].filter(Boolean).join(' ') || v.get('TRNTYPE');
    if (!description) throw parseError(where, 'NAME', 'missing (no NAME, MEMO or TRNTYPE to describe the transaction)');
    return {
      bankTxnId: optionalText(v.get('FITID'), 200, where, 'FITID'),
      date,
      amountCents: checkAmount(cents, rawAmount, where, 'TRNAMT'),
      description,
      payee: name,
      reference: optionalText(v.get('REFNUM') ?? v.get('CHECKNUM'), 200, where, 'REFNUM'),
    };
  });
}

/** Line number (1-based) of a character offset, for offsets asked in increasing order or not. */
function lineCounter(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
