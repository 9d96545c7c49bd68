import { actionKind, itemsOf, leafOf, type Action, type Item, type Leaf, type Then, type When } from './grammar.js';

/*
 * A rule in words, as Front shows its rules: "When the sender's domain is client.example and the subject contains
 * 'invoice': move to Finance, mark read". The same words explain a match (evaluate.ts): each condition as it held,
 * or as it failed ("the subject does not contain 'invoice'").
 */

const FIELD: Record<Leaf['field'], string> = {
  from: "the sender's address",
  fromDomain: "the sender's domain",
  to: 'a To address',
  cc: 'a Cc address',
  subject: 'the subject',
  body: 'the body',
  listId: 'the mailing list id',
  hasAttachment: 'the message',
  dmarc: 'the DMARC verdict',
};

const OP: Record<string, [string, string]> = {
  is: ['is', 'is not'],
  contains: ['contains', 'does not contain'],
  startsWith: ['starts with', 'does not start with'],
  endsWith: ['ends with', 'does not end with'],
  matchesDomain: ['is in the domain', 'is not in the domain'],
};

/** Domains read as they are; other text in quotes. */
const shown = (leaf: Leaf & { value: string }): string =>
  leaf.op === 'matchesDomain' || leaf.field === 'fromDomain' || leaf.field === 'listId' ? leaf.value : `'${leaf.value}'`;

/** One condition in words, as it holds (`holds` true) or as it does not. */
export function leafWords(leaf: Leaf, holds = true): string {
  if (leaf.field === 'hasAttachment') return `the message ${leaf.value === holds ? 'has an attachment' : 'has no attachment'}`;
  if (leaf.field === 'dmarc') return `the DMARC verdict ${holds ? 'is' : 'is not'} ${leaf.value}`;
  const [yes, no] = OP[leaf.op];
  const domainTail = leaf.op === 'matchesDomain' ? ' (or one under it)' : '';
  return `${FIELD[leaf.field]} ${holds ? yes : no} ${shown(leaf)}${domainTail}`;
}

/** A condition of a list in words, as it holds (a `not` reads as its leaf not holding). */
export function itemWords(item: Item, holds = true): string {
  const { leaf, negated } = leafOf(item);
  return leafWords(leaf, negated ? !holds : holds);
}

export function whenWords(when: When): string {
  const joiner = 'any' in when ? ' or ' : ' and ';
  return itemsOf(when)
    .map(({ item }) => itemWords(item))
    .join(joiner);
}

export function actionWords(action: Action): string {
  if ('move' in action) return `move to ${action.move}`;
  if ('markRead' in action) return 'mark read for everyone';
  if ('assign' in action) return `assign to ${action.assign} (when no one answers it yet)`;
  if ('spam' in action) return 'put in Spam';
  if ('holdReplies' in action) return "hold agents' replies for review";
  if ('triage' in action) {
    const parts = [
      ...(action.triage.category !== undefined ? [`category '${action.triage.category}'`] : []),
      ...(action.triage.priority !== undefined ? [`priority ${action.triage.priority}`] : []),
    ];
    return `triage as ${parts.join(', ')}`;
  }
  return actionKind(action);
}

/** "When …: …". */
export function ruleWords(when: When, then: Then): string {
  return `When ${whenWords(when)}: ${then.map(actionWords).join(', ')}`;
}
