import type { Queryable } from '../../db/types.js';
import type { FamilySet } from '../core/family.js';

/*
 * Columns of other families that point at a party (docs/families/directory.md, One person, one record). A family
 * declares them in its descriptor, e.g.
 * `contributes: { partyRefs: { refs: [{ table: 'crm_deals', column: 'party_id' }] } }`; a directory merge
 * repoints every such column from the merged party to the survivor, recording each change in the merge's change
 * log (directory_merge_changes), so a revert restores exactly. A family whose rows cannot simply be repointed
 * (two CRM contacts of one party fold into one) declares a hook instead, which writes its changes to the same log.
 * The directory's own tables (channels, links, lists, awareness, captures) are the merge's own business.
 */

/** One column holding a party id (per_… or co_…); the table keys by org_id first, like every tenant table. */
export interface PartyRef {
  table: string;
  column: string;
}

/** One recorded change, as directory_merge_changes stores it (row_key: the row's primary key without org_id). */
export interface MergeChange {
  table: string;
  rowKey: Record<string, unknown>;
  /** The column of an update; null for a whole-row insert or delete. */
  column: string | null;
  op: 'update' | 'insert' | 'delete';
  before: unknown;
  after: unknown;
}

/** Where a repoint hook records what it changed (the merge writes the log rows, in order). */
export interface MergeChangeLog {
  /**
   * Record a write the hook made itself. before/after must be the values as the database's to_jsonb renders them:
   * a revert compares the row's current to_jsonb with `after`.
   */
  record(change: MergeChange): Promise<void>;
  /** Set columns of one row (key: its primary key without org_id) and record each change; returns the columns changed. */
  update(table: string, key: Record<string, unknown>, values: Record<string, unknown>): Promise<string[]>;
  /** Delete one row, recorded whole (a revert re-inserts it). */
  delete(table: string, key: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface RepointContext {
  q: Queryable;
  orgId: string;
  mergeId: string;
  survivorId: string;
  mergedId: string;
  log: MergeChangeLog;
}

/** A family's own repointing, for references a plain column update would break. */
export type RepointHook = (ctx: RepointContext) => Promise<void>;

/** A family's party columns, and optionally its repoint hook. */
export interface PartyRefs {
  refs: readonly PartyRef[];
  hook?: RepointHook;
}

declare module '../core/family.js' {
  interface Contributions {
    /** Columns pointing at a directory party, repointed by a merge (directory/refs.ts). */
    partyRefs: PartyRefs;
  }
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** The runtime's check of every family's declared columns (the directory descriptor's verify). */
export function checkPartyRefs(families: FamilySet): void {
  for (const { family, value } of families.contributions('partyRefs')) {
    for (const ref of value.refs) {
      if (!IDENT.test(ref.table) || !IDENT.test(ref.column)) throw new Error(`partyRefs of ${family}: ${ref.table}.${ref.column} is not a plain identifier`);
      if (ref.table.startsWith('directory_')) throw new Error(`partyRefs of ${family}: ${ref.table} is the directory's own table`);
    }
  }
}

/** Every family's declared references, for the merge. */
export const partyRefs = (families: FamilySet): readonly (PartyRefs & { family: string })[] =>
  families.contributions('partyRefs').map(({ family, value }) => ({ family, ...value }));
