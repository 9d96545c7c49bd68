import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { AUTHORITY_FIELDS, AUTONOMY_LEVELS, MAX_SECTIONS, type CHARTER_OP_PARAMS, type CharterOp } from '../../../protocol/methods/charter.js';
import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import { getMembers } from '../../people/index.js';
import { parseSelector } from '../selectors.js';
import { blankColleague, sortColleagues, type CharterDoc, type ClauseDoc, type ColleagueDoc, type SectionDoc } from './document.js';
import { sectionStanding } from './store.js';

/*
 * The charter's edits as functions from a document to the next: the methods call them on the head, and
 * charter.amend calls them in turn for an adopted decision's operations. Each says whether it binds and what a
 * human approving it reads; refusals are the methods' own errors (amend turns them into CONFLICT).
 */

export type OpParams<K extends CharterOp> = z.output<(typeof CHARTER_OP_PARAMS)[K]>;

export interface OpEnv {
  q: Queryable;
  orgId: string;
}

export interface Applied {
  doc: CharterDoc;
  /** It changes what binds (mission, clauses, authority): decision rights charter.<op>. */
  binding: boolean;
  /** What the act does, for the human approving a hold: keys, ids and counts (the params show the text). */
  summary: string;
  /** The row a hold is about: a section, a colleague; null for the charter itself. */
  subjectId: string | null;
  /** The param named when the charter would outgrow its limit. */
  sizeField: string;
  /** Ids, counts and field names for the event. */
  facts: Record<string, unknown>;
  section?: SectionDoc;
  colleague?: ColleagueDoc;
}

const keyTaken = (s: SectionDoc): never => {
  throw conflict(`section key "${s.key}" is taken by section ${s.id}: choose another key, or edit that section (charter.updateSection)`);
};

/** The live section, or CONFLICT (deleted in a version) / NOT_FOUND (never this org's). */
async function liveSection(env: OpEnv, doc: CharterDoc, sectionId: string): Promise<{ section: SectionDoc; index: number }> {
  const index = doc.sections.findIndex((s) => s.id === sectionId);
  if (index >= 0) return { section: doc.sections[index], index };
  const standing = await sectionStanding(env.q, env.orgId, sectionId);
  if (!standing.known) throw notFound(`charter section ${sectionId}`);
  throw conflict(`charter section ${sectionId} was deleted in charter version ${standing.deletedVersion}: add a new section (charter.addSection) instead`);
}

/** Clauses as given: an id keeps that clause of the section (its text replaced), no id is a new clause. */
function buildClauses(given: readonly { id?: string; text: string }[], current: readonly ClauseDoc[], sectionId: string | null): ClauseDoc[] {
  const known = new Set(current.map((c) => c.id));
  const seen = new Set<string>();
  return given.map((c, i) => {
    if (c.id === undefined) return { id: newId('cls'), text: c.text };
    if (!known.has(c.id)) {
      throw badRequest(
        `clauses.${i}.id`,
        sectionId ? `no clause ${c.id} in section ${sectionId}; omit id for a new clause` : 'a new section’s clauses take new ids; omit id',
      );
    }
    if (seen.has(c.id)) throw badRequest(`clauses.${i}.id`, `${c.id} is listed twice`);
    seen.add(c.id);
    return { id: c.id, text: c.text };
  });
}

const replaceSection = (doc: CharterDoc, index: number, section: SectionDoc): CharterDoc => ({
  ...doc,
  sections: doc.sections.map((s, i) => (i === index ? section : s)),
});

export async function update(_env: OpEnv, doc: CharterDoc, p: OpParams<'update'>): Promise<Applied> {
  const fields = (['title', 'mission'] as const).filter((f) => p[f] !== undefined && p[f] !== doc[f]);
  const binding = fields.includes('mission');
  return {
    doc: { ...doc, title: p.title ?? doc.title, mission: p.mission ?? doc.mission },
    binding,
    summary: `Set the charter’s ${fields.join(' and ') || 'title'}${binding ? ' (the mission binds)' : ''}`,
    subjectId: null,
    sizeField: 'mission',
    facts: { fields },
  };
}

export async function addSection(_env: OpEnv, doc: CharterDoc, p: OpParams<'addSection'>): Promise<Applied> {
  const taken = doc.sections.find((s) => s.key === p.key);
  if (taken) keyTaken(taken);
  if (doc.sections.length >= MAX_SECTIONS)
    throw conflict(`the charter has ${doc.sections.length} sections, its limit: delete one first (charter.deleteSection)`);
  const section: SectionDoc = { id: newId('sec'), key: p.key, heading: p.heading, body: p.body ?? '', clauses: buildClauses(p.clauses ?? [], [], null) };
  const at = Math.min(p.position ?? doc.sections.length, doc.sections.length);
  const sections = [...doc.sections.slice(0, at), section, ...doc.sections.slice(at)];
  return {
    doc: { ...doc, sections },
    binding: section.clauses.length > 0,
    summary: `Add charter section "${p.key}" at position ${at} with ${section.clauses.length} binding clause(s)`,
    subjectId: null,
    sizeField: 'body',
    facts: { sectionId: section.id, position: at, clauses: section.clauses.length },
    section,
  };
}

