import { notFound } from '../../protocol/errors.js';
import { knowledge as c } from '../../protocol/methods/knowledge.js';
import { defineSearch } from '../../db/search.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { defineJob } from '../jobs/define.js';
import { ENTRY_COLUMNS, entriesByIds, toEntry, type EntryOut, type EntryRow } from './model.js';

/*
 * knowledge.search is M, not I: every search appends knowledge.search.run with the ids and revisions it served
 * (never the query, nor a hash of it: a hash of "Jane Doe salary" is guessed), so the chain proves what an actor
 * was told at which seq and invalidate can say who was served a wrong fact. The query text stays in the ks_ row,
 * erasable, and the knowledge.eraseQuery job erases it after the retention (30 days).
 */

declare module '../core/deps.js' {
  interface FamilyConfig {
    /** How long a search's query text is kept before the knowledge.eraseQuery job erases it. */
    knowledgeQueryRetentionMs: number;
  }
}

export const QUERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const ERASE_QUERY_JOB = 'knowledge.eraseQuery';

/** Entries' words (migration 061); long bodies have no trigram tier. The newest 2000 matches are ranked. */
export const entrySearch = defineSearch({
  table: 'knowledge_entries',
  id: 'entry_id',
  weights: { A: ['body'] },
  fuzzy: [],
  filters: { kind: 'kind' },
  recent: { column: 'recorded_at', candidates: 2000, day: 'search_day' },
});

const NO_EMBEDDINGS =
  'hybrid search needs an embedding endpoint (AI_EMBED_MODEL on an OpenAI-compatible gateway) and the vector extension; none is configured, so this ran full text only';

type Result = { entry: EntryOut; matched: 'text' | 'fuzzy' | 'filter'; score: number; excerpt: { text: string; match: boolean }[] | null };

export const search = handler(c.search, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = p.asOf ? new Date(p.asOf).toISOString() : now.toISOString();
  const results: Result[] = [];
  if (p.entryIds) {
    // By id: what the caller names, in any state (a served id must resolve); another org's is not found.
    const ids = [...new Set(p.entryIds)];
    const rows = await entriesByIds(ctx.q, ctx.orgId, ids);
    const missing = ids.find((id) => !rows.some((r) => r.entry_id === id));
    if (missing) throw notFound(`knowledge entry ${missing}`);
    for (const r of rows.slice(0, p.limit)) results.push({ entry: toEntry(r, now), matched: 'filter', score: 0, excerpt: null });
  } else {
    // Valid at the moment asked (valid time), never an invalidated entry: it was never true.
    const conditions = (param: (v: unknown) => string, t: string) => {
      const out = [
        `${t}.status <> 'invalidated'`,
        `${t}.valid_from <= ${param(at)}::timestamptz`,
        `(${t}.valid_until IS NULL OR ${t}.valid_until > ${param(at)}::timestamptz)`,
      ];
      if (p.subjectIds?.length) out.push(`${t}.subject_ids && ${param(p.subjectIds)}::text[]`);
      if (p.verifiedOnly) out.push(`${t}.verified`);
      return out.join(' AND ');
    };
    if (p.q) {
      const page = await entrySearch.search(ctx.q, {
        org: ctx.orgId,
        q: p.q,
        limit: p.limit,
        filters: { kind: p.kind },
        where: (param) => conditions(param, 'knowledge_entries'),
      });
      const rows = await entriesByIds(
        ctx.q,
        ctx.orgId,
        page.items.map((h) => h.id),
      );
      const byId = new Map(rows.map((r) => [r.entry_id, r]));
      for (const hit of page.items) {
        const row = byId.get(hit.id);
        if (row) results.push({ entry: toEntry(row, now), matched: hit.matched, score: hit.score, excerpt: hit.highlights.body ?? null });
      }
    } else {
      const params: unknown[] = [ctx.orgId];
      const param = (v: unknown) => `$${params.push(v)}`;
      const kind = p.kind ? ` AND e.kind = ${param(p.kind)}` : '';
      const rows = await ctx.q.query<EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM knowledge_entries e WHERE e.org_id = $1 AND ${conditions(param, 'e')}${kind}
          ORDER BY e.recorded_at DESC, e.entry_id LIMIT ${p.limit}`,
        params,
      );
      for (const r of rows) results.push({ entry: toEntry(r, now), matched: 'filter', score: 0, excerpt: null });
    }
  }
  const searchId = newId('ks');
  await ctx.q.query(
    `INSERT INTO knowledge_searches (org_id, search_id, actor_id, query, mode, as_of, result_count, searched_at) VALUES ($1, $2, $3, $4, 'fulltext', $5, $6, $7)`,
    [ctx.orgId, searchId, ctx.principal.id, p.q ?? null, p.asOf ? at : null, results.length, now.toISOString()],
  );
  if (results.length) {
    await ctx.q.query(
      `INSERT INTO knowledge_search_results (org_id, search_id, entry_id, revision, rank)
       SELECT $1, $2, r.entry_id, r.revision, r.rank FROM unnest($3::text[], $4::int[]) WITH ORDINALITY AS r(entry_id, revision, rank)`,
      [ctx.orgId, searchId, results.map((r) => r.entry.id), results.map((r) => r.entry.revision)],
    );
  }
  if (p.q !== undefined) ctx.schedule(ERASE_QUERY_JOB, { searchId }, { delaySeconds: Math.ceil(ctx.deps.config.knowledgeQueryRetentionMs / 1000) });
  await ctx.emit('knowledge.search.run', searchId, {
    searchId,
    mode: 'fulltext',
    asked: p.mode,
    asOf: p.asOf ? at : null,
    count: results.length,
    results: results.map((r) => ({ entryId: r.entry.id, revision: r.entry.revision })),
  });
  return { searchId, mode: 'fulltext' as const, note: p.mode === 'hybrid' ? NO_EMBEDDINGS : null, results };
});

/** Erases a search's query text after the retention: the ks_ row keeps who, when and what was served. */
export const eraseQuery = defineJob<{ searchId: string }>({
  name: ERASE_QUERY_JOB,
  retryLimit: 5,
  retryDelaySeconds: 60,
  retryBackoff: true,
  expireInSeconds: 60,
  events: ['knowledge.search.erase'],
  async run(ctx, data) {
    const [row] = await ctx.q.query<{ search_id: string }>(
      `UPDATE knowledge_searches SET query = NULL, erased_at = $3 WHERE org_id = $1 AND search_id = $2 AND query IS NOT NULL RETURNING search_id`,
      [ctx.orgId, data.searchId, ctx.deps.clock.now().toISOString()],
    );
    if (row) await ctx.emit('knowledge.search.erase', data.searchId, { searchId: data.searchId });
  },
});
