import { randomBytes } from 'node:crypto';
import { one, type Db, type Queryable } from '../db/types.js';
import { canonicalJson, sha256Hex, type ChainBreak, type ChainVerdict } from '../protocol/hashing.js';
import { chainHashInput } from '../ledger/record-chain.js';

/*
 * The AI audit: one record per ask (of any registered answerer), in a per-org hash chain of its own (table ai_audit, head ai_audit_heads).
 *
 *   row_hash = lowercase hex SHA-256 of the UTF-8 bytes of canonical_json({at, id, prev, record, seq})
 *
 * `prev` is the previous record's row_hash ('' for seq 1), `id` the aud_… id, `at` the ISO 8601 UTC string
 * with milliseconds, `record` the AuditRecord below (strings, integers, booleans, null, arrays, objects: no
 * floats). Canonical JSON is the ledger's (RFC 8785): GET /ops serves records verbatim, so any client can
 * recompute the chain as it can the ledger's.
 */

/** embedded: an embedding request (hybrid knowledge search) that returned its vectors. */
/** generated: an image generation that returned an image. */
export type AuditVerdict = 'grounded' | 'ungrounded' | 'cannot_answer' | 'provider_error' | 'timeout' | 'embedded' | 'generated';

export interface AuditRecord {
  /** The registry method answered (`books.ask`, `email.summarise`); absent from records written before migration 021 (books.ask). */
  method?: string;
  requestId: string;
  /** The principal who asked (usr_…/agt_…), and the key used. */
  actor: string;
  keyId: string;
  provider: string;
  modelRequested: string;
  modelAnswered: string;
  promptTokens: number;
  completionTokens: number;
  /** true when the endpoint reported no usage and the tokens are estimated (characters / 4). */
  tokensEstimated: boolean;
  costMicroUsd: number;
  priceSource: string;
  latencyMs: number;
  retries: { reason: string }[];
  /** The typed reads the provider ran, in order. */
  reads: { name: string; ok: boolean; error: string | null }[];
  verdict: AuditVerdict;
  /** Why the ask was refused (null when answered). */
  reason: string | null;
  /** SHA-256 hex of canonical_json({question, today}). */
  promptHash: string;
  /** SHA-256 hex of canonical_json(the provider's draft), null when there was none. */
  answerHash: string | null;
  /** Only when the org keeps bodies (ai_settings.store_bodies), redacted (redact.ts). */
  bodies: { question: string; answer: string | null } | null;
}

export interface AppendedAudit {
  id: string;
  seq: number;
  at: string;
  rowHash: string;
}

/** The exact string hashed for an audit row: every side chain's (ledger/record-chain.ts). */
export const auditHashInput = chainHashInput;

/**
 * Append one record to the org's audit chain, in its own transaction: the head row (created with the first
 * record) is locked FOR UPDATE, so concurrent asks of one org chain one after the other.
 */
