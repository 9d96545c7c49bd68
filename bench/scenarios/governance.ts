import { one } from '../../db/types.js';
import { createRuntime, type Runtime } from '../../domain/deployed.js';
import type { Principal } from '../../domain/core/auth.js';
import { createOrgs, getOk, rpc, type BenchContext, type BenchOrg } from '../fixture.js';
import { latencies, type Latencies } from '../measure.js';
import type { Row } from '../report.js';
import type { BenchRun } from '../steps.js';
import { pick, rng } from './directory-names.js';
import { insertDecisions, planDecisions } from './governance-seed.js';
import { seedMembers } from './people.js';

/*
 * The governance target (docs/performance.md, step governance): GET /api/v1/decision.list p95 < 30 ms at 50,000
 * decisions in one org. The log is inserted in bulk as decision.propose and the later acts write it
 * (governance-seed.ts), with decision rights declared through the API, then ANALYZE. Each query is one GET at a time
 * against the real server: a plain page, status=open, an area, one record by id, awaiting=me and a full-text q;
 * beside each the same read in process (Pipeline.read on a runtime of this process with the caller's principal: no
 * HTTP, no key check).
 */

const DECISIONS = 50_000;
const SAMPLES = Number(process.env.BENCH_GOVERNANCE_SAMPLES ?? 200);
const TARGET_MS = 30;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

export const QUERIES = ['page', 'status=open', 'area', 'id', 'awaiting=me', 'q'] as const;
type Query = (typeof QUERIES)[number];

/** What people look for in a decision log: an area's word, topics, a customer, a phrase, a typo (no full-text match). */
const WORDS = [
  'pricing',
  'vendor security reviews',
  'hiring freeze',
  'data residency',
  'parental leave',
  'onboarding checklist',
  'reseller margins',
  'Müller',
  'EU guidance',
  'on-call rotation',
  'procurment',
  'budget sign-off',
];

/** The query string of the i-th request of a kind. */
function queryOf(kind: Query, i: number, ids: readonly string[], r: () => number): Record<string, string> {
  switch (kind) {
    case 'page':
      return {};
    case 'status=open':
      return { status: 'open' };
    case 'area':
      return { area: pick(r, ['pricing', 'security', 'product', 'ops', 'pricing.eu']) };
    case 'id':
      return { id: pick(r, ids) };
    case 'awaiting=me':
      return { awaiting: 'me' };
    case 'q':
      return { q: WORDS[i % WORDS.length] };
  }
}

export interface QueryFigures {
  http: Latencies;
  inProcess: Latencies;
  /** Decisions (or, for id, records) in the answers, on average. */
  meanItems: number;
}

async function measure(ctx: BenchContext, org: BenchOrg, runtime: Runtime, principal: Principal, ids: readonly string[]): Promise<Record<Query, QueryFigures>> {
  const out = {} as Record<Query, QueryFigures>;
  for (const kind of QUERIES) {
    const r = rng(31);
    const queries = Array.from({ length: SAMPLES }, (_, i) => queryOf(kind, i, ids, r));
    const path = (q: Record<string, string>) => `decision.list${Object.keys(q).length ? `?${new URLSearchParams(q)}` : ''}`;
    for (let i = 0; i < 10; i++) await getOk(ctx, org, path(queries[i]));
    let items = 0;
    const http = await latencies(SAMPLES, async (i) => {
      const body = await getOk(ctx, org, path(queries[i]));
      items += body.decision ? 1 : body.decisions.length;
    });
    const inProcess = await latencies(SAMPLES, async (i) => {
      const outcome = await runtime.pipeline.read({ path: 'decision.list', query: queries[i], principal });
      if (outcome.status !== 200) throw new Error(`decision.list in process: ${outcome.body.slice(0, 300)}`);
    });
    out[kind] = { http, inProcess, meanItems: items / SAMPLES };
    log(
      `12. ${kind}: HTTP p50 ${http.p50Ms.toFixed(1)} p95 ${http.p95Ms.toFixed(1)} ms, in process p95 ${inProcess.p95Ms.toFixed(1)} ms; ${(items / SAMPLES).toFixed(1)} items an answer`,
    );
    if (items === 0) throw new Error(`decision.list ${kind}: every answer was empty; the seed is not what the query looks for`);
  }
  return out;
}

