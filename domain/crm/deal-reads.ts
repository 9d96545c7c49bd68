import { badRequest } from '../../protocol/errors.js';
import { crm as c, RISK_FLAGS, type RiskFlag, type Role } from '../../protocol/methods/crm/index.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { partyCards } from '../directory/index.js';
import { DEAL_COLUMNS, loadAccount, loadDeal, toAccounts, toDeal, type DealRow } from './model.js';
import { PROBABILITY_SQL, riskSql } from './pipeline.js';
import { toTerms, type TermsRow } from './desk/model.js';

/*
 * getDeal and listDeals. Risk flags and rot are computed here at the server's clock (pipeline.ts riskSql: the one
 * definition); listDeals pages by (close date, id) and totals every matching deal per currency, never converted.
 */

const iso = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

/** The risk flags of these deals now, by deal id (one query). */
export async function risksOf(q: Queryable, orgId: string, dealIds: readonly string[], now: Date): Promise<Map<string, RiskFlag[]>> {
  const sql = riskSql('$3');
  const rows = await q.query<Record<string, unknown> & { deal_id: string }>(
    `SELECT d.deal_id, ${RISK_FLAGS.map((f) => `coalesce((${sql[f]}), false) AS "${f}"`).join(', ')}
       FROM crm_deals d WHERE d.org_id = $1 AND d.deal_id = ANY($2::text[])`,
    [orgId, dealIds, now.toISOString()],
  );
  return new Map(rows.map((r) => [r.deal_id, RISK_FLAGS.filter((f) => r[f] === true)]));
}

export const getDeal = handler(c.getDeal, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const row = await loadDeal(ctx.q, ctx.orgId, p.dealId);
  const [account] = await toAccounts(ctx.q, ctx.orgId, [await loadAccount(ctx.q, ctx.orgId, row.account_id)]);
  const roleRows = await ctx.q.query<{ contact_id: string; person_id: string; role: Role }>(
    `SELECT r.contact_id, c.person_id, r.role FROM crm_deal_contacts r JOIN crm_contacts c ON c.org_id = r.org_id AND c.contact_id = r.contact_id
      WHERE r.org_id = $1 AND r.deal_id = $2 ORDER BY r.role, r.contact_id`,
    [ctx.orgId, row.deal_id],
  );
  const cards = await partyCards(
    ctx.q,
    ctx.orgId,
    roleRows.map((r) => r.person_id),
  );
  const [offer] = row.offer_terms_id
    ? await ctx.q.query<TermsRow>(`SELECT * FROM crm_terms WHERE org_id = $1 AND terms_id = $2`, [ctx.orgId, row.offer_terms_id])
    : [];
  const [escalation] = await ctx.q.query<Record<string, any>>(
    `SELECT * FROM crm_escalations WHERE org_id = $1 AND deal_id = $2 AND status = 'open' ORDER BY opened_at, escalation_id LIMIT 1`,
    [ctx.orgId, row.deal_id],
  );
  const history = await ctx.q.query<Record<string, any>>(
    `SELECT history_id, stage, amount_cents, currency, close_date::text AS close_date, changed, push, by_id, at FROM crm_deal_history
      WHERE org_id = $1 AND deal_id = $2 ORDER BY n`,
    [ctx.orgId, row.deal_id],
  );
  const rooms = await ctx.q.query<Record<string, any>>(
    `SELECT m.*, (SELECT count(*) FROM crm_guest_tokens t WHERE t.org_id = m.org_id AND t.room_id = m.room_id AND t.status = 'active' AND t.expires_at > $3)::int AS tokens,
            (SELECT max(v.viewed_at) FROM crm_share_views v WHERE v.org_id = m.org_id AND v.room_id = m.room_id) AS last_viewed_at
       FROM crm_rooms m WHERE m.org_id = $1 AND m.deal_id = $2 ORDER BY m.created_at, m.room_id`,
    [ctx.orgId, row.deal_id, now.toISOString()],
  );
  const tasks = await ctx.q.query<{ task_id: string; recommendation_id: string | null; created_at: string | Date }>(
    `SELECT task_id, recommendation_id, created_at FROM crm_deal_tasks WHERE org_id = $1 AND deal_id = $2 ORDER BY created_at, task_id`,
    [ctx.orgId, row.deal_id],
  );
  return {
    deal: toDeal(row, now),
    account: { id: account.id, name: account.name, partyId: account.partyId },
    roles: roleRows.map((r) => ({ contactId: r.contact_id, personId: r.person_id, name: cards.get(r.person_id)?.name ?? '', role: r.role })),
    offer: offer ? toTerms(offer) : null,
    escalation: escalation
      ? {
          id: escalation.escalation_id,
          dealId: escalation.deal_id,
          kind: escalation.kind,
          termsId: escalation.terms_id,
          version: Number(escalation.version),
          status: escalation.status,
          breaches: escalation.breaches,
          approvalId: escalation.approval_id,
          stepKind: escalation.step_kind,
          openedBy: escalation.opened_by,
          openedAt: iso(escalation.opened_at)!,
          resolvedAt: iso(escalation.resolved_at),
        }
      : null,
    history: history.map((h) => ({
      id: h.history_id,
      stage: h.stage,
      amountCents: Number(h.amount_cents),
      currency: h.currency,
      closeDate: h.close_date,
      changed: h.changed,
      push: h.push,
      by: h.by_id,
      at: iso(h.at)!,
    })),
    rooms: rooms.map((m) => ({
      id: m.room_id,
      dealId: m.deal_id,
      status: m.status === 'active' && new Date(m.expires_at) <= now ? 'expired' : m.status,
      show: { offer: !!m.show.offer, nextSteps: !!m.show.nextSteps, fileIds: m.show.fileIds ?? [], contacts: !!m.show.contacts },
      allowDownload: m.allow_download,
      expiresAt: iso(m.expires_at)!,
      tokens: Number(m.tokens),
      lastViewedAt: iso(m.last_viewed_at),
    })),
    risk: (await risksOf(ctx.q, ctx.orgId, [row.deal_id], now)).get(row.deal_id) ?? [],
    tasks: tasks.map((t) => ({ taskId: t.task_id, recommendationId: t.recommendation_id, createdAt: iso(t.created_at)! })),
  };
});