export async function appendAudit(db: Db, orgId: string, record: AuditRecord): Promise<AppendedAudit> {
  const recordText = canonicalJson(record);
  return db.tx(async (q) => {
    await q.query('INSERT INTO ai_audit_heads (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING', [orgId]);
    const head = one(await q.query<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM ai_audit_heads WHERE org_id = $1 FOR UPDATE', [orgId]));
    const seq = Number(head.seq) + 1;
    const at = new Date().toISOString();
    const id = `aud_${randomBytes(10).toString('hex')}`;
    const rowHash = sha256Hex(auditHashInput(head.row_hash, seq, at, id, recordText));
    await q.query(
      `INSERT INTO ai_audit (org_id, seq, audit_id, at, request_id, actor, provider, model, verdict, cost_micro_usd,
                             prompt_tokens, completion_tokens, record, prev_hash, row_hash, method)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        orgId,
        seq,
        id,
        at,
        record.requestId,
        record.actor,
        record.provider,
        record.modelAnswered || record.modelRequested,
        record.verdict,
        record.costMicroUsd,
        record.promptTokens,
        record.completionTokens,
        recordText,
        head.row_hash,
        rowHash,
        methodOf(record),
      ],
    );
    await q.query('UPDATE ai_audit_heads SET seq = $2, row_hash = $3 WHERE org_id = $1', [orgId, seq, rowHash]);
    return { id, seq, at, rowHash };
  });
}

/** The method of a record: books.ask for those written before records named it. */
export const methodOf = (record: AuditRecord): string => record.method ?? 'books.ask';

export interface StoredAuditRow {
  seq: number;
  method: string;
  audit_id: string;
  at: string;
  request_id: string;
  actor: string;
  provider: string;
  model: string;
  verdict: string;
  cost_micro_usd: number;
  prompt_tokens: number;
  completion_tokens: number;
  record: string;
  prev_hash: string;
  row_hash: string;
}

const COLUMNS =
  'seq, method, audit_id, at, request_id, actor, provider, model, verdict, cost_micro_usd, prompt_tokens, completion_tokens, record, prev_hash, row_hash';

/** A page of the org's audit chain: after `cursor` in seq order (asc), or before it, newest first (desc; 0 = from the head). */
export async function readAudit(q: Queryable, orgId: string, p: { cursor: number; limit: number; order: 'asc' | 'desc' }): Promise<StoredAuditRow[]> {
  const rows =
    p.order === 'asc'
      ? await q.query<StoredAuditRow>(`SELECT ${COLUMNS} FROM ai_audit WHERE org_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [orgId, p.cursor, p.limit])
      : await q.query<StoredAuditRow>(`SELECT ${COLUMNS} FROM ai_audit WHERE org_id = $1 AND ($2::bigint = 0 OR seq < $2::bigint) ORDER BY seq DESC LIMIT $3`, [
          orgId,
          p.cursor,
          p.limit,
        ]);
  return rows.map((r) => ({
    ...r,
    seq: Number(r.seq),
    cost_micro_usd: Number(r.cost_micro_usd),
    prompt_tokens: Number(r.prompt_tokens),
    completion_tokens: Number(r.completion_tokens),
  }));
}

export async function auditHead(q: Queryable, orgId: string): Promise<{ seq: number; rowHash: string }> {
  const [row] = await q.query<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM ai_audit_heads WHERE org_id = $1', [orgId]);
  return { seq: Number(row?.seq ?? 0), rowHash: row?.row_hash ?? '' };
}

/** The columns that repeat record fields must say what the record says: a row edited there is broken too. */
function columnsDisagree(row: StoredAuditRow, record: AuditRecord): string | undefined {
  const expected: [string, unknown, unknown][] = [
    ['method', row.method, methodOf(record)],
    ['request_id', row.request_id, record.requestId],
    ['actor', row.actor, record.actor],
    ['provider', row.provider, record.provider],
    ['model', row.model, record.modelAnswered || record.modelRequested],
    ['verdict', row.verdict, record.verdict],
    ['cost_micro_usd', Number(row.cost_micro_usd), record.costMicroUsd],
    ['prompt_tokens', Number(row.prompt_tokens), record.promptTokens],
    ['completion_tokens', Number(row.completion_tokens), record.completionTokens],
  ];
  const bad = expected.find(([, a, b]) => a !== b);
  return bad ? `column ${bad[0]} (${String(bad[1])}) disagrees with the hashed record (${String(bad[2])})` : undefined;
}

/**
 * Walk an org's audit chain in seq order a page at a time, stopping at the first gap, broken link, broken
 * row (hash, non-canonical record, or a column that disagrees with it), and check the head row agrees.
 */
export async function verifyAuditChain(q: Queryable, orgId: string, opts: { pageSize?: number } = {}): Promise<ChainVerdict> {
  const pageSize = opts.pageSize ?? 2000;
  let prev = '';
  let expectedSeq = 1;
  let count = 0;
  const broken = (b: ChainBreak): ChainVerdict => ({ ok: false, count, break: b });
  for (;;) {
    const rows = await readAudit(q, orgId, { cursor: expectedSeq - 1, limit: pageSize, order: 'asc' });
    for (const row of rows) {
      if (row.seq !== expectedSeq)
        return broken({ seq: expectedSeq, kind: 'gap', message: `audit seq ${expectedSeq}: missing record (next found has seq ${row.seq})` });
      if (row.prev_hash !== prev) {
        return broken({
          seq: row.seq,
          kind: 'prev_hash',
          message: `audit seq ${row.seq}: broken link, prev_hash ${row.prev_hash || '(empty)'} != previous row_hash ${prev || '(empty)'}`,
        });
      }
      const recomputed = sha256Hex(auditHashInput(prev, row.seq, row.at, row.audit_id, row.record));
      if (recomputed !== row.row_hash) {
        return broken({
          seq: row.seq,
          kind: 'row_hash',
          message: `audit seq ${row.seq}: broken row, stored row_hash ${row.row_hash} != recomputed ${recomputed}`,
        });
      }
      let record: AuditRecord;
      try {
        record = JSON.parse(row.record) as AuditRecord;
      } catch {
        return broken({ seq: row.seq, kind: 'row_hash', message: `audit seq ${row.seq}: record is not JSON` });
      }
      const disagreement = canonicalJson(record) !== row.record ? 'record is not canonical JSON' : columnsDisagree(row, record);
      if (disagreement) return broken({ seq: row.seq, kind: 'row_hash', message: `audit seq ${row.seq}: ${disagreement}` });
      prev = row.row_hash;
      expectedSeq += 1;
      count += 1;
    }
    if (rows.length < pageSize) break;
  }
  const head = await auditHead(q, orgId);
  const end = expectedSeq - 1;
  if (head.seq !== end) {
    return broken({
      seq: Math.min(head.seq, end) + 1,
      kind: 'gap',
      message: `audit seq ${Math.min(head.seq, end) + 1}: the head says seq ${head.seq}, the chain ends at ${end}`,
    });
  }
  if (head.rowHash !== prev)
    return broken({ seq: end, kind: 'row_hash', message: `audit seq ${end}: row_hash ${prev} disagrees with the audit head ${head.rowHash}` });
  return { ok: true, count, head: { seq: end, rowHash: prev } };
}

export interface OrgAiSettings {
  monthlyBudgetMicroUsd: number;
  /** true when the org set its own budget (else the server default). */
  budgetIsOrgs: boolean;
  storeBodies: boolean;
}

export async function orgAiSettings(q: Queryable, orgId: string, defaultBudgetMicroUsd: number): Promise<OrgAiSettings> {
  const [row] = await q.query<{ monthly_budget_micro_usd: number | null; store_bodies: boolean }>(
    'SELECT monthly_budget_micro_usd, store_bodies FROM ai_settings WHERE org_id = $1',
    [orgId],
  );
  const own = row?.monthly_budget_micro_usd;
  return {
    monthlyBudgetMicroUsd: own === null || own === undefined ? defaultBudgetMicroUsd : Number(own),
    budgetIsOrgs: own !== null && own !== undefined,
    storeBodies: row?.store_bodies ?? false,
  };
}

/** Micro-dollars the org's asks (every method's) cost from `since` (an ISO string) on. */
export async function spentSince(q: Queryable, orgId: string, since: string): Promise<number> {
  const [row] = await q.query<{ spent: number }>('SELECT coalesce(sum(cost_micro_usd), 0)::bigint AS spent FROM ai_audit WHERE org_id = $1 AND at >= $2', [
    orgId,
    since,
  ]);
  return Number(row?.spent ?? 0);
}
