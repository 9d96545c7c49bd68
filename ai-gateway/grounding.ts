import type { GroundingRules } from './answerer.js';
import { renderFigure } from './figures.js';
import { citationKey, describeCitation, fieldAt, type CitedRecords } from './records.js';
import type { Citation, Claim, Draft, Figure } from './types.js';

export type GroundingVerdict = { ok: true } | { ok: false; reason: string };

const UNITS = new Set(['cents', 'count', 'days']);
const OPS = new Set(['value', 'sum', 'min', 'max', 'count']);

/**
 * Is a draft grounded in what this ask's reads returned? (The rules are in the Figure doc comment, types.ts.)
 * 1. An answer makes at least one claim; each claim cites at least one record, except a count of 0 after
 *    at least one read (nothing matched, so nothing can be cited).
 * 2. Every citation was returned by a read in this call.
 * 3. Every figure is recomputed from its claim's cited records (distinct citations; `field` a dot path;
 *    `value` one citation, `count` no field) and must equal `value` exactly.
 * 4. A claim's quote appears verbatim (whitespace runs aside) in a text field of one of the records it cites;
 *    an answerer's rules may require every claim to quote.
 * 5. Every email address and phone number written, and every name the answerer's rules mark as a name
 *    (directory: parties' names), is a field of a record the statement cites (a claim: its own citations; the
 *    answer text: any claim's): an email as written in one of its strings, a phone by its digits (a national
 *    0… form matching a +country one), a name equal to one of the record's names or strings, ignoring case.
 *    A checked quote repeated in the text is exempt (it is the record's own words).
 * 6. Every number written in the answer or a claim (money `$1,234.56` / `-$12.00`, integers) equals a figure
 *    of the answer. Not numbers for this rule: ISO dates and times, identifiers (inv_…, INV-0042, W2, 1A),
 *    an integer that is a cited account code or, written `#42` / `seq 42`, a cited event seq, a claim's
 *    checked quote repeated in the text (its numbers are the record's own), and the emails and phone numbers
 *    rule 5 checked.
 * 7. The answerer's own check, if it has one.
 * A draft that cannot answer is not checked (it claims nothing). The first failure is the reason.
 */
export function checkGrounding(draft: Draft, records: CitedRecords, rules: Omit<GroundingRules, 'citable'> = {}): GroundingVerdict {
  if (draft.kind === 'cannot_answer') return { ok: true };
  if (typeof draft.answer !== 'string' || draft.answer.trim() === '') return fail('the answer text is empty');
  if (!Array.isArray(draft.claims) || draft.claims.length === 0) return fail('the answer makes no claims, so nothing in it can be checked against the records');
  for (const [i, claim] of draft.claims.entries()) {
    const reason = checkClaim(claim, i + 1, records) ?? checkQuote(claim, i + 1, records, rules.quotesRequired === true);
    if (reason) return fail(reason);
  }
  const personal = checkPersonal(draft.answer, draft.claims, records, rules);
  if (typeof personal === 'string') return fail(personal);
  const numbers = checkNumbers(draft.answer, draft.claims, personal);
  if (!numbers.ok) return numbers;
  const own = rules.check?.(draft, records);
  return own === undefined ? { ok: true } : fail(own);
}

const fail = (reason: string): GroundingVerdict => ({ ok: false, reason });

function checkClaim(claim: Claim, n: number, records: CitedRecords): string | undefined {
  if (typeof claim.text !== 'string' || claim.text.trim() === '') return `claim ${n} has no text`;
  const cites = Array.isArray(claim.cites) ? claim.cites : [];
  const emptyCount = claim.figure?.op === 'count' && claim.figure.value === 0;
  if (cites.length === 0 && !emptyCount) return `claim ${n} ("${clip(claim.text)}") cites no record`;
  if (cites.length === 0 && records.reads === 0) return `claim ${n} counts 0 records but no read was made in this call`;
  for (const c of cites) {
    if (!isCitation(c)) return `claim ${n} has a malformed citation ${clip(JSON.stringify(c))}`;
    if (!records.has(c)) return `claim ${n} cites ${describeCitation(c)}, which no read returned in this call`;
  }
  return claim.figure === undefined ? undefined : checkFigure(claim.figure, distinct(cites), n, records);
}