export async function updateSection(env: OpEnv, doc: CharterDoc, p: OpParams<'updateSection'>): Promise<Applied> {
  const { section, index } = await liveSection(env, doc, p.sectionId);
  if (p.key !== undefined && p.key !== section.key) {
    const taken = doc.sections.find((s) => s.key === p.key);
    if (taken) keyTaken(taken);
  }
  const fields = (['key', 'heading', 'body'] as const).filter((f) => p[f] !== undefined && p[f] !== section[f]);
  const next: SectionDoc = { ...section, key: p.key ?? section.key, heading: p.heading ?? section.heading, body: p.body ?? section.body };
  return {
    doc: replaceSection(doc, index, next),
    binding: false,
    summary: `Change the ${fields.join(', ') || 'text'} of charter section "${section.key}" (${section.id})`,
    subjectId: section.id,
    sizeField: 'body',
    facts: { sectionId: section.id, fields },
    section: next,
  };
}

/** Deleting a section already gone leaves the document as it is (the method answers changed:false). */
export async function deleteSection(env: OpEnv, doc: CharterDoc, p: OpParams<'deleteSection'>): Promise<Applied> {
  const index = doc.sections.findIndex((s) => s.id === p.sectionId);
  if (index < 0) {
    if (!(await sectionStanding(env.q, env.orgId, p.sectionId)).known) throw notFound(`charter section ${p.sectionId}`);
    return {
      doc,
      binding: false,
      summary: `Delete charter section ${p.sectionId}`,
      subjectId: p.sectionId,
      sizeField: 'sectionId',
      facts: { sectionId: p.sectionId, gone: true },
    };
  }
  const section = doc.sections[index];
  return {
    doc: { ...doc, sections: doc.sections.filter((_, i) => i !== index) },
    binding: section.clauses.length > 0,
    summary: `Delete charter section "${section.key}" (${section.id}) with its ${section.clauses.length} binding clause(s)`,
    subjectId: section.id,
    sizeField: 'sectionId',
    facts: { sectionId: section.id, clauses: section.clauses.length },
  };
}

export async function reorderSections(_env: OpEnv, doc: CharterDoc, p: OpParams<'reorderSections'>): Promise<Applied> {
  const n = doc.sections.length;
  const byId = new Map(doc.sections.map((s) => [s.id, s]));
  if (p.order.length !== n || new Set(p.order).size !== n || p.order.some((id) => !byId.has(id))) {
    throw badRequest('order', n === 1 ? 'list the 1 section once' : `list each of the ${n} sections once`);
  }
  return {
    doc: { ...doc, sections: p.order.map((id) => byId.get(id)!) },
    binding: false,
    summary: `Reorder the ${n} charter sections`,
    subjectId: null,
    sizeField: 'order',
    facts: { sections: n },
  };
}

export async function updateClauses(env: OpEnv, doc: CharterDoc, p: OpParams<'updateClauses'>): Promise<Applied> {
  const { section, index } = await liveSection(env, doc, p.sectionId);
  const next: SectionDoc = { ...section, clauses: buildClauses(p.clauses, section.clauses, section.id) };
  const kept = next.clauses.filter((c) => section.clauses.some((o) => o.id === c.id)).length;
  return {
    doc: replaceSection(doc, index, next),
    binding: true,
    summary: `Replace the ${section.clauses.length} binding clause(s) of charter section "${section.key}" (${section.id}) with ${next.clauses.length} (${kept} kept by id)`,
    subjectId: section.id,
    sizeField: 'clauses',
    facts: { sectionId: section.id, clauses: next.clauses.length, previousClauses: section.clauses.length, kept },
    section: next,
  };
}

const TEXT_LIMITS = { title: 200, summary: 5_000, contact: 500 } as const;
const LIST_ITEM_LIMITS = { accountabilities: 500, domains: 200 } as const;