const encode = (closeDate: string, id: string) => Buffer.from(JSON.stringify([closeDate, id])).toString('base64url');
function decode(cursor: string): [string, string] {
  try {
    const [d, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) && typeof id === 'string' && id.length <= 64) return [d, id];
  } catch {
    // refused below
  }
  throw badRequest('cursor', 'not a cursor this list returned');
}

type TotalRow = { currency: string; count: number; amount: string; weighted: string };

/** Per-currency totals of a set of deals: grouped by (currency, stage) first, so the stage's probability applies once a group. */
const totalsSql = (from: string) =>
  `SELECT currency, sum(n)::int AS count, sum(amount)::text AS amount, round(coalesce(sum(amount * ${PROBABILITY_SQL('stage')}), 0)::numeric / 100)::text AS weighted
     FROM (SELECT d.currency, d.stage, count(*) AS n, sum(d.amount_cents) AS amount FROM ${from} GROUP BY d.currency, d.stage) AS g
    GROUP BY currency ORDER BY currency`;

export const listDeals = handler(c.listDeals, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  if (p.accountId) await loadAccount(ctx.q, ctx.orgId, p.accountId);
  if (p.closeFrom && p.closeTo && p.closeFrom > p.closeTo) throw badRequest('closeTo', `must be on or after closeFrom (${p.closeFrom})`);
  // $2 (now) is only read by the risk filter.
  const params: unknown[] = [ctx.orgId, now.toISOString()];
  const where = ['d.org_id = $1', p.status === 'all' ? `d.status <> 'deleted'` : `d.status = $${params.push(p.status)}`, '$2::text IS NOT NULL'];
  if (p.stage) where.push(`d.stage = $${params.push(p.stage)}`);
  if (p.ownerId) where.push(`d.owner_id = $${params.push(p.ownerId)}`);
  if (p.accountId) where.push(`d.account_id = $${params.push(p.accountId)}`);
  if (p.closeFrom) where.push(`d.close_date >= $${params.push(p.closeFrom)}`);
  if (p.closeTo) where.push(`d.close_date <= $${params.push(p.closeTo)}`);
  if (p.risk) where.push(`(${riskSql('$2')[p.risk]})`);
  const after: string[] = [];
  const pageParams = [...params];
  if (p.cursor) {
    const [d, id] = decode(p.cursor);
    after.push(`(d.close_date, d.deal_id) > ($${pageParams.push(d)}::date, $${pageParams.push(id)})`);
  }
  let totals: TotalRow[];
  let rows: DealRow[];
  if (!p.q) {
    // Totals over every match (not the page): an index-only scan of crm_deals_totals (068) for a status.
    totals = await ctx.q.query<TotalRow>(totalsSql(`crm_deals d WHERE ${where.join(' AND ')}`), params);
    rows = await ctx.q.query<DealRow>(
      `SELECT ${DEAL_COLUMNS_D} FROM crm_deals d WHERE ${[...where, ...after].join(' AND ')} ORDER BY d.close_date, d.deal_id LIMIT $${pageParams.push(p.limit + 1)}`,
      pageParams,
    );
  } else {
    // The name's words first; near spellings (trigrams) only when the words match no deal under these filters, as
    // the directory's search ranks them: a word shared by thousands of names does not pull them all in by trigrams.
    const n = pageParams.push(p.q);
    let found = await matching(ctx.q, where, after, `d.search_doc @@ websearch_to_tsquery('wops_search', $${n})`, pageParams, p.limit);
    if (found.totals.length === 0) found = await matching(ctx.q, where, after, `wops_unaccent($${n}) <% d.search_fuzzy`, pageParams, p.limit);
    totals = found.totals;
    rows = found.rows;
  }
  const more = rows.length > p.limit;
  const deals = rows.slice(0, p.limit);
  const last = deals[deals.length - 1];
  return {
    deals: deals.map((r) => toDeal(r, now)),
    totals: totals.map((t) => ({ currency: t.currency, count: t.count, amountCents: Number(t.amount), weightedCents: Number(t.weighted) })),
    nextCursor: more && last ? encode(last.close_date, last.deal_id) : null,
  };
});

