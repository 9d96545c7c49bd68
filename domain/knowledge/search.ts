import { notFound } from '../../protocol/errors.js';
import { knowledge as c } from '../../protocol/methods/knowledge.js';
import { defineSearch } from '../../db/search.js';
import { handler, type PrepareCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { defineJob } from '../jobs/define.js';
import type { z } from 'zod';
import { embedTexts, nearestEntries, vectorState } from './vectors.js';
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

type Match = 'text' | 'fuzzy' | 'filter' | 'vector' | 'both';
type Result = { entry: EntryOut; matched: Match; score: number; excerpt: { text: string; match: boolean }[] | null };

/** What prepare found for a hybrid search: the query's vector, or why the search runs full text only. */
type Plan = { vector: number[] | null; note: string | null };

const FULLTEXT_ONLY = 'so this search ran full text only';

/**
 * Outside the call's transaction (a model is never awaited inside one): embed the query through the AI gateway
 * when hybrid is asked, configured and possible. Anything short of a vector is a note, never an error.
 */
async function plan(ctx: PrepareCtx, p: z.output<typeof c.search.params>): Promise<Plan> {
  if (p.mode !== 'hybrid') return { vector: null, note: null };
  if (p.q === undefined || p.entryIds) {
    return { vector: null, note: 'hybrid search ranks q by words and meaning; without q (or with entryIds) this answered by id or filters only' };
  }
  const state = await vectorState(ctx.deps);
  if (!state.ok) return { vector: null, note: `hybrid search needs embeddings and the vector extension: ${state.reason}, ${FULLTEXT_ONLY}` };
  const out = await embedTexts(ctx.deps, {
    method: ctx.method.name,
    orgId: ctx.orgId,
    requestId: ctx.requestId,
    actor: ctx.principal.id,
    keyId: ctx.principal.keyId,
    texts: [p.q],
  });
  return out.ok ? { vector: out.vectors[0], note: null } : { vector: null, note: `the query could not be embedded (${out.reason}), ${FULLTEXT_ONLY}` };
}

/** Reciprocal rank fusion: each list adds 1 / (k + rank) for the entries it ranks (k = 60, as its authors chose). */
const RRF_K = 60;

export const search = handler(
  c.search,
  async (ctx, p, prepared: Plan) => {
    const now = ctx.deps.clock.now();
    const at = p.asOf ? new Date(p.asOf).toISOString() : now.toISOString();
    const results: Result[] = [];
    let hybrid = false;
    if (p.entryIds) {
      // By id: what the caller names, in any state (a served id must resolve); another org's is not found.
      const ids = [...new Set(p.entryIds)];
      const rows = await entriesByIds(ctx.q, ctx.orgId, ids);
      const missing = ids.find((id) => !rows.some((r) => r.entry_id === id));
      if (missing) throw notFound(`knowledge entry ${missing}`);
      for (const r of rows.slice(0, p.limit)) results.push({ entry: toEntry(r, now), matched: 'filter', score: 0, excerpt: null });
    } else {
      // Valid at the moment asked (valid time), never an invalidated entry: it was never true. Vector hits pass the same test.
      const conditions = (param: (v: unknown) => string, t: string) => {
        const out = [
          `${t}.status <> 'invalidated'`,
          `${t}.valid_from <= ${param(at)}::timestamptz`,
          `(${t}.valid_until IS NULL OR ${t}.valid_until > ${param(at)}::timestamptz)`,
        ];
        if (p.subjectIds?.length) out.push(`${t}.subject_ids && ${param(p.subjectIds)}::text[]`);
        if (p.verifiedOnly) out.push(`${t}.verified`);
        if (p.kind) out.push(`${t}.kind = ${param(p.kind)}`);
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
        const settings = ctx.deps.ai.config.embed;
        const near = prepared.vector && settings ? await nearestEntries(ctx.q, ctx.orgId, settings, prepared.vector, p.limit, conditions) : null;
        hybrid = near !== null;
        const fused = fuse(
          page.items.map((h) => ({ id: h.id, matched: h.matched, score: h.score, excerpt: h.highlights.body ?? null })),
          near ?? [],
          hybrid,
        ).slice(0, p.limit);
        const rows = await entriesByIds(
          ctx.q,
          ctx.orgId,
          fused.map((h) => h.id),
        );
        const byId = new Map(rows.map((r) => [r.entry_id, r]));
        for (const hit of fused) {
          const row = byId.get(hit.id);
          if (row) results.push({ entry: toEntry(row, now), matched: hit.matched, score: hit.score, excerpt: hit.excerpt });
        }
      } else {
        const params: unknown[] = [ctx.orgId];
        const param = (v: unknown) => `$${params.push(v)}`;
        const rows = await ctx.q.query<EntryRow>(
          `SELECT ${ENTRY_COLUMNS} FROM knowledge_entries e WHERE e.org_id = $1 AND ${conditions(param, 'e')}
          ORDER BY e.recorded_at DESC, e.entry_id LIMIT ${p.limit}`,
          params,
        );
        for (const r of rows) results.push({ entry: toEntry(r, now), matched: 'filter', score: 0, excerpt: null });
      }
    }
    const mode = hybrid ? ('hybrid' as const) : ('fulltext' as const);
    const searchId = newId('ks');
    await ctx.q.query(
      `INSERT INTO knowledge_searches (org_id, search_id, actor_id, query, mode, as_of, result_count, searched_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [ctx.orgId, searchId, ctx.principal.id, p.q ?? null, mode, p.asOf ? at : null, results.length, now.toISOString()],
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
      mode,
      asked: p.mode,
      asOf: p.asOf ? at : null,
      count: results.length,
      results: results.map((r) => ({ entryId: r.entry.id, revision: r.entry.revision, matched: r.matched })),
    });
    return { searchId, mode, note: prepared.note, results };
  },
  { prepare: plan },
);

type Hit = { id: string; matched: Match; score: number; excerpt: Result['excerpt'] };

/**
 * Full-text hits alone (score: their rank), or fused with the vector neighbours by reciprocal rank fusion: the
 * score is the fused one, and each hit says whether words, the vector or both found it.
 */
function fuse(text: Hit[], near: { entryId: string }[], hybrid: boolean): Hit[] {
  if (!hybrid) return text;
  const fused = new Map<string, Hit>();
  text.forEach((h, i) => fused.set(h.id, { ...h, score: 1 / (RRF_K + i + 1) }));
  near.forEach((n, i) => {
    const had = fused.get(n.entryId);
    const score = 1 / (RRF_K + i + 1);
    if (had) fused.set(n.entryId, { ...had, matched: 'both', score: had.score + score });
    else fused.set(n.entryId, { id: n.entryId, matched: 'vector', score, excerpt: null });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

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