/** 12: the decision log's read (docs/performance.md). */
export async function governanceStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-governance`);
  const me = org.actor;
  const colleagues = (await seedMembers(ctx.db, org, 40, () => null, 'gov')).ids;
  // Who decides and who must agree, per area: the caller is named in some (awaiting=me finds work), roles in others.
  const [cfo, head, legal, ops] = colleagues;
  await rpc(ctx.baseUrl, org.key, 'governance.set_decision_rights', {
    rights: [
      { area: 'pricing', decidedBy: 'role:cfo', escalateTo: me, agree: [me, 'role:sales-lead'], input: ['anyone'] },
      { area: 'pricing.eu', decidedBy: 'humans', agree: [cfo] },
      { area: 'hiring', decidedBy: me, agree: ['owner'] },
      { area: 'security', decidedBy: 'humans', agree: ['role:security', me] },
      { area: 'product', decidedBy: head, agree: [me] },
      { area: 'finance', decidedBy: me, agree: [cfo] },
      { area: 'vendors', decidedBy: 'humans', agree: [legal, ops] },
      { area: 'charter', decidedBy: 'humans', agree: ['humans'] },
      { area: 'decision', decidedBy: 'humans' },
      { area: 'handoff', decidedBy: 'owner', escalateTo: 'humans' },
    ],
  });
  log(`12. decision.list: inserting ${DECISIONS} decisions (versions, signatures, comments), then ANALYZE`);
  const started = performance.now();
  const plan = planDecisions(DECISIONS, [me, ...colleagues]);
  await insertDecisions(ctx.db, org.orgId, plan);
  const seedMs = performance.now() - started;
  const counts = one(
    await ctx.db.query<{ open: number; versions: number; signatures: number; comments: number }>(
      `SELECT (SELECT count(*)::int FROM decisions WHERE org_id = $1 AND status IN ('proposed', 'adjustment_requested')) AS open,
            (SELECT count(*)::int FROM decision_versions WHERE org_id = $1) AS versions,
            (SELECT count(*)::int FROM decision_signatures WHERE org_id = $1) AS signatures,
            (SELECT count(*)::int FROM decision_comments WHERE org_id = $1) AS comments`,
      [org.orgId],
    ),
  );
  log(`12. seeded in ${seedMs.toFixed(0)} ms: ${counts.open} open, ${counts.versions} versions, ${counts.signatures} signatures, ${counts.comments} comments`);
  // How many decisions each search matches by full text (what its ranking has to order).
  const matches: Record<string, number> = {};
  for (const w of WORDS) {
    const m = one(
      await ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM decisions WHERE org_id = $1 AND search_doc @@ websearch_to_tsquery('wops_search', $2)`,
        [org.orgId, w],
      ),
    );
    matches[w] = m.n;
  }
  log(
    `12. full-text matches: ${Object.entries(matches)
      .map(([w, n]) => `${w} ${n}`)
      .join(', ')}`,
  );
  const runtime = await createRuntime({ databaseUrl: run.url, poolSize: 4 });
  let figures: Record<Query, QueryFigures>;
  try {
    figures = await measure(ctx, org, runtime, await runtime.pipeline.principalFor(org.key), plan.ids);
  } finally {
    await runtime.close();
  }
  run.raw.governance = { decisions: DECISIONS, seedMs, counts, matches, queries: figures };
  for (const kind of QUERIES) {
    const f = figures[kind];
    const scenario = `12 GET /decision.list ${kind}, 50k`;
    const row = (metric: 'p50' | 'p95'): Row => {
      const product = metric === 'p50' ? f.http.p50Ms : f.http.p95Ms;
      const baseline = metric === 'p50' ? f.inProcess.p50Ms : f.inProcess.p95Ms;
      return {
        scenario,
        metric,
        unit: 'ms',
        product,
        baseline,
        baselineLabel: 'in process',
        ratio: product / baseline,
        target: metric === 'p95' ? `< ${TARGET_MS} ms` : '',
        met: metric === 'p95' ? product < TARGET_MS : null,
      };
    };
    run.rows.push(row('p50'), row('p95'));
  }
}
