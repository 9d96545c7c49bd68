import { canonicalJson, ledgerIdOf, sha256Hex } from '../protocol/hashing.js';
import { isSqlError, one, SQLSTATE, type Queryable } from '../db/types.js';
import { redactPayload } from './redact.js';

export interface NewEvent {
  family: string;
  kind: string;
  entityId: string;
  actor: string;
  payload: unknown;
}

export interface AppendedEvent {
  seq: number;
  at: string;
  prevHash: string;
  rowHash: string;
  /** First 8 hex of rowHash, as quoted in results (`ledger #<ledgerId>`). */
  ledgerId: string;
}

// The ISO-8601 UTC form with milliseconds that JavaScript's toISOString() produces.
const AT_SQL = `to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/*
 * One statement appends: it takes the org's head-row lock, advances seq, hashes, and inserts the event.
 * The app builds the canonical text around the three values only the locked head knows (at, prev, seq),
 * so SQL just concatenates and hashes; the app then recomputes the hash itself. Run as the last statement
 * of a call, the lock is held for this statement and the commit; sent with the COMMIT (the pipeline's
 * emit), nothing of this process runs while it is held. An org without a head inserts a NULL seq, which
 * fails the statement (and so the transaction) rather than committing a call without its event.
 */
const APPEND_SQL = `
WITH head AS (
  UPDATE ledger_heads SET
    seq = seq + 1,
    prev_hash = row_hash,
    at = ${AT_SQL},
    row_hash = encode(sha256(convert_to($2 || ${AT_SQL} || $3 || row_hash || '","seq":' || (seq + 1) || '}', 'UTF8')), 'hex')
  WHERE org_id = $1
  RETURNING seq, at, prev_hash, row_hash
)
INSERT INTO events (org_id, seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash)
SELECT $1, head.seq, $4, $5, $6, $7, head.at, $8, head.prev_hash, head.row_hash FROM (SELECT) AS one LEFT JOIN head ON true
RETURNING seq, at, prev_hash, row_hash`;

export async function appendEvent(q: Queryable, orgId: string, e: NewEvent): Promise<AppendedEvent> {
  const s = JSON.stringify;
  const payloadText = canonicalJson(redactPayload(e.family, e.payload ?? null) ?? null);
  const before = `{"actor":${s(e.actor)},"at":"`;
  const middle = `","entity_id":${s(e.entityId)},"family":${s(e.family)},"kind":${s(e.kind)},"payload":${payloadText},"prev":"`;
  const rows = await q
    .query<{ seq: number; at: string; prev_hash: string; row_hash: string }>(APPEND_SQL, [
      orgId,
      before,
      middle,
      e.family,
      e.kind,
      e.entityId,
      e.actor,
      payloadText,
    ])
    .catch((err: unknown) => {
      throw isSqlError(err, SQLSTATE.notNullViolation) ? new Error(`ledger head missing for org ${orgId}`) : err;
    });
  const row = one(rows, 'the ledger append');
  const expected = sha256Hex(`${before}${row.at}${middle}${row.prev_hash}","seq":${row.seq}}`);
  if (expected !== row.row_hash) {
    // Sent with its COMMIT, the event is committed by the time this is known: verify names the row.
    throw new Error(`ledger hash mismatch at seq ${row.seq} of org ${orgId}: database and app disagree; run \`npm run cli -- verify\``);
  }
  return { seq: row.seq, at: row.at, prevHash: row.prev_hash, rowHash: row.row_hash, ledgerId: ledgerIdOf(row.row_hash) };
}

/** Every new org starts an empty chain: seq 0, no hash. */
export async function createLedgerHead(q: Queryable, orgId: string): Promise<void> {
  await q.query('INSERT INTO ledger_heads (org_id) VALUES ($1)', [orgId]);
}

/**
 * The seq this call's event will get, for a row that must cite its own event (a version's ledger seq): takes the
 * org's head-row lock now, which an emitting call holds to commit anyway. Call it just before emit.
 */
export async function nextSeq(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ seq: number }>('SELECT seq FROM ledger_heads WHERE org_id = $1 FOR UPDATE', [orgId]);
  if (!row) throw new Error(`org ${orgId} has no ledger head`);
  return Number(row.seq) + 1;
}
