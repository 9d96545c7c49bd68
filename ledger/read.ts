import type { KindMatch } from '../protocol/events.js';
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

const COLUMNS = 'seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash';

export async function readEvents(q: Queryable, orgId: string, afterSeq: number, limit: number): Promise<StoredEventRow[]> {
  return q.query<StoredEventRow>(`SELECT ${COLUMNS} FROM events WHERE org_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [orgId, afterSeq, limit]);
}

/** The org's events of these seqs (those that exist), in seq order. */
export async function readEventsAt(q: Queryable, orgId: string, seqs: readonly number[]): Promise<StoredEventRow[]> {
  return q.query<StoredEventRow>(`SELECT ${COLUMNS} FROM events WHERE org_id = $1 AND seq = ANY($2::bigint[]) ORDER BY seq`, [orgId, seqs]);
}

/** The org's events of one kind (as stored) about these entities, after `afterSeq`, in seq order. */
export async function readEventsAbout(
  q: Queryable,
  orgId: string,
  f: { afterSeq: number; kind: string; entityIds: readonly string[] },
): Promise<StoredEventRow[]> {
  return q.query<StoredEventRow>(`SELECT ${COLUMNS} FROM events WHERE org_id = $1 AND seq > $2 AND kind = $3 AND entity_id = ANY($4::text[]) ORDER BY seq`, [
    orgId,
    f.afterSeq,
    f.kind,
    f.entityIds,
  ]);
}

/** One event as JSON text, its payload spliced in as the stored canonical text (what was hashed). */
export function eventJson(r: StoredEventRow): string {
  const s = JSON.stringify;
  return (
    `{"seq":${r.seq},"family":${s(r.family)},"kind":${s(r.kind)},"entity_id":${s(r.entity_id)},"actor":${s(r.actor)},` +
    `"at":${s(r.at)},"payload":${r.payload},"prev_hash":${s(r.prev_hash)},"row_hash":${s(r.row_hash)}}`
  );
}

/**
 * The /events page as JSON text. Payloads are spliced in as the stored canonical text, so a client
 * receives exactly the bytes that were hashed. nextCursor is the last seq scanned (a filtered page may
 * have matched nothing and still moved on); without one, the last seq of the page, or the cursor itself.
 */
export function eventsPageJson(rows: StoredEventRow[], cursor: number, lastScanned?: number): string {
  const nextCursor = lastScanned ?? (rows.length ? rows[rows.length - 1].seq : cursor);
  return `{"events":[${rows.map(eventJson).join(',')}],"nextCursor":${nextCursor}}`;
}

export interface EventFilter {
  family?: string;
  /** A kind (or several) and the names it had or has (protocol/events.ts matchKind). */
  kind?: KindMatch;
  /** Kinds left out (heartbeats and beats, which come by the thousand a day). */
  exclude?: readonly string[];
  /** Families the reader may not see (its key lacks their read scope). */
  hidden: readonly string[];
}

/**
 * Up to `limit` events after `afterSeq` that pass the filter, looking at no more than `scan` rows. lastScanned
 * is where the next page starts: the last row returned when the page filled, else the last row looked at.
 */
export async function scanEvents(
  q: Queryable,
  orgId: string,
  afterSeq: number,
  limit: number,
  scan: number,
  f: EventFilter,
): Promise<{ rows: StoredEventRow[]; lastScanned: number }> {
  const rows = await q.query<StoredEventRow & { last: number | null }>(
    `WITH scanned AS (
       SELECT ${COLUMNS} FROM events
        WHERE org_id = $1 AND seq > $2 ORDER BY seq LIMIT $3),
     hit AS (
       SELECT * FROM scanned
        WHERE ($4::text IS NULL OR family = $4) AND family <> ALL($6::text[])
          AND ($5::text[] IS NULL OR kind = ANY($5::text[])
               OR (family, kind) IN (SELECT f, k FROM unnest($8::text[], $9::text[]) AS renamed(f, k)))
          AND kind <> ALL($10::text[])
        ORDER BY seq LIMIT $7)
     SELECT hit.*, s.last FROM (SELECT max(seq) AS last FROM scanned) s
       LEFT JOIN hit ON true ORDER BY hit.seq`,
    [
      orgId,
      afterSeq,
      scan,
      f.family ?? null,
      f.kind?.kinds ?? null,
      f.hidden,
      limit,
      f.kind?.pairs.map((p) => p.family) ?? [],
      f.kind?.pairs.map((p) => p.kind) ?? [],
      f.exclude ?? [],
    ],
  );
  const found = rows.filter((r) => r.seq !== null);
  const full = found.length >= limit;
  const lastScanned = full ? found[found.length - 1].seq : (rows[0]?.last ?? afterSeq);
  return { rows: found, lastScanned };
}

export interface Snapshot {
  orgId: string;
  head: { seq: number; rowHash: string };
}

export async function readSnapshot(q: Queryable, orgId: string): Promise<Snapshot> {
  const [row] = await q.query<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM ledger_heads WHERE org_id = $1', [orgId]);
  return { orgId, head: { seq: row?.seq ?? 0, rowHash: row?.row_hash ?? '' } };
}
