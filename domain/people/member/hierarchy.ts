import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { MAX_TREE_NODES, peopleReadContracts } from '../../../protocol/reads/people.js';
import { readHandler } from '../../core/handler.js';
import { SIBLING_ORDER } from './chart.js';

/*
 * GET /hierarchy: the chart from one statement (every member in the chart with the revision beside it, in sibling
 * order), assembled in memory. 10,000 members are a few hundred kilobytes; a recursive query per level would
 * cost a round trip per level and still have to sort siblings.
 */

interface ChartRow {
  principal_id: string;
  kind: 'human' | 'agent';
  name: string;
  handle: string | null;
  title: string | null;
  status: 'invited' | 'active' | 'suspended' | 'deactivated';
  manager_id: string | null;
  position: number | null;
  dotted_line_ids: string[];
  revision: string | number;
}

type Card = ReturnType<typeof card>;
type TreeNode = Card & { reports: TreeNode[] };

const card = (r: ChartRow, reportCount: number) => ({
  id: r.principal_id,
  kind: r.kind,
  name: r.name,
  handle: r.handle,
  title: r.title,
  status: r.status,
  managerId: r.manager_id,
  position: r.position === null ? null : Number(r.position),
  dottedTo: r.dotted_line_ids ?? [],
  reportCount,
});

export const hierarchy = readHandler(peopleReadContracts.hierarchy, async (ctx, query) => {
  const rows = await ctx.q.query<ChartRow>(
    `SELECT principal_id, kind, name, handle, title, status, manager_id, position, dotted_line_ids,
            coalesce((SELECT revision FROM org_charts WHERE org_id = $1), 0) AS revision
       FROM principals WHERE org_id = $1 AND status <> 'archived' ORDER BY ${SIBLING_ORDER}`,
    [ctx.orgId],
  );
  const revision = Number(rows[0]?.revision ?? 0);
  const byId = new Map(rows.map((r) => [r.principal_id, r]));
  const children = new Map<string, ChartRow[]>();
  const tops: ChartRow[] = [];
  for (const r of rows) {
    if (r.manager_id === null || !byId.has(r.manager_id)) tops.push(r);
    else (children.get(r.manager_id) ?? children.set(r.manager_id, []).get(r.manager_id)!).push(r);
  }
  let roots = tops;
  if (query.rootId !== undefined) {
    const root = byId.get(query.rootId);
    if (!root) throw notFound(`member ${query.rootId} in the chart`);
    roots = [root];
  }
  const maxDepth = query.depth ?? Infinity;
  const reportsOf = (r: ChartRow) => children.get(r.principal_id) ?? [];

  // Depth-first in chart order: the flat answer, and the node count a tree answer is bounded by.
  const order: { row: ChartRow; depth: number }[] = [];
  const stack = [...roots].reverse().map((row) => ({ row, depth: 0 }));
  while (stack.length > 0) {
    const next = stack.pop()!;
    order.push(next);
    if (next.depth < maxDepth) for (const c of [...reportsOf(next.row)].reverse()) stack.push({ row: c, depth: next.depth + 1 });
  }

  if (query.format === 'flat') {
    let offset = 0;
    if (query.cursor !== undefined) {
      const [at, off] = decodeCursor<[number, number]>(
        query.cursor,
        'query.cursor',
        (v) => v.length === 2 && v.every((n) => Number.isSafeInteger(n) && (n as number) >= 0),
        'read returned',
      );
      if (at !== revision) throw conflict(`cursor: the chart changed (revision ${revision}, the cursor was read at ${at}); start again without cursor`);
      offset = off;
    }
    const page = order.slice(offset, offset + query.limit);
    return {
      revision,
      format: 'flat' as const,
      nodes: page.map(({ row, depth }) => ({ ...card(row, reportsOf(row).length), depth })),
      nextCursor: offset + query.limit < order.length ? encodeCursor([revision, offset + query.limit]) : null,
    };
  }

  if (order.length > MAX_TREE_NODES) {
    throw badRequest(
      'query.format',
      `the tree would hold ${order.length} members, over ${MAX_TREE_NODES}: read it with format=flat, or from a rootId, or with a smaller depth`,
    );
  }
  const build = (row: ChartRow, depth: number): TreeNode => {
    const reports = reportsOf(row);
    return { ...card(row, reports.length), reports: depth < maxDepth ? reports.map((r) => build(r, depth + 1)) : [] };
  };
  return { revision, format: 'tree' as const, roots: roots.map((r) => build(r, 0)) };
});
