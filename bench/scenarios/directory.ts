import { one } from '../../db/types.js';
import { createOrg } from '../../domain/people/org/service.js';
import { createRuntime, type Runtime } from '../../domain/deployed.js';
import type { Principal } from '../../domain/core/auth.js';
import { createOrgs, type BenchContext, type BenchOrg } from '../fixture.js';
import { latencies, type Latencies } from '../measure.js';
import type { BenchRun } from '../steps.js';
import { ascii, pick, rng } from './directory-names.js';
import { insertDirectory, planDirectory, typo, type DirectoryPlan } from './directory-seed.js';
import { mergeFigures, type MergeFigures } from './directory-merge.js';

/*
 * The directory targets (docs/performance.md, step directory): directory.search at 100,000 parties in one org on
 * PostgreSQL (a fuzzy name with a typo, a prefix, an email and a phone looked up by their keys: p95 <= 50 ms;
 * duplicatesOf: p95 <= 100 ms), the same on embedded PGlite at 10,000 parties in this process (p95 <= 250 ms), and
 * executeMerge of a pair touching only the pair's rows. Parties are inserted in bulk as the API writes them
 * (directory-seed.ts), then ANALYZE. Over HTTP each search is one POST at a time against the real server; beside it
 * the same call in process (the handler through Pipeline.readAs on a runtime of this process: no HTTP, no key check).
 */

const PERSONS = 85_000;
const ORGS = 15_000;
const SAMPLES = Number(process.env.BENCH_DIRECTORY_SAMPLES ?? 200);
const PGLITE_SAMPLES = Math.max(20, Math.round(SAMPLES / 2));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

export const KINDS = ['typo', 'prefix', 'email', 'phone', 'duplicatesOf'] as const;
export type Kind = (typeof KINDS)[number];

interface Query {
  params: Record<string, unknown>;
  /** A party the answer should hold (the person searched for, the other record of a duplicate). */
  expect?: string;
  /** Or: a name word of every hit starting with this (a prefix). */
  prefix?: string;
}

/** A phone key (E.164, +61…) written another way than stored: national with spaces, or international. */
const phoneAsTyped = (key: string, r: () => number): string => {
  const n = key.slice(3);
  return r() < 0.5 ? `0${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` : `+61 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`;
};
const unaccented = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '');