function checkFigure(f: Figure, cites: Citation[], n: number, records: CitedRecords): string | undefined {
  const where = `claim ${n}'s figure`;
  if (!Number.isSafeInteger(f.value)) return `${where}: value must be an integer, got ${clip(JSON.stringify(f.value))}`;
  if (!UNITS.has(f.unit)) return `${where}: unit must be cents, count or days, got ${clip(JSON.stringify(f.unit))}`;
  if (!OPS.has(f.op)) return `${where}: op must be value, sum, min, max or count, got ${clip(JSON.stringify(f.op))}`;
  if (f.op === 'count') {
    if (f.field !== undefined) return `${where}: a count takes no field`;
    return cites.length === f.value
      ? undefined
      : `${where} says ${f.value} but the claim cites ${cites.length} distinct record${cites.length === 1 ? '' : 's'}`;
  }
  if (typeof f.field !== 'string' || f.field === '') return `${where}: op ${f.op} needs the field it is computed from`;
  if (f.op === 'value' && cites.length !== 1) return `${where}: op value needs exactly one citation, the claim has ${cites.length}`;
  const values: number[] = [];
  for (const c of cites) {
    const candidates = fieldValues(records, c, f.field);
    if (candidates.length === 0) return `${where}: ${describeCitation(c)} has no number at ${f.field}`;
    if (f.op === 'value') {
      return candidates.includes(f.value)
        ? undefined
        : `${where} says ${renderFigure(f)} but ${f.field} of ${describeCitation(c)} is ${candidates.map((v) => renderFigure({ value: v, unit: f.unit })).join(' or ')}`;
    }
    if (candidates.length > 1) {
      return `${where}: ${f.field} of ${describeCitation(c)} differs between the reads (${candidates.join(', ')}), so the ${f.op} is ambiguous`;
    }
    values.push(candidates[0]);
  }
  const recomputed = f.op === 'sum' ? values.reduce((a, b) => a + b, 0) : f.op === 'min' ? Math.min(...values) : Math.max(...values);
  if (recomputed !== f.value) {
    return `${where} says ${renderFigure(f)} but the ${f.op} of ${f.field} over its ${cites.length} citation${cites.length === 1 ? '' : 's'} is ${renderFigure({ value: recomputed, unit: f.unit })}`;
  }
  return undefined;
}

/** The distinct numbers at a field path across every occurrence of a record. */
function fieldValues(records: CitedRecords, c: Citation, field: string): number[] {
  const out = new Set<number>();
  for (const occurrence of records.occurrences(c)) {
    const v = fieldAt(occurrence, field);
    if (typeof v === 'number' && Number.isFinite(v)) out.add(v);
  }
  return [...out];
}

/** Whitespace runs as one space: a model may re-wrap a quoted line, but not change a character of it. */
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Every string in a record, at any depth (the texts a quote may come from). */
function textsOf(node: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof node === 'string') out.push(node);
  else if (node !== null && typeof node === 'object' && depth < 8) for (const v of Object.values(node)) textsOf(v, out, depth + 1);
  return out;
}

function checkQuote(claim: Claim, n: number, records: CitedRecords, required: boolean): string | undefined {
  if (claim.quote === undefined)
    return required ? `claim ${n} ("${clip(claim.text)}") quotes nothing, and every claim of this answer must quote a record it cites` : undefined;
  if (typeof claim.quote !== 'string' || squash(claim.quote) === '') return `claim ${n}'s quote is empty`;
  const wanted = squash(claim.quote);
  for (const c of distinct(claim.cites)) {
    for (const occurrence of records.occurrences(c)) {
      if (textsOf(occurrence).some((t) => squash(t).includes(wanted))) return undefined;
    }
  }
  return `claim ${n} quotes "${clip(wanted)}", which appears verbatim in none of the records it cites`;
}

/*
 * Tokens of free text, longest first: ISO date-times and dates, identifiers (a letter or _ first, or a
 * number glued to letters like 1A, W2, INV-0042, inv_3k9), money, then plain numbers. Only money and numbers
 * are checked. A minus counts only at the start or after a space or bracket (so 5-10 is 5 and 10).
 */
