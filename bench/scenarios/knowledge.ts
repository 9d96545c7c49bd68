import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';

/*
 * The knowledge target (docs/families/knowledge.md, performance): knowledge.search under 100 ms p95 at 100k entries
 * on PostgreSQL. Entries are inserted in bulk, bodies drawn in SQL from a ranked vocabulary (common business words,
 * then a long tail) and recorded over a year; each search is one request at a time against the real server, and
 * each appends its knowledge.search.run event and ks_ row as in use.
 */

const ENTRIES = Number(process.env.BENCH_KNOWLEDGE_ENTRIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_KNOWLEDGE_SAMPLES ?? 200);
const BATCH = 20_000;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

const COMMON =
  'invoice payment terms customer supplier contract renewal pricing discount warehouse shipment delivery quarterly budget report approval deadline onboarding support escalation refund policy office meeting'.split(
    ' ',
  );
const SYLLABLES = 'ka lo mi ren to sa vek ul bra dor fin gal hu jex kor lin mas nor pel qui ros sul tam vin wex yor zan el ost ard'.split(' ');
const TAIL = Array.from({ length: 2000 }, (_, i) => SYLLABLES[i % 30] + SYLLABLES[Math.floor(i / 30) % 30] + SYLLABLES[Math.floor(i / 900) % 30]);
const WORDS = [...COMMON, ...TAIL];
/** Two common words, a phrase, an exclusion, a rare word, three words. */
const SEARCHES = ['invoice payment', '"payment terms"', 'warehouse -shipment', 'kalomi', 'quarterly budget report', 'supplier contract renewal'];

async function seed(run: BenchRun, orgId: string, author: string): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < ENTRIES; from += BATCH) {
    const to = Math.min(ENTRIES, from + BATCH);
    // Twelve words a body, each drawn as n * u^2.5 (common words often, the tail rarely).
    await run.ctx.db.query(
      `INSERT INTO knowledge_entries (org_id, entry_id, body, kind, subject_ids, sources, body_hash, verified, verified_by, author_id, valid_from, recorded_at, updated_at)
       SELECT $1, 'kn_bench' || i, b.body, 'fact', ARRAY['co_bench' || (i % 500)], '[{"kind":"url","ref":"https://bench.example"}]'::jsonb, md5(b.body || i),
              true, $2, $2, now() - (i % 365) * interval '1 day', now() - (i % 365) * interval '1 day', now()
         FROM generate_series($3::int, $4::int - 1) AS i,
              LATERAL (SELECT string_agg(($5::text[])[1 + floor(array_length($5::text[], 1) * power(random(), 2.5))::int], ' ') AS body
                         FROM generate_series(1, 12 + (i % 3)) AS w(n) WHERE i IS NOT NULL) AS b`,
      [orgId, author, from, to, WORDS],
    );
    log(`16. knowledge: ${to} of ${ENTRIES} entries`);
  }
  await run.ctx.db.query('ANALYZE knowledge_entries');
  return performance.now() - started;
}

/** 16: knowledge.search at 100k entries (docs/families/knowledge.md, performance). */
export async function knowledgeStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-knowledge`);
  log(`16. knowledge: inserting ${ENTRIES} entries, then ANALYZE`);
  const seedMs = await seed(run, org.orgId, org.actor);
  const calls = Array.from({ length: SAMPLES }, (_, i) => ({ q: SEARCHES[i % SEARCHES.length], limit: 10 }));
  for (let i = 0; i < 10; i++) await rpc(ctx.baseUrl, org.key, 'knowledge.search', calls[i]);
  let items = 0;
  const figures = await latencies(SAMPLES, async (i) => {
    const { body } = await rpc(ctx.baseUrl, org.key, 'knowledge.search', calls[i]);
    if (!body.ok) throw new Error(`knowledge.search: ${JSON.stringify(body)}`);
    items += body.result.results.length;
  });
  log(`16. knowledge search: p50 ${figures.p50Ms.toFixed(1)} p95 ${figures.p95Ms.toFixed(1)} ms; ${(items / SAMPLES).toFixed(1)} results an answer`);
  if (items === 0) throw new Error('knowledge.search: every answer was empty; the seed is not what the searches look for');
  run.raw.knowledge = { entries: ENTRIES, seedMs, search: figures };
  run.rows.push(latencyRow(`16 knowledge search, ${ENTRIES / 1000}k entries`, figures, 100));
}
