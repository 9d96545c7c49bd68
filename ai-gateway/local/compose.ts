import { renderFigure } from '../figures.js';
import { numbersIn } from '../grounding.js';
import { fieldAt } from '../records.js';
import type { Citation, Claim, Draft, Figure } from '../types.js';

/*
 * How the local answerer writes a draft that grounds by construction: every number it writes comes from a
 * figure it computed from the records it cites, with the same dot path and op the gateway recomputes, rendered
 * by renderFigure. Free text copied from the books (names, reasons) goes in only when it holds no number.
 */

export const record = (id: string): Citation => ({ kind: 'record', id });
export const account = (code: string): Citation => ({ kind: 'account', code });
export const event = (seq: number): Citation => ({ kind: 'event', seq });

/** A figure with the citations it is computed from. */
export interface Fact {
  figure: Figure;
  cites: Citation[];
}

function numberAt(obj: object, field: string): number {
  const v = fieldAt(obj, field);
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`local answerer: no integer at ${field}`);
  return v;
}

/** One record's number: `op: value`. */
export function valueOf(obj: object, cite: Citation, field: string, unit: Figure['unit'] = 'cents'): Fact {
  return { figure: { value: numberAt(obj, field), unit, op: 'value', field }, cites: [cite] };
}

/** The sum of a field over records (each cited once). */
export function sumOf<T extends object>(items: readonly T[], cite: (t: T) => Citation, field: string, unit: Figure['unit'] = 'cents'): Fact {
  return { figure: { value: items.reduce((s, t) => s + numberAt(t, field), 0), unit, op: 'sum', field }, cites: items.map(cite) };
}

/** How many records (each cited once). */
export function countOf<T>(items: readonly T[], cite: (t: T) => Citation): Fact {
  return { figure: { value: items.length, unit: 'count', op: 'count' }, cites: items.map(cite) };
}

/** The largest value of a field over records. */
export function maxOf<T extends object>(items: readonly T[], cite: (t: T) => Citation, field: string, unit: Figure['unit']): Fact {
  return { figure: { value: Math.max(...items.map((t) => numberAt(t, field))), unit, op: 'max', field }, cites: items.map(cite) };
}

/** Free text from the books, or `fallback` when it holds anything the grounding rule would read as a number. */
export function safeText(text: string | null | undefined, fallback: string): string {
  if (!text) return fallback;
  return numbersIn(text).length === 0 ? text : fallback;
}

/** A contact's name, or its id when the name holds a number (`7 Eleven`). */
export const nameOf = (c: { id: string; name: string }): string => safeText(c.name, c.id);

/** The tail of a list cut short by the draft's limits: no number, and where to find the rest. */
export const more = (omitted: number, read: string): string => (omitted > 0 ? `; and more not listed here (${read} lists them all)` : '');

/** A rendered count with its noun: `1 invoice`, `3 invoices`. */
export const plural = (n: string, word: string, many = `${word}s`): string => `${n} ${n === '1' ? word : many}`;

/** `a, b and c`. */
export function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Builds a draft: `fact` adds a claim and returns the rendered figure to use in answer sentences; `say` adds a
 * sentence to the answer. `build` checks that every number in the text is one of the figures (a bug otherwise).
 */
/** The shape a model's draft must keep (protocol/methods/books/ask.ts DraftSchema); the local answerer keeps it too. */
export const LIMITS = { claims: 50, answerChars: 4000, claimChars: 1000 } as const;
/** Room kept free for the sentences and claims that follow a list. */
const RESERVE = { claims: 8, chars: 700 };

export class DraftBuilder {
  private readonly claims: Claim[] = [];
  private readonly sentences: string[] = [];
  private readonly verbatim = new Set<string>();
  private chars = 0;

  /**
   * An email address or phone number copied from a record the claim writing it cites: grounding checks it as
   * such (rule 5), so its digits are not figures. Returns it, for the sentence.
   */
  contactValue(value: string): string {
    this.verbatim.add(value.replace(/\s+/g, ' ').trim());
    return value;
  }

