/*
 * How a held act reads in the approval inbox: a title naming the act and labelled facts (amounts, payee, period,
 * dates) read from the summary the family recorded with the hold and from the held call's params. The family that
 * writes a summary describes it (its descriptor's `holdActs`, by action class); the inbox shows any other act
 * generically, and the summary itself always, so a summary these patterns miss loses nothing.
 */

export interface Fact {
  label: string;
  value: string;
}

export interface PlainAct {
  /** The act, e.g. `Sign a pay run`. */
  title: string;
  facts: Fact[];
}

/** An act's wording: from the hold's summary and the held call's params. */
export type HoldActDescriber = (summary: string, params: Record<string, unknown>) => PlainAct;

export const MONEY = String.raw`-?\$[\d,]+\.\d{2}`;
export const DATE = String.raw`\d{4}-\d{2}-\d{2}`;

const AUD = new Intl.NumberFormat('en-AU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `$1,234.50`, `-$12.00`: the same form the server's summaries use. */
export function money(cents: number): string {
  const text = `$${AUD.format(Math.abs(cents) / 100)}`;
  return cents < 0 ? `-${text}` : text;
}

/** The facts a pattern's named groups give, in the order listed; groups that did not match are left out. */
export function pick(summary: string, pattern: RegExp, labels: [group: string, label: string][]): Fact[] {
  const groups = pattern.exec(summary)?.groups ?? {};
  return labels.flatMap(([group, label]) => (groups[group] ? [{ label, value: groups[group] }] : []));
}

export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Facts from the held call's params, in the order listed: text as is, a number in figures, a list by its length. */
export function paramFacts(params: Record<string, unknown>, labels: [key: string, label: string][]): Fact[] {
  return labels.flatMap(([key, label]) => {
    const v = params[key];
    const value = str(v) ?? (typeof v === 'number' ? String(v) : Array.isArray(v) ? `${v.length}` : undefined);
    return value ? [{ label, value }] : [];
  });
}