const DEAL_COLUMNS_D = DEAL_COLUMNS.split(',')
  .map((col) => `d.${col.trim()}`)
  .join(', ');

/**
 * The deals matching a search: the matches found once (one pass over the search index and the rows), their totals
 * and the page's ids in one statement, then the page's rows by id.
 */
async function matching(q: Queryable, where: string[], after: string[], match: string, params: unknown[], limit: number) {
  const all = [...params];
  const out = await q.query<TotalRow & { deal_id: string | null }>(
    `WITH m AS MATERIALIZED (SELECT d.deal_id, d.close_date, d.currency, d.stage, d.amount_cents FROM crm_deals d WHERE ${[...where, match].join(' AND ')})
     SELECT t.*, NULL AS deal_id FROM (${totalsSql('m AS d')}) AS t
     UNION ALL
     (SELECT NULL, NULL, NULL, NULL, d.deal_id FROM m AS d ${after.length ? `WHERE ${after.join(' AND ')}` : ''} ORDER BY d.close_date, d.deal_id LIMIT $${all.push(limit + 1)})`,
    all,
  );
  const ids = out.flatMap((r) => (r.deal_id ? [r.deal_id] : []));
  const rows = ids.length
    ? await q.query<DealRow>(`SELECT ${DEAL_COLUMNS_D} FROM crm_deals d WHERE d.org_id = $1 AND d.deal_id = ANY($2::text[]) ORDER BY d.close_date, d.deal_id`, [
        params[0],
        ids,
      ])
    : [];
  return { totals: out.filter((r) => r.deal_id === null).sort((x, y) => x.currency.localeCompare(y.currency)), rows };
}
