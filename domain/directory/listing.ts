import { directory as c } from '../../protocol/methods/directory/index.js';
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { MAX_LIMIT as MAX_SEARCH_LIMIT } from '../../db/search.js';
import type { Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { candidatesOf } from './dedupe.js';
import { Params, filterConditions, listScope, narrows, type PartyFilter } from './filters.js';
import { partyRows, resolveParty, toListed, toParty, type PartyKind } from './model.js';
import { tryEmail, tryPhone } from './normalise.js';
import { SEARCH_FIELDS, partySearch } from './search.js';

/*
 * directory.listPeople, listOrgs and search. Reads run in a transaction of their own: the search's fuzzy threshold
 * is a transaction-local setting (db/search.ts). Query text never reaches an event or a log.
 */

interface ListParams extends PartyFilter {
  q?: string;
  cursor?: string;
  limit: number;
}

type Cursor = ['n' | 'u', string, string];

const ofMode = (mode: 'n' | 'u') => (v: unknown[]) => v.length === 3 && v[0] === mode && typeof v[1] === 'string' && typeof v[2] === 'string';

async function listParties(q: Queryable, ctx: HandlerCtx, kind: PartyKind, p: ListParams) {
  const params = new Params([ctx.orgId, kind]);
  const scope = { q, families: ctx.deps.families, orgId: ctx.orgId, principalId: ctx.principal.id, kind, prefix: '' };
  if (p.q !== undefined && p.q.trim() !== '') {
    // Filters beyond kind and status narrow the search to the ids they match.
    let ids: string[] | undefined;
    if (narrows(p)) {
      const where = await filterConditions(scope, p, params, false);
      ids = (
        await q.query<{ party_id: string }>(
          `SELECT p.party_id FROM directory_parties p WHERE p.org_id = $1 AND p.kind = $2 AND ${where.join(' AND ')}`,
          params.values,
        )
      ).map((r) => r.party_id);
      if (ids.length === 0) return { rows: [], nextCursor: null };
    }
    const status = p.status ?? 'active';
    const page = await partySearch.search(q, {
      org: ctx.orgId,
      q: p.q,
      limit: Math.min(p.limit, MAX_SEARCH_LIMIT),
      cursor: p.cursor,
      filters: { kind, status: status === 'all' ? undefined : status, partyId: ids },
    });
    return {
      rows: await partyRows(
        q,
        ctx.orgId,
        page.items.map((h) => h.id),
      ),
      nextCursor: page.nextCursor,
    };
  }
  const where = await filterConditions(scope, p, params);
  const byUpdate = p.updatedSince !== undefined;
  const sort = byUpdate ? 'p.updated_at' : 'lower(p.display_name)';
  if (p.cursor !== undefined) {
    const [, after, id] = decodeCursor<Cursor>(p.cursor, 'cursor', ofMode(byUpdate ? 'u' : 'n'), 'list returned (with these ordering params)');
    where.push(`(${sort}, p.party_id) > (${params.push(after, byUpdate ? '::timestamptz' : '::text')}, ${params.push(id, '::text')})`);
  }
  const rows = await q.query<{ party_id: string; sort: string }>(
    `SELECT p.party_id, ${byUpdate ? `to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : sort} AS sort
       FROM directory_parties p WHERE p.org_id = $1 AND p.kind = $2 ${where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${sort}, p.party_id LIMIT ${params.push(p.limit + 1)}`,
    params.values,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    rows: await partyRows(
      q,
      ctx.orgId,
      page.map((r) => r.party_id),
    ),
    nextCursor: rows.length > p.limit && last ? encodeCursor([byUpdate ? 'u' : 'n', last.sort, last.party_id]) : null,
  };
}

export const listPeople = handler(c.listPeople, async (ctx, p) =>
  ctx.deps.db.tx(async (q) => {
    const { rows, nextCursor } = await listParties(q, ctx, 'person', p);
    return { people: rows.map(toListed), nextCursor };
  }),
);

export const listOrgs = handler(c.listOrgs, async (ctx, p) =>
  ctx.deps.db.tx(async (q) => {
    const { rows, nextCursor } = await listParties(q, ctx, 'org', p);
    return { orgs: rows.map(toListed), nextCursor };
  }),
);

/** A number typed as digits and separators only: looked up as a phone, never as words. */
const PHONE_SHAPED = /^\+?[\d\s().-]{6,}$/;

interface Hit {
  id: string;
  score: number;
  matched: 'key' | 'text' | 'fuzzy' | 'duplicate';
  reasons: string[];
}

export const search = handler(c.search, async (ctx, p) =>
  ctx.deps.db.tx(async (q) => {
    const kinds: PartyKind[] = p.kinds ? [...new Set(p.kinds)] : ['person', 'org'];
    const scopeIds =
      p.listId === undefined
        ? undefined
        : await listScope({ q, families: ctx.deps.families, orgId: ctx.orgId, principalId: ctx.principal.id, prefix: '' }, p.listId, kinds);
    const inScope = (id: string) => scopeIds === undefined || scopeIds.includes(id);
    const hits: Hit[] = [];
    if (p.duplicatesOf !== undefined) {
      const subject = await resolveParty(q, ctx.orgId, p.duplicatesOf);
      if (kinds.includes(subject.kind)) {
        const candidates = await candidatesOf(q, ctx.orgId, subject.partyId, { limit: scopeIds ? MAX_SEARCH_LIMIT : p.limit });
        for (const cd of candidates) if (inScope(cd.partyId)) hits.push({ id: cd.partyId, score: cd.score, matched: 'duplicate', reasons: cd.reasons });
      }
    } else {
      const text = p.q!;
      const key = text.includes('@') ? tryEmail(text) : PHONE_SHAPED.test(text.trim()) ? tryPhone(text) : null;
      if (key) {
        const rows = await q.query<{ party_id: string }>(
          `SELECT p.party_id FROM directory_channels ch JOIN directory_parties p ON p.org_id = ch.org_id AND p.party_id = ch.party_id
            WHERE ch.org_id = $1 AND ch.kind = $2 AND ch.key = $3 AND ch.status = 'active' AND p.status = 'active' AND p.kind = ANY($4::text[])
            GROUP BY p.party_id ORDER BY min(ch.n) LIMIT $5`,
          [ctx.orgId, key.kind, key.key, kinds, MAX_SEARCH_LIMIT],
        );
        for (const r of rows) if (inScope(r.party_id)) hits.push({ id: r.party_id, score: 100, matched: 'key', reasons: [key.kind] });
      }
      if (hits.length < p.limit && (scopeIds === undefined || scopeIds.length > 0)) {
        const page = await partySearch.search(q, {
          org: ctx.orgId,
          q: text,
          limit: p.limit,
          filters: { kind: kinds, status: 'active', partyId: scopeIds },
        });
        for (const h of page.items) {
          if (hits.some((x) => x.id === h.id)) continue;
          const fields = Object.entries(h.highlights)
            .filter(([, segments]) => segments.some((s) => s.match))
            .map(([column]) => SEARCH_FIELDS[column] ?? column);
          hits.push(
            h.matched === 'text'
              ? { id: h.id, score: 50 + Math.min(49, Math.round(h.score * 49)), matched: 'text', reasons: fields }
              : { id: h.id, score: Math.min(49, Math.round(h.score * 49)), matched: 'fuzzy', reasons: ['name'] },
          );
        }
      }
    }
    const kept = hits.slice(0, p.limit);
    const rows = new Map(
      (
        await partyRows(
          q,
          ctx.orgId,
          kept.map((h) => h.id),
        )
      ).map((r) => [r.party_id, r]),
    );
    return {
      hits: kept.flatMap((h) => {
        const row = rows.get(h.id);
        return row ? [{ party: toParty(row), score: h.score, matched: h.matched, reasons: h.reasons }] : [];
      }),
    };
  }),
);
