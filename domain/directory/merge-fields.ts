import { ORG_CHOICES, PERSON_CHOICES } from '../../protocol/methods/directory/merges.js';
import { badRequest } from '../../protocol/errors.js';
import { cleanAliases } from './party-write.js';
import type { PartyKind, PartyRow } from './model.js';

/*
 * The survivor's fields after a merge: its own value wins, a blank one takes the merged party's, a fieldChoice of
 * "merged" takes the merged party's outright. Names: the merged party's name and aliases become aliases (and the
 * survivor's own name too when a choice renames it). Tags and addresses are unioned; doNotContact holds if either
 * party asked for it (a wish not to be contacted is never dropped by a merge).
 */

export type Choice = 'survivor' | 'merged';
export type Choices = Readonly<Record<string, Choice | undefined>>;

/** BAD_REQUEST for a choice of a field the kind does not have. */
export function checkChoices(kind: PartyKind, choices: Choices): void {
  const allowed: readonly string[] = kind === 'person' ? PERSON_CHOICES : ORG_CHOICES;
  for (const field of Object.keys(choices)) {
    if (!allowed.includes(field))
      throw badRequest(`fieldChoices.${field}`, `not a field of ${kind === 'person' ? 'a person' : 'an organisation'} (${allowed.join(', ')})`);
  }
}

const blank = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

/** The survivor's party columns after the merge (the writer skips those already so). */
export function mergedColumns(s: PartyRow, l: PartyRow, choices: Choices): Record<string, unknown> {
  const pick = <T>(field: string, mine: T, theirs: T): T => (choices[field] === 'merged' || blank(mine) ? theirs : mine);
  const out: Record<string, unknown> = {};
  const nameField = s.kind === 'person' ? 'displayName' : 'name';
  const displayName = choices[nameField] === 'merged' ? l.display_name : s.display_name;
  if (s.kind === 'person') {
    out.given_name = pick('given', s.given_name, l.given_name);
    out.family_name = pick('family', s.family_name, l.family_name);
    out.title = pick('title', s.title, l.title);
  } else {
    out.legal_name = pick('legalName', s.legal_name, l.legal_name);
    // The domain is the website's: they come from the same party.
    const site = pick('website', s.website, l.website);
    out.website = site;
    out.domain = site === s.website ? s.domain : l.domain;
  }
  out.display_name = displayName;
  out.notes = pick('notes', s.notes, l.notes);
  out.country = pick('country', s.country, l.country);
  out.aliases = cleanAliases([...s.aliases, s.display_name, l.display_name, ...l.aliases], displayName);
  out.tags = [...new Set([...s.tags, ...l.tags])];
  const addresses = [...s.addresses];
  for (const a of l.addresses) if (!addresses.some((b) => JSON.stringify(b) === JSON.stringify(a))) addresses.push(a);
  out.addresses = addresses;
  out.do_not_contact = s.do_not_contact || l.do_not_contact;
  return out;
}
