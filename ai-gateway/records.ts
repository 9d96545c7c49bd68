import type { GroundingRules } from './answerer.js';
import { LEDGER_EVENTS_TOOL } from './ledger-events.js';
import type { Citation } from './types.js';

/** The key a citation is filed under: `record:inv_…`, `account:610`, `event:42`. */
export function citationKey(c: Citation): string {
  switch (c.kind) {
    case 'record':
      return `record:${c.id}`;
    case 'account':
      return `account:${c.code}`;
    case 'event':
      return `event:${c.seq}`;
  }
}

/** How a citation reads in a refusal: `record inv_…`, `account 610`, `ledger event seq 42`. */
export function describeCitation(c: Citation): string {
  switch (c.kind) {
    case 'record':
      return `record ${c.id}`;
    case 'account':
      return `account ${c.code}`;
    case 'event':
      return `ledger event seq ${c.seq}`;
  }
}

/**
 * Everything the reads returned in one ask, by citation key. A key may have several occurrences (the same
 * invoice in books.invoices and in an aged receivables report; one account in two reports): each is kept,
 * so grounding can tell a figure that any of them supports from one that none does.
 */
export class CitedRecords {
  private readonly byKey = new Map<string, object[]>();
  /** Reads run in this ask (successful ones). */
  reads = 0;

  add(c: Citation, record: object): void {
    const key = citationKey(c);
    const list = this.byKey.get(key);
    if (!list) this.byKey.set(key, [record]);
    else if (!list.includes(record)) list.push(record);
  }

  has(c: Citation): boolean {
    return this.byKey.has(citationKey(c));
  }

  /** Every occurrence of a cited record (empty when no read returned it). */
  occurrences(c: Citation): readonly object[] {
    return this.byKey.get(citationKey(c)) ?? [];
  }

  get size(): number {
    return this.byKey.size;
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }
}

/** The value at a dot path (`totals.grossCents`), or undefined. Own properties only. */
export function fieldAt(record: object, path: string): unknown {
  let node: unknown = record;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * File every citable thing in one read's result:
 * - any object (at any depth) with a string `id` -> a record citation;
 * - `ledger.events`: each event (an object with an integer `seq`) -> an event citation;
 * - whatever the answerer's rules make citable besides (books: chart accounts and report lines -> account).
 */
export function indexResult(records: CitedRecords, tool: string, result: unknown, rules: Pick<GroundingRules, 'citable'> = {}): void {
  const walk = (node: unknown, depth: number): void => {
    if (depth > 12 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    const obj = node as Record<string, unknown>;
    if (typeof obj.id === 'string' && obj.id.length > 0) records.add({ kind: 'record', id: obj.id }, obj);
    if (tool === LEDGER_EVENTS_TOOL && Number.isSafeInteger(obj.seq) && typeof obj.kind === 'string') {
      records.add({ kind: 'event', seq: obj.seq as number }, obj);
    }
    for (const c of rules.citable?.(tool, obj) ?? []) records.add(c, obj);
    for (const value of Object.values(obj)) walk(value, depth + 1);
  };
  walk(result, 0);
  records.reads += 1;
}
