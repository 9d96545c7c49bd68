import { createTwoFilesPatch } from 'diff';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import type { Autonomy } from '../colleagues.js';

/*
 * The charter document: what a version is. Its content hash is the SHA-256 of its canonical JSON (colleague
 * records sorted by principal id, sections in charter order). Versions are stored as deltas between documents
 * (store.ts); a diff between two versions is a unified diff of their markdown renderings.
 */

export interface ClauseDoc {
  id: string;
  text: string;
}

export interface SectionDoc {
  id: string;
  key: string;
  heading: string;
  body: string;
  clauses: ClauseDoc[];
}

export interface ColleagueDoc {
  principalId: string;
  title: string | null;
  summary: string | null;
  accountabilities: string[];
  contact: string | null;
  roles: string[];
  domains: string[];
  autonomy: Autonomy | null;
  reportsTo: string | null;
}

export interface CharterDoc {
  title: string;
  mission: string;
  sections: SectionDoc[];
  colleagues: ColleagueDoc[];
}

export const EMPTY_CHARTER: CharterDoc = Object.freeze({ title: '', mission: '', sections: [], colleagues: [] });

export const blankColleague = (principalId: string): ColleagueDoc => ({
  principalId,
  title: null,
  summary: null,
  accountabilities: [],
  contact: null,
  roles: [],
  domains: [],
  autonomy: null,
  reportsTo: null,
});

export const canonicalOf = (doc: CharterDoc): string => canonicalJson(doc);
export const hashOf = (doc: CharterDoc): string => sha256Hex(canonicalOf(doc));
export const sizeOf = (doc: CharterDoc): number => Buffer.byteLength(canonicalOf(doc), 'utf8');

/** What changed from one version to the next: fields and records replaced whole, null for removed. */
export interface Delta {
  title?: string;
  mission?: string;
  /** The section ids in order, when the list or its order changed. */
  order?: string[];
  sections?: Record<string, SectionDoc | null>;
  colleagues?: Record<string, ColleagueDoc | null>;
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

function recordDelta<T>(prev: readonly T[], next: readonly T[], idOf: (t: T) => string): Record<string, T | null> | undefined {
  const before = new Map(prev.map((t) => [idOf(t), t]));
  const after = new Map(next.map((t) => [idOf(t), t]));
  const out: Record<string, T | null> = {};
  for (const [id, t] of after) if (!before.has(id) || !same(before.get(id), t)) out[id] = t;
  for (const id of before.keys()) if (!after.has(id)) out[id] = null;
  return Object.keys(out).length > 0 ? out : undefined;
}

export function deltaOf(prev: CharterDoc, next: CharterDoc): Delta {
  const delta: Delta = {};
  if (prev.title !== next.title) delta.title = next.title;
  if (prev.mission !== next.mission) delta.mission = next.mission;
  const order = next.sections.map((s) => s.id);
  if (
    !same(
      prev.sections.map((s) => s.id),
      order,
    )
  )
    delta.order = order;
  const sections = recordDelta(prev.sections, next.sections, (s) => s.id);
  if (sections) delta.sections = sections;
  const colleagues = recordDelta(prev.colleagues, next.colleagues, (c) => c.principalId);
  if (colleagues) delta.colleagues = colleagues;
  return delta;
}

export function applyDelta(prev: CharterDoc, delta: Delta): CharterDoc {
  const sections = new Map(prev.sections.map((s) => [s.id, s]));
  for (const [id, s] of Object.entries(delta.sections ?? {})) {
    if (s === null) sections.delete(id);
    else sections.set(id, s);
  }
  const order = delta.order ?? prev.sections.map((s) => s.id).filter((id) => sections.has(id));
  const colleagues = new Map(prev.colleagues.map((c) => [c.principalId, c]));
  for (const [id, c] of Object.entries(delta.colleagues ?? {})) {
    if (c === null) colleagues.delete(id);
    else colleagues.set(id, c);
  }
  return {
    title: delta.title ?? prev.title,
    mission: delta.mission ?? prev.mission,
    sections: order.map((id) => {
      const s = sections.get(id);
      if (!s) throw new Error(`charter delta orders section ${id}, which it does not hold`);
      return s;
    }),
    colleagues: sortColleagues([...colleagues.values()]),
  };
}

export const sortColleagues = (list: ColleagueDoc[]): ColleagueDoc[] =>
  list.sort((a, b) => (a.principalId < b.principalId ? -1 : a.principalId > b.principalId ? 1 : 0));

/** The charter as markdown: what a diff compares, line by line. */
export function renderMarkdown(doc: CharterDoc): string {
  const out: string[] = [`# ${doc.title || '(untitled charter)'}`, ''];
  if (doc.mission) out.push('**Mission.** ' + doc.mission, '');
  for (const s of doc.sections) {
    out.push(`## ${s.heading}`, '', `<!-- section ${s.key} (${s.id}) -->`, '');
    if (s.body) out.push(s.body, '');
    s.clauses.forEach((c, i) => out.push(`${i + 1}. ${c.text} <!-- ${c.id} -->`));
    if (s.clauses.length > 0) out.push('');
  }
  if (doc.colleagues.length > 0) {
    out.push('## Colleagues', '');
    for (const c of doc.colleagues) {
      out.push(`### ${c.principalId}`, '');
      const list = (xs: string[]) => (xs.length ? xs.join('; ') : null);
      const fields: [string, string | null][] = [
        ['title', c.title],
        ['summary', c.summary],
        ['accountabilities', list(c.accountabilities)],
        ['contact', c.contact],
        ['roles', list(c.roles)],
        ['domains', list(c.domains)],
        ['autonomy', c.autonomy],
        ['reports to', c.reportsTo],
      ];
      for (const [name, value] of fields) if (value !== null) out.push(`- ${name}: ${value}`);
      out.push('');
    }
  }
  return out.join('\n');
}

/** A unified diff of two versions' markdown, fenced as a ```diff block (the fence outgrows any backticks inside). */
export function diffMarkdown(from: { version: number; doc: CharterDoc }, to: { version: number; doc: CharterDoc }): string {
  const patch = createTwoFilesPatch(
    `charter v${from.version}`,
    `charter v${to.version}`,
    renderMarkdown(from.doc),
    renderMarkdown(to.doc),
    undefined,
    undefined,
    {
      context: 3,
    },
  );
  const longest = Math.max(0, ...(patch.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}diff\n${patch}${patch.endsWith('\n') ? '' : '\n'}${fence}\n`;
}