  /** Adds a claim whose text is `text(rendered figure)`; returns the rendered figure. */
  fact(f: Fact, text: (v: string) => string): string {
    const v = renderFigure(f.figure);
    this.claims.push({ text: text(v), cites: dedupe(f.cites), figure: f.figure });
    return v;
  }

  /** A claim without a figure (a status, a date, a name), citing the records that say it. */
  note(text: string, cites: Citation[]): void {
    if (cites.length === 0) throw new Error('local answerer: a claim must cite a record');
    this.claims.push({ text, cites: dedupe(cites) });
  }

  /**
   * A claim quoting a cited record's own words (a schedule's name, a payslip's reason): grounding checks the quote
   * (rule 4), so its numbers are the record's and not figures. Returns it, for the sentence.
   */
  quote(words: string, cites: Citation[]): string {
    if (cites.length === 0) throw new Error('local answerer: a claim must cite a record');
    this.claims.push({ text: words, cites: dedupe(cites), quote: words });
    this.verbatim.add(words.replace(/\s+/g, ' ').trim());
    return words;
  }

  say(sentence: string): this {
    this.sentences.push(sentence);
    this.chars += sentence.length + 1;
    return this;
  }

  /**
   * Render list items while they fit the draft's limits (each item adds at most `claimsPerItem` claims);
   * `omitted` says how many did not fit, for a sentence pointing at the typed read that lists them all.
   */
  each<T>(items: readonly T[], claimsPerItem: number, render: (t: T) => string): { parts: string[]; omitted: number } {
    const parts: string[] = [];
    let pending = 0;
    for (const item of items) {
      const fits = this.claims.length + claimsPerItem <= LIMITS.claims - RESERVE.claims && this.chars + pending + 160 <= LIMITS.answerChars - RESERVE.chars;
      if (!fits) break;
      const part = render(item);
      parts.push(part);
      pending += part.length + 2;
    }
    return { parts, omitted: items.length - parts.length };
  }

  get claimCount(): number {
    return this.claims.length;
  }

  build(): Draft {
    const answer = this.sentences.join(' ');
    const figures = this.claims.flatMap((c) => (c.figure ? [c.figure] : []));
    const rendered = new Set(figures.map((f) => renderFigure(f)));
    const codes = new Set(this.claims.flatMap((c) => c.cites.flatMap((x) => (x.kind === 'account' ? [x.code] : []))));
    const seqs = new Set(this.claims.flatMap((c) => c.cites.flatMap((x) => (x.kind === 'event' ? [String(x.seq)] : []))));
    const verbatim = [...this.verbatim].sort((a, b) => b.length - a.length);
    for (const text of [answer, ...this.claims.map((c) => c.text)]) {
      for (const token of numbersIn(verbatim.reduce((t, v) => t.split(v).join(' '), text.replace(/\s+/g, ' ')))) {
        const ok = rendered.has(token.text) || (!token.money && (codes.has(token.text) || (seqs.has(token.text) && /(#|seq |event )$/i.test(token.before))));
        if (!ok) throw new Error(`local answerer: ${token.text} in "${text}" is not one of its figures`);
      }
    }
    if (this.claims.length === 0) throw new Error('local answerer: an answer without claims');
    if (this.claims.length > LIMITS.claims || answer.length > LIMITS.answerChars || this.claims.some((c) => c.text.length > LIMITS.claimChars)) {
      throw new Error(`local answerer: the draft is over its limits (${this.claims.length} claims, ${answer.length} characters)`);
    }
    return { kind: 'answer', answer, claims: this.claims };
  }
}

function dedupe(cites: Citation[]): Citation[] {
  const seen = new Set<string>();
  return cites.filter((c) => {
    const key = c.kind === 'record' ? `r:${c.id}` : c.kind === 'account' ? `a:${c.code}` : `e:${c.seq}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
