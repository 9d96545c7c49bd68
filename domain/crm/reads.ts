import { badRequest } from '../../protocol/errors.js';
import { crm as c } from '../../protocol/methods/crm/index.js';
import type { Queryable } from '../../db/types.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { searchPartiesByKind } from '../directory/index.js';
import { ACCOUNT_COLUMNS, CONTACT_COLUMNS, loadAccount, loadDeal, toAccounts, toContacts, type AccountRow, type ContactRow } from './model.js';

/*
 * listAccounts and listContacts. Names and emails are the directory's, so q searches the directory's parties (its
 * full text, stems and trigrams) limited to those holding the role here; without q, newest first by a keyset
 * cursor. Reads run on the pool; a search runs in a short transaction of its own (its settings are local to it).
 */

/** A keyset cursor over (created_at DESC, id DESC). */
const encode = (at: string | Date, id: string) => Buffer.from(JSON.stringify([new Date(at).toISOString(), id])).toString('base64url');
function decode(cursor: string): [string, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && !Number.isNaN(Date.parse(at)) && typeof id === 'string' && id.length <= 64) return [at, id];
  } catch {
    // refused below
  }
  throw badRequest('cursor', 'not a cursor this list returned');
}

const statuses = (s: 'active' | 'archived' | 'deleted' | 'all', all: readonly string[]) => (s === 'all' ? all : [s]);

/** One page of a role table's rows, newest first (no q). */
async function newest<R extends { created_at: string | Date }>(
  q: Queryable,
  sql: { table: string; columns: string; id: string; where: string[]; params: unknown[] },
  cursor: string | undefined,
  limit: number,
): Promise<{ rows: R[]; nextCursor: string | null }> {
  const where = [...sql.where];
  const params = [...sql.params];
  if (cursor) {
    const [at, id] = decode(cursor);
    where.push(`(created_at, ${sql.id}) < ($${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await q.query<R>(
    `SELECT ${sql.columns} FROM ${sql.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, ${sql.id} DESC LIMIT $${params.push(limit + 1)}`,
    params,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1] as (R & Record<string, string>) | undefined;
  return { rows: page, nextCursor: more && last ? encode(last.created_at, last[sql.id]) : null };
}

/**
 * q over the directory's parties of one kind that hold a role here (`where`: the role table's check, on
 * directory_parties' row), ranked by the directory; its own short transaction (the search's settings are local).
 */
function searchParties(
  ctx: HandlerCtx,
  p: { q: string; limit: number; cursor?: string },
  kind: 'org' | 'person',
  where: (param: (value: unknown) => string) => string,
) {
  return ctx.deps.db.tx((q) =>
    searchPartiesByKind(q, kind, {
      org: ctx.orgId,
      q: p.q,
      limit: p.limit,
      ...(p.cursor !== undefined ? { cursor: p.cursor } : {}),
      fields: { q: 'q', cursor: 'cursor' },
      where,
    }),
  );
}

export const listAccounts = handler(c.listAccounts, async (ctx, p) => {
  const wanted = statuses(p.status, ['active', 'archived', 'merged']);
  if (p.q === undefined) {
    const where = ['org_id = $1', 'status = ANY($2::text[])'];
    const params: unknown[] = [ctx.orgId, wanted];
    if (p.ownerId) where.push(`owner_id = $${params.push(p.ownerId)}`);
    const page = await newest<AccountRow>(ctx.q, { table: 'crm_accounts', columns: ACCOUNT_COLUMNS, id: 'account_id', where, params }, p.cursor, p.limit);
    return { accounts: await toAccounts(ctx.q, ctx.orgId, page.rows), nextCursor: page.nextCursor };
  }
  // Only organisations holding an account of these statuses (and this owner's).
  const hits = await searchParties(
    ctx,
    { ...p, q: p.q },
    'org',
    (param) =>
      `EXISTS (SELECT 1 FROM crm_accounts a WHERE a.org_id = directory_parties.org_id AND a.party_id = directory_parties.party_id
         AND a.status = ANY(${param(wanted)}::text[])${p.ownerId ? ` AND a.owner_id = ${param(p.ownerId)}` : ''})`,
  );
  const ids = hits.items.map((h) => h.id);
  const rows = await ctx.q.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE org_id = $1 AND party_id = ANY($2::text[]) AND status = ANY($3::text[])`,
    [ctx.orgId, ids, wanted],
  );
  rows.sort((a, b) => ids.indexOf(a.party_id) - ids.indexOf(b.party_id));
  return { accounts: await toAccounts(ctx.q, ctx.orgId, rows), nextCursor: hits.nextCursor };
});

export const listContacts = handler(c.listContacts, async (ctx, p) => {
  const wanted = statuses(p.status, ['active', 'deleted', 'merged']);
  // Another org's or an unknown account or deal: NOT_FOUND, as every crm id.
  if (p.accountId) await loadAccount(ctx.q, ctx.orgId, p.accountId);
  if (p.dealId) await loadDeal(ctx.q, ctx.orgId, p.dealId);
  const where = ['org_id = $1', 'status = ANY($2::text[])'];
  const params: unknown[] = [ctx.orgId, wanted];
  if (p.accountId) where.push(`account_id = $${params.push(p.accountId)}`);
  if (p.dealId) {
    where.push(`contact_id IN (SELECT r.contact_id FROM crm_deal_contacts r WHERE r.org_id = crm_contacts.org_id AND r.deal_id = $${params.push(p.dealId)})`);
  }
  if (p.q === undefined) {
    const page = await newest<ContactRow>(ctx.q, { table: 'crm_contacts', columns: CONTACT_COLUMNS, id: 'contact_id', where, params }, p.cursor, p.limit);
    return { contacts: await toContacts(ctx.q, ctx.orgId, page.rows, p.dealId), nextCursor: page.nextCursor };
  }
  const hits = await searchParties(ctx, { ...p, q: p.q }, 'person', (param) => {
    const cond = [`c.status = ANY(${param(wanted)}::text[])`];
    if (p.accountId) cond.push(`c.account_id = ${param(p.accountId)}`);
    if (p.dealId)
      cond.push(`EXISTS (SELECT 1 FROM crm_deal_contacts r WHERE r.org_id = c.org_id AND r.contact_id = c.contact_id AND r.deal_id = ${param(p.dealId)})`);
    return `EXISTS (SELECT 1 FROM crm_contacts c WHERE c.org_id = directory_parties.org_id AND c.person_id = directory_parties.party_id AND ${cond.join(' AND ')})`;
  });
  const ids = hits.items.map((h) => h.id);
  const rows = await ctx.q.query<ContactRow>(
    `SELECT ${CONTACT_COLUMNS} FROM crm_contacts WHERE ${where.join(' AND ')} AND person_id = ANY($${params.length + 1}::text[])`,
    [...params, ids],
  );
  rows.sort((a, b) => ids.indexOf(a.person_id) - ids.indexOf(b.person_id) || b.contact_id.localeCompare(a.contact_id));
  return { contacts: await toContacts(ctx.q, ctx.orgId, rows, p.dealId), nextCursor: hits.nextCursor };
});