const TOKENS =
  /(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?)|([A-Za-z_][\w-]*|\d+[A-Za-z_][\w-]*)|((?:(?<=^|[\s([{])-)?\$\d+(?:,\d{3})*(?:\.\d+)?)|((?:(?<=^|[\s([{])-)?\d+(?:,\d{3})*(?:\.\d+)?)/g;

interface NumberToken {
  text: string;
  money: boolean;
  /** The characters before the token, for `#42` / `seq 42`. */
  before: string;
}

export function numbersIn(text: string): NumberToken[] {
  const out: NumberToken[] = [];
  for (const m of text.matchAll(TOKENS)) {
    const token = m[3] ?? m[4];
    if (token === undefined) continue;
    out.push({ text: token, money: m[3] !== undefined, before: text.slice(Math.max(0, m.index - 6), m.index) });
  }
  return out;
}

/** Cents of `$1,234.56` / `-$12.00` / `$5` (no or two decimals), or undefined when it is not money. */
function moneyCents(token: string): number | undefined {
  const m = /^(-?)\$(\d+(?:,\d{3})*)(?:\.(\d{2}))?$/.exec(token);
  if (!m) return undefined;
  const cents = Number(m[2].replaceAll(',', '')) * 100 + Number(m[3] ?? '0');
  return m[1] ? -cents : cents;
}

/** Checked quotes of the claims, longest first. */
const quotesOf = (claims: Claim[]) =>
  claims.flatMap((c) => (typeof c.quote === 'string' && squash(c.quote) ? [squash(c.quote)] : [])).sort((a, b) => b.length - a.length);

const EMAILS = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** A phone number: + or a leading 0 or bracket, then digits and separators, at least 8 digits. */
const PHONES = /(?<![\p{L}\p{N}+$])(?:\+|\(?0)[\d\s().-]{6,}\d(?![\p{L}\p{N}])/gu;
const digitsOf = (s: string) => s.replace(/\D/g, '');

/** A written number is this field's: the same digits, or a national 0… form of a +country field. */
function samePhone(written: string, field: string): boolean {
  const w = digitsOf(written);
  const f = digitsOf(field);
  if (f.length < 8) return false;
  if (w === f) return true;
  const national = w.startsWith('0') ? w.slice(1) : null;
  return national !== null && field.trim().startsWith('+') && f.endsWith(national) && f.length - national.length <= 3;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const fold = (s: string) => s.normalize('NFC').toLocaleLowerCase();

/**
 * Rule 5: emails, phones and names. Returns the texts it checked (emails and phones) for the numbers rule to
 * pass over, or the reason it fails.
 */
function checkPersonal(answer: string, claims: Claim[], records: CitedRecords, rules: Pick<GroundingRules, 'names'>): string[] | string {
  const quotes = quotesOf(claims);
  const unquoted = (text: string) => quotes.reduce((t, q) => t.split(q).join(' '), squash(text));
  const occurrencesOf = (cites: Citation[]) => distinct(cites.filter(isCitation)).flatMap((c) => [...records.occurrences(c)]);
  const known = new Set<string>();
  if (rules.names) {
    for (const key of records.keys()) {
      if (!key.startsWith('record:')) continue;
      for (const node of records.occurrences({ kind: 'record', id: key.slice('record:'.length) })) {
        for (const n of rules.names(node as Record<string, unknown>)) if (/\p{L}/u.test(n) && squash(n).length >= 3) known.add(squash(n));
      }
    }
  }
  const names = [...known].sort((a, b) => b.length - a.length);
  const checked: string[] = [];
  const allCites = claims.flatMap((c) => (Array.isArray(c.cites) ? c.cites : []));
  const texts: [string, string, Citation[]][] = [
    ['the answer', answer, allCites],
    ...claims.map((c, i): [string, string, Citation[]] => [`claim ${i + 1}`, c.text, Array.isArray(c.cites) ? c.cites : []]),
  ];
  for (const [where, raw, cites] of texts) {
    let text = unquoted(raw);
    const occurrences = occurrencesOf(cites);
    const strings = occurrences.flatMap((o) => textsOf(o));
    for (const m of text.match(EMAILS) ?? []) {
      if (!strings.some((s) => fold(s).includes(fold(m)))) return `${where} writes the email address ${m}, which is in none of the records it cites`;
      checked.push(m);
    }
    text = text.replace(EMAILS, ' ');
    for (const m of text.match(PHONES) ?? []) {
      if (digitsOf(m).length < 8) continue;
      if (!strings.some((s) => samePhone(m, s))) return `${where} writes the phone number ${m.trim()}, which is in none of the records it cites`;
      checked.push(m.trim());
    }
    for (const name of names) {
      const re = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(name)}(?![\\p{L}\\p{N}])`, 'giu');
      if (!re.test(text)) continue;
      const carried = occurrences.some(
        (o) =>
          (rules.names?.(o as Record<string, unknown>) ?? []).some((n) => fold(squash(n)) === fold(name)) ||
          textsOf(o).some((s) => fold(squash(s)) === fold(name)),
      );
      if (!carried) return `${where} names ${name}, which is the name of none of the records it cites`;
      // A longer name checked here is not read again as the shorter names inside it.
      text = text.replace(re, ' ');
    }
  }
  return checked;
}

function checkNumbers(answer: string, claims: Claim[], personal: readonly string[] = []): GroundingVerdict {
  const figures = claims.flatMap((c) => (c.figure ? [c.figure] : []));
  const cents = new Set(figures.filter((f) => f.unit === 'cents').map((f) => f.value));
  const plain = new Set(figures.filter((f) => f.unit !== 'cents').map((f) => f.value));
  const cites = claims.flatMap((c) => (Array.isArray(c.cites) ? c.cites : []));
  const codes = new Set(cites.flatMap((c) => (c.kind === 'account' ? [c.code] : [])));
  const seqs = new Set(cites.flatMap((c) => (c.kind === 'event' ? [String(c.seq)] : [])));
  // A checked quote repeated in the text is the record's own words: its numbers are not the answer's; nor are
  // the digits of an email or phone number rule 5 found in a cited record.
  const quotes = [...quotesOf(claims), ...[...personal].map(squash).sort((a, b) => b.length - a.length)];
  const unquoted = (text: string) => quotes.reduce((t, q) => t.split(q).join(' '), squash(text));
  const texts: [string, string][] = [['the answer', answer], ...claims.map((c, i): [string, string] => [`claim ${i + 1}`, c.text])];
  for (const [where, raw] of texts) {
    const text = unquoted(raw);
    for (const token of numbersIn(text)) {
      if (token.money) {
        const value = moneyCents(token.text);
        if (value === undefined) return fail(`${where} writes ${token.text}, which is not money as figures are written ($1,234.56)`);
        if (!cents.has(value)) return fail(`${where} states ${token.text}, which is none of the answer's figures${listFigures(figures)}`);
        continue;
      }
      if (codes.has(token.text)) continue;
      if (seqs.has(token.text) && /(#|seq |event )$/i.test(token.before)) continue;
      const value = Number(token.text.replaceAll(',', ''));
      if (!Number.isSafeInteger(value) || !plain.has(value)) {
        return fail(`${where} states ${token.text}, which is none of the answer's figures${listFigures(figures)}`);
      }
    }
  }
  return { ok: true };
}

function listFigures(figures: Figure[]): string {
  return figures.length ? ` (${figures.map(renderFigure).join(', ')})` : ' (it has none)';
}

function isCitation(c: unknown): c is Citation {
  if (c === null || typeof c !== 'object') return false;
  const x = c as Record<string, unknown>;
  return (
    (x.kind === 'record' && typeof x.id === 'string') ||
    (x.kind === 'account' && typeof x.code === 'string') ||
    (x.kind === 'event' && Number.isSafeInteger(x.seq))
  );
}

function distinct(cites: Citation[]): Citation[] {
  const seen = new Set<string>();
  return cites.filter((c) => !seen.has(citationKey(c)) && Boolean(seen.add(citationKey(c))));
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}…` : s);