/** `n` searches of each kind, drawn from the plan (seeded: the same every run). */
export function searchQueries(plan: DirectoryPlan, n: number, seed = 7): Record<Kind, Query[]> {
  const r = rng(seed);
  const twinned = new Set(plan.twins.flat());
  const loners = plan.persons.filter((p) => !twinned.has(p.id));
  const orgs = plan.parties.filter((p) => p.kind === 'org');
  const byParty = new Map<string, { email?: string; phone?: string }>();
  for (const c of plan.channels) {
    const entry = byParty.get(c.partyId) ?? {};
    if (c.ck.kind === 'email' && !entry.email) entry.email = c.ck.value;
    if (c.ck.kind === 'phone' && !entry.phone) entry.phone = c.ck.key;
    byParty.set(c.partyId, entry);
  }
  const withEmail = loners.filter((p) => byParty.get(p.id)?.email);
  const withPhone = loners.filter((p) => byParty.get(p.id)?.phone);
  const out: Record<Kind, Query[]> = { typo: [], prefix: [], email: [], phone: [], duplicatesOf: [] };
  for (let i = 0; i < n; i++) {
    const p = pick(r, loners);
    const given = r() < 0.5 ? unaccented(p.given!) : p.given!;
    const family = r() < 0.5 ? unaccented(p.family!) : p.family!;
    const typed = family.replace(/[-' ]/g, '').length >= 4 ? `${given} ${typo(r, family)}` : `${typo(r, given)} ${family}`;
    out.typo.push({ params: { q: r() < 0.5 ? typed.toLowerCase() : typed }, expect: p.id });
    const word = pick(r, [...p.family!.split(/[- ]/), p.given!]).replace(/'/g, '');
    const prefix = word.slice(0, Math.min(word.length, 3 + Math.floor(r() * 3)));
    out.prefix.push({ params: { q: r() < 0.7 ? prefix.toLowerCase() : prefix }, prefix: ascii(prefix) });
    const e = pick(r, withEmail);
    const email = byParty.get(e.id)!.email!;
    out.email.push({ params: { q: r() < 0.3 ? email.toUpperCase() : email }, expect: e.id });
    const ph = pick(r, withPhone);
    out.phone.push({ params: { q: phoneAsTyped(byParty.get(ph.id)!.phone!, r) }, expect: ph.id });
    const d = r();
    if (d < 0.5) {
      const [a, b] = pick(r, plan.twins);
      out.duplicatesOf.push({ params: { duplicatesOf: a }, expect: b });
    } else out.duplicatesOf.push({ params: { duplicatesOf: d < 0.85 ? pick(r, loners).id : pick(r, orgs).id } });
  }
  return out;
}

interface Hit {
  party: { id: string; displayName: string };
}

/** Whether an answer holds what the query was after. */
function found(query: Query, hits: readonly Hit[]): boolean {
  if (query.expect) return hits.some((h) => h.party.id === query.expect);
  if (query.prefix) return hits.some((h) => h.party.displayName.split(/[\s-]+/).some((w) => ascii(w).startsWith(query.prefix!)));
  return true;
}

export interface KindFigures {
  http?: Latencies;
  inProcess: Latencies;
  /** The embedded (PGlite) product figure: the whole in-process call, key check included. */
  call?: Latencies;
  found: number;
  samples: number;
}

async function post(ctx: BenchContext, org: BenchOrg, params: unknown): Promise<Hit[]> {
  const res = await fetch(`${ctx.baseUrl}/api/v1/directory.search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ params }),
  });
  const body = (await res.json()) as any;
  if (res.status !== 200 || !body.ok) throw new Error(`directory.search ${JSON.stringify(params)}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.result.hits;
}

const inProcess = async (runtime: Runtime, principal: Principal, params: unknown): Promise<Hit[]> =>
  ((await runtime.pipeline.readAs(principal, 'directory.search', params)) as { hits: Hit[] }).hits;

/** Each kind over HTTP, then in process; warm-up first (connections, plans, the index pages). */
async function measurePostgres(ctx: BenchContext, org: BenchOrg, runtime: Runtime, queries: Record<Kind, Query[]>): Promise<Record<Kind, KindFigures>> {
  const principal = await runtime.pipeline.principalFor(org.key);
  const out = {} as Record<Kind, KindFigures>;
  for (const kind of KINDS) {
    const list = queries[kind];
    for (let i = 0; i < 10; i++) await post(ctx, org, list[i % list.length].params);
    let hits = 0;
    const http = await latencies(list.length, async (i) => {
      if (found(list[i], await post(ctx, org, list[i].params))) hits++;
    });
    const direct = await latencies(list.length, async (i) => {
      await inProcess(runtime, principal, list[i].params);
    });
    out[kind] = { http, inProcess: direct, found: hits, samples: list.length };
    log(
      `11. ${kind}: HTTP p50 ${http.p50Ms.toFixed(1)} p95 ${http.p95Ms.toFixed(1)} ms, in process p95 ${direct.p95Ms.toFixed(1)} ms; ${hits}/${list.length} found`,
    );
  }
  return out;
}

export interface PgliteFigures {
  parties: number;
  seedMs: number;
  kinds: Record<Kind, KindFigures>;
}

/** The same searches on embedded PGlite (in memory, in this process) at a tenth of the size. */
async function measurePglite(samples: number): Promise<PgliteFigures> {
  const runtime = await createRuntime({ inMemory: true });
  try {
    const created = await runtime.db.tx((q) =>
      createOrg(q, { slug: 'bench-directory-pglite', name: 'Bench directory (PGlite)', parentOrgId: null, createdBy: '' }),
    );
    const { principal_id: actor } = one(
      await runtime.db.query<{ principal_id: string }>('SELECT principal_id FROM api_keys WHERE org_id = $1 AND key_id = $2', [
        created.orgId,
        created.admin.keyId,
      ]),
    );
    const started = performance.now();
    const plan = planDirectory(PERSONS / 10, ORGS / 10, 11);
    await insertDirectory(runtime.db, created.orgId, actor, plan);
    const seedMs = performance.now() - started;
    const queries = searchQueries(plan, samples, 13);
    const principal = await runtime.pipeline.principalFor(created.admin.apiKey);
    const call = async (params: unknown): Promise<Hit[]> => {
      const outcome = await runtime.pipeline.call({ method: 'directory.search', params, apiKey: created.admin.apiKey });
      if (outcome.status !== 200 || !outcome.frame.ok) throw new Error(`PGlite directory.search: ${outcome.body.slice(0, 300)}`);
      return (outcome.frame.result as { hits: Hit[] }).hits;
    };
    const kinds = {} as Record<Kind, KindFigures>;
    for (const kind of KINDS) {
      const list = queries[kind];
      for (let i = 0; i < 5; i++) await call(list[i % list.length].params);
      let hits = 0;
      const whole = await latencies(list.length, async (i) => {
        if (found(list[i], await call(list[i].params))) hits++;
      });
      const direct = await latencies(list.length, async (i) => {
        await inProcess(runtime, principal, list[i].params);
      });
      kinds[kind] = { call: whole, inProcess: direct, found: hits, samples: list.length };
      log(
        `11. PGlite ${kind}: p50 ${whole.p50Ms.toFixed(1)} p95 ${whole.p95Ms.toFixed(1)} ms (handler alone p95 ${direct.p95Ms.toFixed(1)}); ${hits}/${list.length} found`,
      );
    }
    return { parties: plan.parties.length, seedMs, kinds };
  } finally {
    await runtime.close();
  }
}

const TARGETS: Record<Kind, number> = { typo: 50, prefix: 50, email: 50, phone: 50, duplicatesOf: 100 };
const PGLITE_TARGETS: Record<Kind, number> = { typo: 250, prefix: 250, email: 250, phone: 250, duplicatesOf: 100 };
const LABELS: Record<Kind, string> = { typo: 'fuzzy name, typo', prefix: 'prefix', email: 'email key', phone: 'phone key', duplicatesOf: 'duplicatesOf' };

/** 11: the directory figures, each against its target (docs/performance.md). */
export async function directoryStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-directory`);
  log(`11. directory: planning and inserting ${PERSONS + ORGS} parties (${PERSONS} persons, ${ORGS} organisations), then ANALYZE`);
  const started = performance.now();
  const plan = planDirectory(PERSONS, ORGS);
  await insertDirectory(ctx.db, org.orgId, org.actor, plan);
  const seedMs = performance.now() - started;
  log(
    `11. seeded in ${seedMs.toFixed(0)} ms: ${plan.channels.length} channels, ${plan.links.length} works_at links, ${plan.twins.length} persons entered twice`,
  );
  const runtime = await createRuntime({ databaseUrl: run.url, poolSize: 4 });
  let postgres: Record<Kind, KindFigures>;
  let merges: MergeFigures;
  try {
    postgres = await measurePostgres(ctx, org, runtime, searchQueries(plan, SAMPLES));
    log('11. executeMerge of pairs with a few references each');
    merges = await mergeFigures(ctx, org, plan);
  } finally {
    await runtime.close();
  }
  log(`11. PGlite in this process: ${(PERSONS + ORGS) / 10} parties`);
  const pglite = await measurePglite(PGLITE_SAMPLES);
  run.raw.directory = { parties: plan.parties.length, seedMs, postgres, merges, pglite };

  const parties = `${((PERSONS + ORGS) / 1000).toFixed(0)}k`;
  for (const kind of KINDS) {
    const f = postgres[kind];
    const scenario = `11 directory.search ${LABELS[kind]}, ${parties}`;
    run.rows.push(
      {
        scenario,
        metric: 'p50',
        unit: 'ms',
        product: f.http!.p50Ms,
        baseline: f.inProcess.p50Ms,
        baselineLabel: 'in process',
        ratio: f.http!.p50Ms / f.inProcess.p50Ms,
        target: '',
        met: null,
      },
      {
        scenario,
        metric: 'p95',
        unit: 'ms',
        product: f.http!.p95Ms,
        baseline: f.inProcess.p95Ms,
        baselineLabel: 'in process',
        ratio: f.http!.p95Ms / f.inProcess.p95Ms,
        target: `<= ${TARGETS[kind]} ms`,
        met: f.http!.p95Ms <= TARGETS[kind],
      },
    );
  }
  for (const kind of KINDS) {
    const f = pglite.kinds[kind];
    run.rows.push({
      scenario: `11 PGlite search ${LABELS[kind]}, ${pglite.parties / 1000}k`,
      metric: 'p95',
      unit: 'ms',
      product: f.call!.p95Ms,
      baseline: f.inProcess.p95Ms,
      baselineLabel: 'handler alone',
      ratio: f.call!.p95Ms / f.inProcess.p95Ms,
      target: `<= ${PGLITE_TARGETS[kind]} ms`,
      met: f.call!.p95Ms <= PGLITE_TARGETS[kind],
    });
  }
  const worst = Math.max(...merges.pairs.map((p) => p.httpMs));
  run.rows.push({
    scenario: `11 executeMerge, ${parties} parties`,
    metric: `worst of ${merges.pairs.length}`,
    unit: 'ms',
    product: worst,
    baseline: null,
    baselineLabel: '',
    ratio: null,
    target: 'pair rows only',
    met: merges.pairs.every((p) => p.foreignRows === 0),
  });
}
