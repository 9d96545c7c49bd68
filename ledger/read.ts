import type { Queryable } from '../db/types.js';

export interface StoredEventRow {
  seq: number;
  family: string;
  kind: string;
  entity_id: string;
  actor: string;
  at: string;
  /** Canonical JSON text exactly as hashed. */
  payload: string;
  prev_hash: string;
  row_hash: string;
}

export async function readEvents(q: Queryable, orgId: string, afterSeq: number, limit: number): Promise<StoredEventRow[]> {
  return q.query<StoredEventRow>(
    `SELECT seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash
       FROM events WHERE org_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [orgId, afterSeq, limit],
  );
}

/**
 * The /events page as JSON text. Payloads are spliced in as the stored canonical text, so a client
 * receives exactly the bytes that were hashed.
 */
export function eventsPageJson(rows: StoredEventRow[], cursor: number): string {
  const s = JSON.stringify;
  const events = rows.map(
    (r) =>
      `{"seq":${r.seq},"family":${s(r.family)},"kind":${s(r.kind)},"entity_id":${s(r.entity_id)},"actor":${s(r.actor)},` +
      `"at":${s(r.at)},"payload":${r.payload},"prev_hash":${s(r.prev_hash)},"row_hash":${s(r.row_hash)}}`,
  );
  const nextCursor = rows.length ? rows[rows.length - 1].seq : cursor;
  return `{"events":[${events.join(',')}],"nextCursor":${nextCursor}}`;
}

export interface Snapshot {
  orgId: string;
  head: { seq: number; rowHash: string };
}

export async function readSnapshot(q: Queryable, orgId: string): Promise<Snapshot> {
  const [row] = await q.query<{ seq: number; row_hash: string }>(
    'SELECT seq, row_hash FROM ledger_heads WHERE org_id = $1',
    [orgId],
  );
  return { orgId, head: { seq: row?.seq ?? 0, rowHash: row?.row_hash ?? '' } };
}
