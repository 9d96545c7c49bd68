import { RecordChain } from '../../ledger/record-chain.js';
import type { Queryable } from '../../db/types.js';
import type { WriteRecord } from '../core/write-log.js';
import type { OpsSource } from '../ai-reads.js';

/*
 * The design log: branding's R methods that write (the library: templates, images, undo and redo) append one record
 * each here instead of a ledger event (the registry keeps them R). A per-org SHA-256 chain (ledger/record-chain.ts),
 * served at GET /ops?source=design and checked by `npm run cli -- verify`; branding's M events carry its head
 * (designHead), anchoring it in the ledger.
 */
export const designLog = new RecordChain<WriteRecord>(
  {
    table: 'design_log',
    heads: 'design_log_heads',
    idPrefix: 'dsg',
    label: 'design log',
    columns: (r) => ({ method: r.method, kind: r.kind, entity_id: r.entityId }),
  },
  ['method', 'kind', 'entity_id'],
);

/** What branding's M events carry: the design log's head as the call saw it. */
export async function designHead(q: Queryable, orgId: string): Promise<{ seq: number; hash: string }> {
  const head = await designLog.head(q, orgId);
  return { seq: head.seq, hash: head.rowHash };
}

export const designOps: OpsSource = {
  source: 'design',
  label: 'design log',
  chain: designLog,
  verify: (q, orgId) => designLog.verify(q, orgId),
};
