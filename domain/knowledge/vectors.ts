import type { EmbedSettings } from '../../ai-gateway/config.js';
import { embed, type EmbedCall, type EmbedOutcome } from '../../ai-gateway/embed.js';
import type { Db, Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import type { StartupStep } from '../core/startup.js';
import { defineJob } from '../jobs/define.js';

/*
 * Vectors for hybrid search (decision 0069). Embeddings are real[] rows (migration 069), so the schema is the same
 * with or without pgvector; where the database offers the extension and an embedding model is configured, it is
 * created with an HNSW index for the configured dimensions, and only then does hybrid search use vectors. Entries
 * are embedded by a job after the commit that wrote their words (append, replace, rewrite, and meetings.record's
 * decisions through quiet.ts), and at start for any entry whose embedding is missing or of other words or another
 * model.
 */

export const EMBED_JOB = 'knowledge.embed';

export type VectorState = { ok: true } | { ok: false; reason: string };

const states = new WeakMap<Db, Map<number, Promise<VectorState>>>();

/** Whether vector search runs on this database, found once per database and dimensions (the extension, its index). */
export function vectorState(deps: Deps): Promise<VectorState> {
  const settings = deps.ai.config.embed;
  if (!settings) return Promise.resolve({ ok: false, reason: 'no embedding model is configured (AI_EMBED_MODEL)' });
  let byDims = states.get(deps.db);
  if (!byDims) states.set(deps.db, (byDims = new Map()));
  let state = byDims.get(settings.dimensions);
  if (!state) byDims.set(settings.dimensions, (state = setUp(deps.db, settings.dimensions)));
  return state;
}

async function setUp(db: Db, dims: number): Promise<VectorState> {
  const [available] = await db.query<{ name: string }>(`SELECT name FROM pg_available_extensions WHERE name = 'vector'`);
  if (!available) {
    return {
      ok: false,
      reason:
        db.kind === 'pglite'
          ? 'the vector extension is not loaded into this PGlite database'
          : 'this PostgreSQL has no vector extension (pgvector is not installed)',
    };
  }
  const statements = [
    'CREATE EXTENSION IF NOT EXISTS vector',
    // dims is an integer from the configuration, checked 1..2000: the index is per dimension, on the cast column.
    `CREATE INDEX IF NOT EXISTS knowledge_embeddings_hnsw_${dims} ON knowledge_embeddings
       USING hnsw ((embedding::vector(${dims})) vector_cosine_ops) WHERE dims = ${dims}`,
  ];
  for (const sql of statements) {
    try {
      await db.query(sql);
    } catch (err) {
      // Two processes starting at once race to create it: the second sees the first's, on a second try.
      try {
        await db.query(sql);
      } catch {
        return { ok: false, reason: `the vector extension could not be set up (${(err as Error).message.slice(0, 200)})` };
      }
    }
  }
  return { ok: true };
}

/** The gateway's embedding call with this runtime's AI settings. */
export const embedTexts = (deps: Deps, call: EmbedCall): Promise<EmbedOutcome> => embed({ db: deps.db, ...deps.ai }, call);

const vectorLiteral = (v: readonly number[]) => `[${v.join(',')}]`;

/** Nearest embeddings taken from the index per result asked: those the validity and filters then drop leave the rest. */
const CANDIDATES_PER_RESULT = 4;

/**
 * Entries nearest the query vector among those `where` admits (the same validity and filters as full text), with
 * their cosine similarity, nearest first; those below the configured similarity are no match. The embedding must be
 * of the entry's current words and by the configured model. The nearest of the org come from the HNSW index first
 * (a plain join sorts every embedding of the org: 45 ms against 0.4 ms at 5000 an org on PGlite), pulled as the
 * filters need them, at most CANDIDATES_PER_RESULT x limit.
 */
export async function nearestEntries(
  q: Queryable,
  orgId: string,
  settings: EmbedSettings,
  vector: readonly number[],
  limit: number,
  where: (param: (v: unknown) => string, table: string) => string,
): Promise<{ entryId: string; similarity: number }[]> {
  const params: unknown[] = [orgId, settings.model, vectorLiteral(vector)];
  const param = (v: unknown) => `$${params.push(v)}`;
  const d = settings.dimensions;
  // Filtered HNSW scans go on past the first candidates until enough rows pass the org filter (pgvector 0.8).
  await q.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
  const rows = await q.query<{ entry_id: string; distance: number }>(
    `WITH near AS MATERIALIZED (
       SELECT k.entry_id, k.body_hash, k.embedding::vector(${d}) <=> $3::vector(${d}) AS distance FROM knowledge_embeddings k
        WHERE k.org_id = $1 AND k.dims = ${d} AND k.model = $2
        ORDER BY k.embedding::vector(${d}) <=> $3::vector(${d}) LIMIT ${limit * CANDIDATES_PER_RESULT})
     SELECT e.entry_id, near.distance FROM near JOIN knowledge_entries e ON e.org_id = $1 AND e.entry_id = near.entry_id
      WHERE e.body_hash = near.body_hash AND ${where(param, 'e')}
      ORDER BY near.distance LIMIT ${limit}`,
    params,
  );
  return rows
    .map((r) => ({ entryId: r.entry_id, similarity: 1 - Number(r.distance) }))
    .filter((r) => r.similarity >= settings.minSimilarity)
    .sort((a, b) => b.similarity - a.similarity);
}

interface Embedded {
  revision: number;
  bodyHash: string;
  vector: number[];
  model: string;
  dims: number;
}

/** The entries' rows that need an embedding: none yet, or one of other words, model or dimensions; never invalidated ones. */
const STALE = `e.status <> 'invalidated' AND (k.entry_id IS NULL OR k.body_hash <> e.body_hash OR k.model <> $1 OR k.dims <> $2)`;

/**
 * Embeds one entry's current words, after the commit that wrote them. The model is called in prepare, outside any
 * transaction; run stores the vector only if the words are still those embedded. No ledger event: an embedding is
 * derived data, like the full-text index. Failures retry with backoff; a spent budget waits for the next start.
 */
export const embedEntry = defineJob<{ entryId: string }, Embedded | null>({
  name: EMBED_JOB,
  policy: 'short',
  retryLimit: 3,
  retryDelaySeconds: 30,
  retryBackoff: true,
  expireInSeconds: 120,
  events: [],
  async prepare(deps, orgId, data) {
    const settings = deps.ai.config.embed;
    if (!settings || !(await vectorState(deps)).ok) return null;
    const [row] = await deps.db.query<{ body: string; revision: number; body_hash: string }>(
      `SELECT e.body, e.revision, e.body_hash FROM knowledge_entries e
         LEFT JOIN knowledge_embeddings k ON k.org_id = e.org_id AND k.entry_id = e.entry_id
        WHERE e.org_id = $3 AND e.entry_id = $4 AND ${STALE}`,
      [settings.model, settings.dimensions, orgId, data.entryId],
    );
    if (!row) return null;
    const out = await embedTexts(deps, { method: EMBED_JOB, orgId, requestId: `${EMBED_JOB}:${data.entryId}`, actor: 'system', keyId: '', texts: [row.body] });
    if (!out.ok) {
      if (out.retry) throw new Error(`${EMBED_JOB} ${data.entryId}: ${out.reason}`);
      return null;
    }
    return { revision: Number(row.revision), bodyHash: row.body_hash, vector: out.vectors[0], model: out.model, dims: out.dimensions };
  },
  async run(ctx, data, prepared) {
    if (!prepared) return;
    await ctx.q.query(
      `INSERT INTO knowledge_embeddings (org_id, entry_id, revision, body_hash, model, dims, embedding, embedded_at)
       SELECT org_id, entry_id, revision, body_hash, $4, $5, $6::real[], $7 FROM knowledge_entries
        WHERE org_id = $1 AND entry_id = $2 AND body_hash = $3 AND status <> 'invalidated'
       ON CONFLICT (org_id, entry_id) DO UPDATE SET revision = EXCLUDED.revision, body_hash = EXCLUDED.body_hash, model = EXCLUDED.model,
         dims = EXCLUDED.dims, embedding = EXCLUDED.embedding, embedded_at = EXCLUDED.embedded_at`,
      [ctx.orgId, data.entryId, prepared.bodyHash, prepared.model, prepared.dims, prepared.vector, ctx.deps.clock.now().toISOString()],
    );
  },
});

/** Entries a start finds without a current embedding are queued, this many at most per start. */
const BACKFILL_BATCH = 10_000;

/**
 * At every start with an embedding model and the extension: set the extension up, then queue an embedding for
 * every entry that lacks a current one (entries written before embeddings were configured, or whose job gave up).
 * The job's `short` policy keeps one waiting job per entry, so starts do not pile them up.
 */
export const backfillEmbeddings: StartupStep = {
  name: 'knowledge embeddings backfill',
  async run(deps) {
    const settings = deps.ai.config.embed;
    if (!settings) return 0;
    const state = await vectorState(deps);
    if (!state.ok) {
      deps.log.warn({ reason: state.reason }, 'hybrid knowledge search runs full text only');
      return 0;
    }
    const rows = await deps.db.query<{ org_id: string; entry_id: string }>(
      `SELECT e.org_id, e.entry_id FROM knowledge_entries e
         LEFT JOIN knowledge_embeddings k ON k.org_id = e.org_id AND k.entry_id = e.entry_id
        WHERE ${STALE} ORDER BY e.org_id, e.recorded_at DESC LIMIT ${BACKFILL_BATCH}`,
      [settings.model, settings.dimensions],
    );
    const byOrg = new Map<string, string[]>();
    for (const r of rows) byOrg.set(r.org_id, [...(byOrg.get(r.org_id) ?? []), r.entry_id]);
    for (const [orgId, ids] of byOrg) {
      const jobs = ids.map((entryId) => deps.jobs.check(EMBED_JOB, { entryId }, { singletonKey: `${orgId}:${entryId}` }));
      await deps.jobs.enqueue(deps.db, orgId, 0, jobs);
    }
    if (byOrg.size) deps.jobs.wake([EMBED_JOB]);
    return rows.length;
  },
};

/** In a handler that wrote an entry's words: queue its embedding, when embeddings are configured (else nothing). */
export function scheduleEmbedding(
  ctx: { deps: Deps; orgId: string; schedule(name: string, data: { entryId: string }, opts: { singletonKey: string }): void },
  entryId: string,
): void {
  if (ctx.deps.ai.config.embed) ctx.schedule(EMBED_JOB, { entryId }, { singletonKey: `${ctx.orgId}:${entryId}` });
}
