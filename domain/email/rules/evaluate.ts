import { itemsOf, leafOf, type Item, type Leaf, type When } from './grammar.js';
import { itemWords } from './words.js';

/*
 * The rule evaluator, hand-written (Sieve has no maintained JS interpreter, and the grammar is closed): plain
 * string comparisons, case-insensitive, over facts taken once from a message. No regex is built from a rule's
 * values and nothing is evaluated as code. It says which conditions decided the answer, in words.
 */

export interface Facts {
  from: string;
  fromDomain: string;
  to: readonly string[];
  cc: readonly string[];
  subject: string;
  body: string;
  hasAttachment: boolean;
  /** null: no verdict (mail imported over IMAP), read as none. */
  dmarc: string | null;
  listId: string | null;
}

/** The same facts lower-cased once, for every rule of the mailbox. */
export interface PreparedFacts {
  text: Record<'from' | 'fromDomain' | 'subject' | 'body', string> & { to: string[]; cc: string[]; listId: string[] };
  hasAttachment: boolean;
  dmarc: string;
}

export function prepareFacts(f: Facts): PreparedFacts {
  const low = (s: string) => s.toLowerCase();
  return {
    text: {
      from: low(f.from),
      fromDomain: low(f.fromDomain),
      subject: low(f.subject),
      body: low(f.body),
      to: f.to.map(low),
      cc: f.cc.map(low),
      listId: f.listId ? [low(f.listId)] : [],
    },
    hasAttachment: f.hasAttachment,
    dmarc: f.dmarc ?? 'none',
  };
}

const domainPart = (field: string, value: string): string => (field === 'fromDomain' || field === 'listId' ? value : value.slice(value.lastIndexOf('@') + 1));

function compare(op: string, field: string, actual: string, wanted: string): boolean {
  switch (op) {
    case 'is':
      return actual === wanted;
    case 'contains':
      return actual.includes(wanted);
    case 'startsWith':
      return actual.startsWith(wanted);
    case 'endsWith':
      return actual.endsWith(wanted);
    case 'matchesDomain': {
      const domain = domainPart(field, actual);
      return domain === wanted || domain.endsWith(`.${wanted}`);
    }
    default:
      return false;
  }
}

export function leafHolds(leaf: Leaf, f: PreparedFacts): boolean {
  if (leaf.field === 'hasAttachment') return f.hasAttachment === leaf.value;
  if (leaf.field === 'dmarc') return f.dmarc === leaf.value;
  const actual = f.text[leaf.field];
  const wanted = leaf.value.toLowerCase();
  const values = typeof actual === 'string' ? [actual] : actual;
  return values.some((v) => compare(leaf.op, leaf.field, v, wanted));
}

const itemHolds = (item: Item, f: PreparedFacts): boolean => {
  const { leaf, negated } = leafOf(item);
  return leafHolds(leaf, f) !== negated;
};

export interface Verdict {
  matched: boolean;
  /** The conditions that decided it, in words: those that held (a match), or those that failed. */
  because: string[];
}

export function evaluate(when: When, f: PreparedFacts): Verdict {
  const results = itemsOf(when).map(({ item }) => ({ item, holds: itemHolds(item, f) }));
  const any = 'any' in when;
  const matched = any ? results.some((r) => r.holds) : results.every((r) => r.holds);
  // A match is explained by what held; a miss by what failed (for any: every condition failed).
  const deciding = results.filter((r) => r.holds === matched);
  return { matched, because: deciding.map((r) => itemWords(r.item, r.holds)) };
}
