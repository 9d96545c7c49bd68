import type { z } from 'zod';
import { badRequest } from '../../../protocol/errors.js';
import type { RuleAction, RuleCondition, RuleThen, RuleWhen } from '../../../protocol/methods/email/rules.js';
import { cleanPath, SYSTEM_FOLDERS } from '../folders.js';

/*
 * The rule grammar beyond its zod shape (protocol/methods/email/rules.ts): what a shape cannot say, checked with
 * the field path a caller fixes. matchesDomain compares domains, so only fields that hold one take it; each action
 * appears once; a move names a folder of the caller's own, never Trash (rules never delete), Spam (the spam action
 * says so, and only a person's rule may), Drafts or Sent.
 */

export type When = z.infer<typeof RuleWhen>;
export type Then = z.infer<typeof RuleThen>;
export type Leaf = z.infer<typeof RuleCondition>;
export type Action = z.infer<typeof RuleAction>;
export type Item = Leaf | { not: Leaf };

/** Fields whose values are (or end in) a domain. */
const DOMAIN_FIELDS = new Set(['from', 'fromDomain', 'to', 'cc', 'listId']);
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
/** Folders a rule may not move mail to: the system folders other than Inbox and Archive. */
const NOT_A_TARGET: Record<string, string> = {
  trash: 'rules never move mail to Trash',
  spam: 'use the action {spam: true} instead (a rule a person wrote only)',
  drafts: 'Drafts holds drafts only',
  sent: 'Sent holds mail sent from here',
};

export const actionKind = (a: Action): string => Object.keys(a)[0];

/** The conditions of `when` and the path of each (`when.all.2`). */
export function itemsOf(when: When, root = 'when'): { item: Item; path: string }[] {
  if ('all' in when) return when.all.map((item, i) => ({ item, path: `${root}.all.${i}` }));
  if ('any' in when) return when.any.map((item, i) => ({ item, path: `${root}.any.${i}` }));
  return [{ item: when, path: root }];
}

export const leafOf = (item: Item): { leaf: Leaf; negated: boolean; at: string } =>
  'not' in item ? { leaf: item.not, negated: true, at: '.not' } : { leaf: item, negated: false, at: '' };

/** `when` checked beyond its shape; values of domain comparisons lower-cased. */
export function checkWhen(when: When): When {
  const fix = (item: Item, path: string): Item => {
    const { leaf, negated, at } = leafOf(item);
    if (leaf.field === 'hasAttachment' || leaf.field === 'dmarc') return item;
    let value = leaf.value.trim();
    if (value === '') throw badRequest(`${path}${at}.value`, 'must not be blank');
    if (leaf.op === 'matchesDomain') {
      if (!DOMAIN_FIELDS.has(leaf.field))
        throw badRequest(`${path}${at}.op`, `matchesDomain compares domains: use it with from, fromDomain, to, cc or listId, not ${leaf.field}`);
      value = value.toLowerCase().replace(/^@/, '');
      if (!DOMAIN.test(value)) throw badRequest(`${path}${at}.value`, 'must be a domain such as client.example');
    }
    const fixed: Leaf = { ...leaf, value };
    return negated ? { not: fixed } : fixed;
  };
  if ('all' in when) return { all: when.all.map((item, i) => fix(item, `when.all.${i}`)) };
  if ('any' in when) return { any: when.any.map((item, i) => fix(item, `when.any.${i}`)) };
  return fix(when, 'when') as { not: Leaf };
}

/** `then` checked beyond its shape: each action once, one folder choice, a folder path a rule may use. */
export function checkThen(then: Then): Then {
  const seen = new Set<string>();
  return then.map((action, i) => {
    const kind = actionKind(action);
    if (seen.has(kind)) throw badRequest(`then.${i}`, `${kind} is given twice: each action at most once`);
    seen.add(kind);
    if ((kind === 'move' && seen.has('spam')) || (kind === 'spam' && seen.has('move'))) {
      throw badRequest(`then.${i}`, 'move and spam both choose a folder: keep one');
    }
    if ('move' in action) {
      const path = cleanPath(action.move, `then.${i}.move`);
      const role = SYSTEM_FOLDERS.find(([, name]) => name.toLowerCase() === path.toLowerCase())?.[0];
      if (role && NOT_A_TARGET[role]) throw badRequest(`then.${i}.move`, NOT_A_TARGET[role]);
      return { move: path };
    }
    if ('triage' in action && action.triage.category !== undefined) return { triage: { ...action.triage, category: action.triage.category.trim() } };
    return action;
  });
}

/** The number of conditions of `when`. */
export const conditionCount = (when: When): number => itemsOf(when).length;
