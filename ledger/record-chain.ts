import { randomBytes } from 'node:crypto';
import { one, type Queryable } from '../db/types.js';
import { canonicalJson, sha256Hex, type ChainBreak, type ChainVerdict } from '../protocol/hashing.js';

/*
 * A per-org hash chain of records beside the ledger, for what must be audited but is not a ledger event (an R
 * method's writes, a tool call). Each chain is two tables: `<table>` (org_id, seq, record_id, at, record, prev_hash,
 * row_hash, plus any columns that repeat record fields for queries) and `<heads>` (org_id, seq, row_hash).
 *
 *   row_hash = lowercase hex SHA-256 of the UTF-8 bytes of canonical_json({at, id, prev, record, seq})
 *
 * as the AI audit's rows (ai-gateway/audit.ts): `prev` is the previous row_hash ('' for seq 1), `record` is served
 * verbatim, so any client recomputes the chain as it does the ledger's.
 */

/** The exact string hashed for a row; recordText is the record's canonical JSON. Keys are in order. */
export function chainHashInput(prev: string, seq: number, at: string, id: string, recordText: string): string {
  const s = JSON.stringify;
  return `{"at":${s(at)},"id":${s(id)},"prev":${s(prev)},"record":${recordText},"seq":${seq}}`;
}

export interface RecordChainSpec<R> {
  /** Table of records and table of heads (global names written in migrations; never user input). */
  table: string;
  heads: string;
  /** Id prefix of a record (`dsg` -> dsg_…). */
  idPrefix: string;
  /** How verify and errors name the chain (`design log`). */
  label: string;
  /** Columns that repeat record fields for queries: written with the row and checked against the record by verify. */
  columns?: (record: R) => Record<string, string | number | null>;
}

export interface AppendedRecord {
  id: string;
  seq: number;
  at: string;
  rowHash: string;
}

export interface StoredChainRow {
  seq: number;
  record_id: string;
  at: string;
  record: string;
  prev_hash: string;
  row_hash: string;
  [column: string]: unknown;
}

export interface ChainHead {
  seq: number;
  rowHash: string;
}

export class RecordChain<R extends object> {
  private readonly extra: readonly string[];

  constructor(
    readonly spec: RecordChainSpec<R>,
    /** Column names of spec.columns (fixed per chain). */
    extraColumns: readonly string[] = [],
  ) {
    this.extra = extraColumns;
  }

  /**
   * Append one record in the caller's transaction: the org's head row (created with the first record) is locked
   * until commit, so concurrent writers of one org chain one after the other, and a rolled-back call leaves none.
   */
  async append(q: Queryable, orgId: string, record: R, at: string = new Date().toISOString()): Promise<AppendedRecord> {
    const { table, heads } = this.spec;
    const recordText = canonicalJson(record);
    await q.query(`INSERT INTO ${heads} (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING`, [orgId]);
    const head = one(await q.query<{ seq: number; row_hash: string }>(`SELECT seq, row_hash FROM ${heads} WHERE org_id = $1 FOR UPDATE`, [orgId]));
    const seq = Number(head.seq) + 1;
    const id = `${this.spec.idPrefix}_${randomBytes(10).toString('hex')}`;
    const rowHash = sha256Hex(chainHashInput(head.row_hash, seq, at, id, recordText));
    const cols = this.spec.columns?.(record) ?? {};
    const names = ['org_id', 'seq', 'record_id', 'at', 'record', 'prev_hash', 'row_hash', ...this.extra];
    const values = [orgId, seq, id, at, recordText, head.row_hash, rowHash, ...this.extra.map((c) => cols[c] ?? null)];
    await q.query(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`, values);
    await q.query(`UPDATE ${heads} SET seq = $2, row_hash = $3 WHERE org_id = $1`, [orgId, seq, rowHash]);
    return { id, seq, at, rowHash };
  }

  /** The org's head ({0, ''} before the first record). */
  async head(q: Queryable, orgId: string): Promise<ChainHead> {
    const [row] = await q.query<{ seq: number; row_hash: string }>(`SELECT seq, row_hash FROM ${this.spec.heads} WHERE org_id = $1`, [orgId]);
    return { seq: Number(row?.seq ?? 0), rowHash: row?.row_hash ?? '' };
  }

  /** A page: after `cursor` in seq order (asc), or before it, newest first (desc; 0 = from the head). */
  async read(q: Queryable, orgId: string, p: { cursor: number; limit: number; order: 'asc' | 'desc' }): Promise<StoredChainRow[]> {
    const cols = ['seq', 'record_id', 'at', 'record', 'prev_hash', 'row_hash', ...this.extra].join(', ');
    const rows =
      p.order === 'asc'
        ? await q.query<StoredChainRow>(`SELECT ${cols} FROM ${this.spec.table} WHERE org_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [
            orgId,
            p.cursor,
            p.limit,
          ])
        : await q.query<StoredChainRow>(
            `SELECT ${cols} FROM ${this.spec.table} WHERE org_id = $1 AND ($2::bigint = 0 OR seq < $2::bigint) ORDER BY seq DESC LIMIT $3`,
            [orgId, p.cursor, p.limit],
          );
    return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  }

