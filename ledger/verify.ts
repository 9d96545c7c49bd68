import { ChainVerifier, type ChainBreak, type ChainVerdict } from '../protocol/hashing.js';
import type { Queryable } from '../db/types.js';
import { readEvents, type StoredEventRow } from './read.js';

export interface VerifyProgress {
  verified: number;
  seq: number;
}

/**
 * Walk an org's whole chain in seq order, a page at a time (keyset paging, so memory stays flat whatever
 * the chain's length: at most the page being hashed and the next one), and stop at the first broken link,
 * broken row or missing seq. The head row must agree with the last event too: a truncated tail is a break.
 */
export async function verifyOrgChain(
  q: Queryable,
  orgId: string,
  opts: { pageSize?: number; onProgress?: (p: VerifyProgress) => void } = {},
): Promise<ChainVerdict> {
  // Pages of 2000 rows: small enough that few rows outlive a young-generation collection, large enough
  // that the per-query cost vanishes.
  const pageSize = opts.pageSize ?? 2000;
  const verifier = new ChainVerifier();
  const pageAfter = (seq: number) => readEvents(q, orgId, seq, pageSize);
  let next: Promise<StoredEventRow[]> | undefined = pageAfter(0);
  while (next) {
    const rows: StoredEventRow[] = await next;
    const last = rows.length ? rows[rows.length - 1].seq : 0;
    // Keyset paging needs only this page's last seq: the database reads the next page while this one is hashed.
    next = rows.length < pageSize ? undefined : pageAfter(last);
    for (const row of rows) {
      // The stored payload is the canonical text that was hashed: pushed as is, never re-serialised.
      if (!verifier.push(row, row.payload)) {
        next?.catch(() => {});
        return verifier.verdict();
      }
    }
    if (next) opts.onProgress?.({ verified: verifier.count, seq: last });
  }
  const verdict = verifier.verdict();
  if (!verdict.ok) return verdict;
  const [head] = await q.query<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM ledger_heads WHERE org_id = $1', [orgId]);
  if (head && (head.seq !== verdict.head.seq || head.row_hash !== verdict.head.rowHash)) {
    return { ok: false, count: verdict.count, break: headBreak(head, verdict.head) };
  }
  return verdict;
}

/** The chain verified on its own but disagrees with the org's head row: say where. */
function headBreak(head: { seq: number; row_hash: string }, end: { seq: number; rowHash: string }): ChainBreak {
  if (head.seq > end.seq) {
    const seq = end.seq + 1;
    return { seq, kind: 'gap', message: `seq ${seq}: missing row (head says seq ${head.seq}, chain ends at ${end.seq})` };
  }
  if (head.seq < end.seq) {
    const seq = head.seq + 1;
    return { seq, kind: 'gap', message: `seq ${seq}: row beyond the ledger head (head says seq ${head.seq}, chain ends at ${end.seq})` };
  }
  return {
    seq: end.seq,
    kind: 'row_hash',
    message: `seq ${end.seq}: row_hash ${end.rowHash} disagrees with the ledger head ${head.row_hash}`,
  };
}
