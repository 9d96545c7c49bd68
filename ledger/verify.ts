import { ChainVerifier, type ChainBreak, type ChainVerdict } from '../protocol/hashing.js';
import type { Queryable } from '../db/types.js';
import { readEvents } from './read.js';

export interface VerifyProgress {
  verified: number;
  seq: number;
}

/**
 * Walk an org's whole chain in seq order, a page at a time (keyset paging, so memory stays flat whatever
 * the chain's length), and stop at the first broken link, broken row or missing seq. The head row must
 * agree with the last event too: a truncated tail is a break.
 */
export async function verifyOrgChain(
  q: Queryable,
  orgId: string,
  opts: { pageSize?: number; onProgress?: (p: VerifyProgress) => void } = {},
): Promise<ChainVerdict> {
  const pageSize = opts.pageSize ?? 5000;
  const verifier = new ChainVerifier();
  let after = 0;
  for (;;) {
    const rows = await readEvents(q, orgId, after, pageSize);
    for (const row of rows) {
      if (!verifier.push({ ...row, payload: undefined }, row.payload)) return verifier.verdict();
    }
    if (rows.length < pageSize) break;
    after = rows[rows.length - 1].seq;
    opts.onProgress?.({ verified: verifier.count, seq: after });
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
