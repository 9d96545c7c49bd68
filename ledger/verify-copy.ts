import pg from 'pg';
import type { ChainVerdict } from '../protocol/hashing.js';
import { copyRows, type RowFields } from './copy-rows.js';
import { BYTE_COLUMN_COUNT, BYTE_COLUMNS, ByteChainVerifier } from './verify-bytes.js';
import type { SegmentOptions } from './verify.js';

// Rows per COPY statement, in pages: each statement is a bounded index scan in seq order, which PostgreSQL
// streams as it reads (a whole large org would be planned as a sequential scan and a sort), and a break
// leaves at most the rest of one statement to drain.
const PAGES_PER_COPY = 25;

/**
 * verifySegment on PostgreSQL over a connection of its own: the rows come in binary COPY statements, in seq
 * order, and are hashed from their bytes (verify-bytes.ts) as they arrive, which skips node-postgres decoding
 * every field into a string and every row into an object. Keyset paging as in the paged walk (each statement
 * starts after the last row verified), so the same rows in the same order give the same verdict.
 *
 * Without afterHash the stored row_hash of the row at afterSeq is read first (a missing row is an error).
 */
export async function verifySegmentByCopy(
  databaseUrl: string,
  orgId: string,
  opts: Omit<SegmentOptions, 'afterHash'> & { afterHash?: string },
): Promise<ChainVerdict> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // A lost connection also rejects the statement in flight, which is what reports it.
  client.on('error', () => {});
  await client.connect();
  try {
    const afterHash = opts.afterHash ?? (await storedRowHash(client, orgId, opts.afterSeq));
    const verifier = new ByteChainVerifier(opts.afterSeq, afterHash);
    const pageSize = opts.pageSize ?? 2000;
    const before = opts.countBefore ?? 0;
    const onRow = (row: Buffer, fields: RowFields): boolean => {
      if (!verifier.push(row, fields)) return false;
      if (verifier.count % pageSize === 0) opts.onProgress?.({ verified: before + verifier.count, seq: opts.afterSeq + verifier.count });
      return true;
    };
    const org = client.escapeLiteral(orgId);
    const upTo = opts.toSeq === undefined ? '' : ` AND seq <= ${int(opts.toSeq)}`;
    for (;;) {
      // Every row so far verified, so the last one read has seq afterSeq + count.
      const after = opts.afterSeq + verifier.count;
      const limit = pageSize * PAGES_PER_COPY;
      const sql =
        `COPY (SELECT ${BYTE_COLUMNS} FROM events WHERE org_id = ${org} AND seq > ${int(after)}${upTo} ORDER BY seq LIMIT ${int(limit)}) ` +
        'TO STDOUT (FORMAT binary)';
      const read = await copyRows(client, sql, BYTE_COLUMN_COUNT, onRow);
      const verdict = verifier.verdict();
      const segmentDone = opts.toSeq !== undefined && opts.afterSeq + verifier.count >= opts.toSeq;
      if (!verdict.ok || read < limit || segmentDone) return verdict;
    }
  } finally {
    await client.end();
  }
}

async function storedRowHash(client: pg.Client, orgId: string, seq: number): Promise<string> {
  const { rows } = await client.query<{ row_hash: string }>('SELECT row_hash FROM events WHERE org_id = $1 AND seq = $2', [orgId, seq]);
  if (!rows[0]) throw new Error(`seq ${seq}: missing row`);
  return rows[0].row_hash;
}

/** A seq spliced into the COPY statement (COPY takes no parameters). */
function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`seq ${n} is not an integer`);
  return String(n);
}