  /** Served as GET /ops serves a chain: rows verbatim as hashed, the next cursor, the head. */
  async page(q: Queryable, orgId: string, p: { cursor: number; limit: number; order: 'asc' | 'desc' }): Promise<string> {
    const rows = await this.read(q, orgId, p);
    const head = await this.head(q, orgId);
    const s = JSON.stringify;
    const records = rows.map(
      (r) => `{"seq":${r.seq},"id":${s(r.record_id)},"at":${s(r.at)},"record":${r.record},"prevHash":${s(r.prev_hash)},"rowHash":${s(r.row_hash)}}`,
    );
    const last = rows[rows.length - 1];
    const more = rows.length === p.limit && last !== undefined && (p.order === 'asc' ? last.seq < head.seq : last.seq > 1);
    return `{"records":[${records.join(',')}],"nextCursor":${more ? last.seq : 'null'},"head":{"seq":${head.seq},"rowHash":${s(head.rowHash)}}}`;
  }

  /**
   * Walk the org's chain in seq order a page at a time, stopping at the first gap, broken link, broken row (hash,
   * non-canonical record, or a column that disagrees with it), and check the head row agrees.
   */
  async verify(q: Queryable, orgId: string, opts: { pageSize?: number } = {}): Promise<ChainVerdict> {
    const pageSize = opts.pageSize ?? 2000;
    const label = this.spec.label;
    let prev = '';
    let expectedSeq = 1;
    let count = 0;
    const broken = (b: ChainBreak): ChainVerdict => ({ ok: false, count, break: b });
    for (;;) {
      const rows = await this.read(q, orgId, { cursor: expectedSeq - 1, limit: pageSize, order: 'asc' });
      for (const row of rows) {
        const at = `${label} seq ${row.seq}`;
        if (row.seq !== expectedSeq)
          return broken({ seq: expectedSeq, kind: 'gap', message: `${label} seq ${expectedSeq}: missing record (next has seq ${row.seq})` });
        if (row.prev_hash !== prev) {
          return broken({
            seq: row.seq,
            kind: 'prev_hash',
            message: `${at}: broken link, prev_hash ${row.prev_hash || '(empty)'} != previous ${prev || '(empty)'}`,
          });
        }
        const recomputed = sha256Hex(chainHashInput(prev, row.seq, row.at, row.record_id, row.record));
        if (recomputed !== row.row_hash) {
          return broken({ seq: row.seq, kind: 'row_hash', message: `${at}: broken row, stored row_hash ${row.row_hash} != recomputed ${recomputed}` });
        }
        const problem = this.rowProblem(row);
        if (problem) return broken({ seq: row.seq, kind: 'row_hash', message: `${at}: ${problem}` });
        prev = row.row_hash;
        expectedSeq += 1;
        count += 1;
      }
      if (rows.length < pageSize) break;
    }
    const head = await this.head(q, orgId);
    const end = expectedSeq - 1;
    if (head.seq !== end) {
      const seq = Math.min(head.seq, end) + 1;
      return broken({ seq, kind: 'gap', message: `${label} seq ${seq}: the head says seq ${head.seq}, the chain ends at ${end}` });
    }
    if (head.rowHash !== prev)
      return broken({ seq: end, kind: 'row_hash', message: `${label} seq ${end}: row_hash ${prev} disagrees with the head ${head.rowHash}` });
    return { ok: true, count, head: { seq: end, rowHash: prev } };
  }

  private rowProblem(row: StoredChainRow): string | undefined {
    let record: R;
    try {
      record = JSON.parse(row.record) as R;
    } catch {
      return 'record is not JSON';
    }
    if (canonicalJson(record) !== row.record) return 'record is not canonical JSON';
    const expected = this.spec.columns?.(record) ?? {};
    for (const c of this.extra) {
      const stored = typeof row[c] === 'bigint' || typeof expected[c] === 'number' ? Number(row[c]) : row[c];
      if ((stored ?? null) !== (expected[c] ?? null)) return `column ${c} (${String(row[c])}) disagrees with the hashed record (${String(expected[c])})`;
    }
    return undefined;
  }
}
