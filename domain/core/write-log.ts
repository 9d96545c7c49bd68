import type { Queryable } from '../../db/types.js';
import type { AppendedRecord } from '../../ledger/record-chain.js';

/*
 * The write log of an R method that writes (contract `writes`): the registry keeps such a method R, so it appends
 * no ledger event; its one record goes to a per-org hash chain of its family's instead, in the call's transaction.
 * The family owns the chain (its tables, its GET /ops source); the pipeline only makes sure there is exactly one.
 */

/** One record of an R write, as hashed: ids, versions, counts, statuses, hashes; body-like fields are dropped. */
export interface WriteRecord {
  method: string;
  requestId: string;
  /** The principal who called (usr_…/agt_…), and the key used. */
  actor: string;
  keyId: string;
  /** `<family>.<noun>.<verb>`, as ledger event kinds. */
  kind: string;
  entityId: string;
  payload: Record<string, unknown> | null;
}

export interface WriteLog {
  /** Append in the call's transaction; a rolled-back call leaves no record. */
  append(q: Queryable, orgId: string, record: WriteRecord, at: string): Promise<AppendedRecord>;
}
