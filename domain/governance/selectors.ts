import { badRequest } from '../../protocol/errors.js';

/*
 * Who a decision right names (docs/families/governance.md, Decision rights). A selector is one string:
 *   usr_… / agt_…   one principal, by id
 *   humans          any human member
 *   owner           whoever holds the act's subject (a decision's driver, a task's holder, a compact's sponsor)
 *   role:<slug>     the colleagues holding a charter role; a bare slug means the same
 *   agents, anyone  any agent / anyone: only in agree, perform and input, never as a decider
 */

export type Selector =
  | { kind: 'principal'; id: string; principalKind: 'human' | 'agent' }
  | { kind: 'humans' }
  | { kind: 'owner' }
  | { kind: 'agents' }
  | { kind: 'anyone' }
  | { kind: 'role'; slug: string };

/** Where a selector stands: a decider (decidedBy, escalateTo) or a party (agree, perform, input). */
export type SelectorPlace = 'decider' | 'party';

const PRINCIPAL = /^(usr|agt)_[A-Za-z0-9]+$/;
const ROLE_SLUG = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const GROUPS = new Set(['agents', 'anyone']);

const GRAMMAR = 'usr_… or agt_… (a member id), humans, owner, role:<slug> or a bare role slug';

/** Parse a selector, or say why it is none (the reason only; the caller names the field). */
export function parseSelector(raw: string, place: SelectorPlace): Selector | { error: string } {
  if (PRINCIPAL.test(raw)) return { kind: 'principal', id: raw, principalKind: raw.startsWith('usr_') ? 'human' : 'agent' };
  if (raw === 'humans') return { kind: 'humans' };
  if (raw === 'owner') return { kind: 'owner' };
  if (GROUPS.has(raw)) {
    if (place === 'decider') return { error: `"${raw}" names a group that only agree, perform and input may use; a decider is ${GRAMMAR}` };
    return { kind: raw as 'agents' | 'anyone' };
  }
  const slug = raw.startsWith('role:') ? raw.slice(5) : raw;
  if (ROLE_SLUG.test(slug) && !/^(usr|agt)_/.test(slug)) return { kind: 'role', slug };
  const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  return { error: `${JSON.stringify(shown)} is not a selector: ${GRAMMAR}${place === 'party' ? ', agents or anyone' : ''}` };
}

/** Parse or throw BAD_REQUEST `<field>: <reason>` (e.g. `rights[3].decidedBy: …`). */
export function selectorOrThrow(raw: string, place: SelectorPlace, field: string): Selector {
  const parsed = parseSelector(raw, place);
  if ('error' in parsed) throw badRequest(field, parsed.error);
  return parsed;
}

/** A declared right as stored (orgs.decision_rights) and echoed by governance.status. */
export interface Right {
  area: string;
  decidedBy: string;
  escalateTo?: string;
  agree?: string[];
  perform?: string[];
  input?: string[];
}

/**
 * Check a whole declaration: every selector in its place, every area once. The first problem is the BAD_REQUEST,
 * named by its index (`rights[3].decidedBy`, `rights[0].agree[1]`).
 */
export function validateRights(rights: readonly Right[]): void {
  const seen = new Map<string, number>();
  rights.forEach((r, i) => {
    const at = `rights.${i}`;
    const first = seen.get(r.area);
    if (first !== undefined) throw badRequest(`${at}.area`, `${JSON.stringify(r.area)} is declared twice (also rights.${first}); one right per area`);
    seen.set(r.area, i);
    selectorOrThrow(r.decidedBy, 'decider', `${at}.decidedBy`);
    if (r.escalateTo !== undefined) selectorOrThrow(r.escalateTo, 'decider', `${at}.escalateTo`);
    for (const list of ['agree', 'perform', 'input'] as const) {
      r[list]?.forEach((s, j) => selectorOrThrow(s, 'party', `${at}.${list}.${j}`));
    }
  });
}
