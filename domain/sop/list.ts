import { badRequest } from '../../protocol/errors.js';
import { sop as c } from '../../protocol/methods/sop.js';
import { defineSearch } from '../../db/search.js';
import { handler } from '../core/handler.js';
import { SOP_COLUMNS, toSop, type SopRow } from './model.js';

/** SOPs' words (migration 061): the title above purpose and trigger above the steps; typos and prefixes on the title. */
export const sopSearch = defineSearch({
  table: 'sops',
  id: 'sop_id',
  weights: { A: ['title'], B: ['purpose', 'trigger'], C: ['steps_text'] },
  fuzzy: ['title'],
  filters: { status: 'status' },
});

export const list = handler(c.list, async (ctx, p) => {
  const statuses = p.status ? [p.status] : ['draft', 'active'];
  if (p.q) {
    // Its own short transaction: the search's settings are transaction-local (db/search.ts).
    const page = await ctx.deps.db.tx((q) =>
      sopSearch.search(q, {
        org: ctx.orgId,
        q: p.q!,
        limit: Math.min(p.limit, 100),
        cursor: p.cursor,
        filters: { status: statuses },
        where: p.method ? (param) => `sops.methods @> ARRAY[${param(p.method)}::text]` : undefined,
      }),
    );
    const rows = await ctx.q.query<SopRow>(`SELECT ${SOP_COLUMNS} FROM sops WHERE org_id = $1 AND sop_id = ANY($2::text[])`, [
      ctx.orgId,
      page.items.map((i) => i.id),
    ]);
    const byId = new Map(rows.map((r) => [r.sop_id, r]));
    return { sops: page.items.flatMap((i) => (byId.has(i.id) ? [toSop(byId.get(i.id)!)] : [])), nextCursor: page.nextCursor };
  }
  const after = p.cursor === undefined ? null : Buffer.from(p.cursor, 'base64url').toString('utf8');
  if (after !== null && !/^[a-z0-9-]{1,60}$/.test(after)) throw badRequest('cursor', 'not a cursor this list returned');
  const params: unknown[] = [ctx.orgId, statuses];
  const where = [`org_id = $1`, `status = ANY($2::text[])`];
  if (p.method) where.push(`methods @> ARRAY[$${params.push(p.method)}::text]`);
  if (after !== null) where.push(`slug > $${params.push(after)}`);
  const rows = await ctx.q.query<SopRow>(`SELECT ${SOP_COLUMNS} FROM sops WHERE ${where.join(' AND ')} ORDER BY slug LIMIT ${p.limit + 1}`, params);
  const page = rows.slice(0, p.limit);
  return {
    sops: page.map(toSop),
    nextCursor: rows.length > p.limit ? Buffer.from(page[page.length - 1].slug).toString('base64url') : null,
  };
});
