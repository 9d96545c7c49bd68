import type { z } from 'zod';
import { decisionReadContracts, type DecisionSummary } from '../../../protocol/reads/decision.js';
import type { Queryable } from '../../../db/types.js';
import { reads } from '../../core/family.js';
import { readHandler, type ReadCtx } from '../../core/handler.js';
import { readRights } from '../rights.js';
import { awaitingIds } from './awaiting.js';
import { decodeCursor, encodeCursor, fitsInt32 } from '../../core/cursor.js';
import { getDecision, SIGNATURE_COLUMNS, toDecision, toSignature, type DecisionRow, type SignatureRow } from './model.js';
import { requirementsOf, rightOf } from './requirements.js';
import { decisionSearch } from './search.js';

/*
 * GET /decision.list: the log newest first by number (index (org_id, number)), filtered by status or area through
 * their (org_id, …, number DESC) indexes; q ranks by full text (db/search.ts); awaiting=me narrows to awaiting.ts's
 * ids. With id: the full record with its signatures, versions and requirements.
 */

type Query = z.output<(typeof decisionReadContracts)['decision.list']['query']>;
type Summary = z.output<typeof DecisionSummary>;

const SUMMARY_COLUMNS = 'decision_id, number, title, area, status, version, content_hash, driver, review_on, supersedes, superseded_by, created_at, updated_at';

const toSummary = (r: DecisionRow): Summary => ({
  id: r.decision_id,
  number: Number(r.number),
  title: r.title,
  area: r.area,
  status: r.status,
  version: Number(r.version),
  contentHash: r.content_hash,
  driver: r.driver,
  reviewOn: r.review_on,
  supersedes: r.supersedes ?? [],
  supersededBy: r.superseded_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

async function fullRecord(q: Queryable, orgId: string, id: string) {
  const row = await getDecision(q, orgId, id);
  const resolved = rightOf((await readRights(q, orgId, 'none')).rights, row);
  const signatures = await q.query<SignatureRow>(
    `SELECT ${SIGNATURE_COLUMNS} FROM decision_signatures WHERE org_id = $1 AND decision_id = $2 ORDER BY version DESC, signed_at, signature_id`,
    [orgId, id],
  );
  const versions = await q.query<{ version: number; content_hash: string; proposed_by: string; proposed_at: string }>(
    'SELECT version, content_hash, proposed_by, proposed_at FROM decision_versions WHERE org_id = $1 AND decision_id = $2 ORDER BY version',
    [orgId, id],
  );
  return {
    decision: toDecision(row),
    signatures: signatures.map((s) => toSignature(s, Number(row.version))),
    versions: versions.map((v) => ({ version: Number(v.version), contentHash: v.content_hash, proposedBy: v.proposed_by, proposedAt: v.proposed_at })),
    requirements: await requirementsOf(q, orgId, row, resolved),
  };
}

const statusesOf = (status: Query['status']): string[] | undefined =>
  status === undefined ? undefined : status === 'open' ? ['proposed', 'adjustment_requested'] : [status];

/** The number a page by number starts below (its cursor). */
const afterOf = (query: Query): number | undefined =>
  query.cursor === undefined ? undefined : decodeCursor<[number]>(query.cursor, 'cursor', (v) => v.length === 1 && fitsInt32(v[0]))[0];

async function page(q: Queryable, orgId: string, query: Query, only: string[] | undefined) {
  const statuses = statusesOf(query.status);
  const after = afterOf(query);
  // Only the conditions asked for, so each query has the plain shape its index serves.
  const params: unknown[] = [orgId];
  const where = ['org_id = $1'];
  if (statuses) where.push(`status = ANY($${params.push(statuses)}::text[])`);
  if (query.area !== undefined) where.push(`area = $${params.push(query.area)}`);
  if (only) where.push(`decision_id = ANY($${params.push(only)}::text[])`);
  if (after !== undefined) where.push(`number < $${params.push(after)}`);
  const rows = await q.query<DecisionRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM decisions WHERE ${where.join(' AND ')} ORDER BY number DESC LIMIT $${params.push(query.limit + 1)}`,
    params,
  );
  const shown = rows.slice(0, query.limit);
  const last = shown[shown.length - 1];
  return { decisions: shown.map(toSummary), nextCursor: rows.length > query.limit && last ? encodeCursor([Number(last.number)]) : null };
}

/** Ranked by db/search.ts (its own cursor); at most 100 a page. Search settings are transaction-local: its own short transaction. */
async function searchPage(ctx: ReadCtx, query: Query, only: string[] | undefined) {
  return ctx.deps.db.tx(async (q) => {
    const hits = await decisionSearch.search(q, {
      org: ctx.orgId,
      q: query.q!,
      limit: Math.min(query.limit, 100),
      cursor: query.cursor,
      filters: { status: statusesOf(query.status), area: query.area, id: only },
      fields: { q: 'q', cursor: 'cursor' },
    });
    const ids = hits.items.map((h) => h.id);
    const rows = ids.length
      ? await q.query<DecisionRow>(`SELECT ${SUMMARY_COLUMNS} FROM decisions WHERE org_id = $1 AND decision_id = ANY($2::text[])`, [ctx.orgId, ids])
      : [];
    const byId = new Map(rows.map((r) => [r.decision_id, r]));
    return { decisions: ids.flatMap((id) => (byId.has(id) ? [toSummary(byId.get(id)!)] : [])), nextCursor: hits.nextCursor };
  });
}

export const list = readHandler(decisionReadContracts['decision.list'], async (ctx, query) => {
  if (query.id !== undefined) return fullRecord(ctx.q, ctx.orgId, query.id);
  const searching = query.q !== undefined && query.q.trim() !== '';
  // A page by number and nothing else needs only its own awaiting decisions: awaiting.ts stops once it has them.
  const bounded = !searching && query.status === undefined && query.area === undefined;
  const only =
    query.awaiting === 'me'
      ? await awaitingIds(ctx.q, ctx.orgId, ctx.principal, bounded ? { before: afterOf(query), limit: query.limit + 1 } : undefined)
      : undefined;
  if (only && only.length === 0) return { decisions: [], nextCursor: null };
  return searching ? searchPage(ctx, query, only) : page(ctx.q, ctx.orgId, query, only);
});

export const decisionReads = reads({ 'decision.list': list });