/** A colleague field's value checked and normalised for the field (BAD_REQUEST `value…: …`). */
async function colleagueValue(
  env: OpEnv,
  doc: CharterDoc,
  who: { id: string; kind: 'human' | 'agent' },
  field: OpParams<'editColleagueField'>['field'],
  value: unknown,
) {
  const list = (): string[] => {
    if (value === null) return [];
    if (!Array.isArray(value)) throw badRequest('value', `${field} is a list of texts (or null to clear it)`);
    return value as string[];
  };
  const single = (): string | null => {
    if (Array.isArray(value)) throw badRequest('value', `${field} is a text (or null to clear it), not a list`);
    return value === '' ? null : (value as string | null);
  };
  switch (field) {
    case 'title':
    case 'summary':
    case 'contact': {
      const v = single();
      if (v !== null && v.length > TEXT_LIMITS[field]) throw badRequest('value', `${field} must be at most ${TEXT_LIMITS[field]} characters`);
      return v;
    }
    case 'accountabilities':
    case 'domains': {
      const v = list();
      v.forEach((item, i) => {
        if (item.length > LIST_ITEM_LIMITS[field]) throw badRequest(`value.${i}`, `must be at most ${LIST_ITEM_LIMITS[field]} characters`);
      });
      return v;
    }
    case 'roles': {
      const v = list();
      if (v.length > 20) throw badRequest('value', 'roles lists at most 20 roles');
      v.forEach((slug, i) => {
        const s = parseSelector(`role:${slug}`, 'party');
        if ('error' in s || s.kind !== 'role' || slug.startsWith('role:')) {
          throw badRequest(
            `value.${i}`,
            'a role is a slug: 1 to 63 lowercase letters, digits, dots, dashes or underscores (the selector role:<slug> names it)',
          );
        }
        if (v.indexOf(slug) !== i) throw badRequest(`value.${i}`, `role "${slug}" is listed twice`);
      });
      return v;
    }
    case 'autonomy': {
      const v = single();
      if (v !== null && !(AUTONOMY_LEVELS as readonly string[]).includes(v))
        throw badRequest('value', `autonomy must be ${AUTONOMY_LEVELS.join(', ')} or null`);
      if (v !== null && who.kind !== 'agent') throw badRequest('value', `autonomy is an agent’s; ${who.id} is a human`);
      return v;
    }
    case 'reportsTo': {
      const v = single();
      if (v === null) return v;
      if (!/^(usr|agt)_[A-Za-z0-9]+$/.test(v)) throw badRequest('value', 'reportsTo must be a member id (usr_… or agt_…) or null');
      if (v === who.id) throw badRequest('value', `${who.id} cannot report to itself`);
      const [m] = await getMembers(env.q, env.orgId, [v]);
      if (!m || m.status === 'archived') throw badRequest('value', `no member ${v} in this org${m ? ' (archived)' : ''}`);
      // No loop: following reportsTo up from the new manager must not come back.
      const up = new Map(doc.colleagues.map((c) => [c.principalId, c.reportsTo]));
      for (let at: string | null | undefined = v, steps = 0; at && steps <= doc.colleagues.length; at = up.get(at), steps++) {
        if (at === who.id) throw badRequest('value', `${who.id} reporting to ${v} would close a loop (${v} answers to ${who.id})`);
      }
      return v;
    }
  }
}

export async function editColleagueField(env: OpEnv, doc: CharterDoc, p: OpParams<'editColleagueField'>): Promise<Applied> {
  const [member] = await getMembers(env.q, env.orgId, [p.principalId]);
  if (!member) throw notFound(`member ${p.principalId}`);
  const value = await colleagueValue(env, doc, { id: member.id, kind: member.kind }, p.field, p.value);
  const current = doc.colleagues.find((c) => c.principalId === p.principalId) ?? blankColleague(p.principalId);
  const colleague = { ...current, [p.field]: value };
  const binding = (AUTHORITY_FIELDS as readonly string[]).includes(p.field);
  return {
    doc: { ...doc, colleagues: sortColleagues([...doc.colleagues.filter((c) => c.principalId !== p.principalId), colleague]) },
    binding,
    summary: `Set the ${p.field} of ${p.principalId} in the charter${binding ? ' (authority: it binds)' : ''}`,
    subjectId: p.principalId,
    sizeField: 'value',
    facts: { principalId: p.principalId, field: p.field, authority: binding },
    colleague,
  };
}

export const OPS: { [K in CharterOp]: (env: OpEnv, doc: CharterDoc, p: OpParams<K>) => Promise<Applied> } = {
  update,
  addSection,
  updateSection,
  deleteSection,
  reorderSections,
  updateClauses,
  editColleagueField,
};

export const applyOp = <K extends CharterOp>(env: OpEnv, doc: CharterDoc, op: K, p: OpParams<K>): Promise<Applied> =>
  (OPS[op] as (env: OpEnv, doc: CharterDoc, p: OpParams<K>) => Promise<Applied>)(env, doc, p);
