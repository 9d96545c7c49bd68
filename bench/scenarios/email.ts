import path from 'node:path';
import { one } from '../../db/types.js';
import { encodeCursor } from '../../domain/core/cursor.js';
import { createOrgs, rpc, type BenchContext, type BenchOrg } from '../fixture.js';
import { latencies, percentile, type Latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import { freePort, startServer } from '../server.js';
import type { BenchRun } from '../steps.js';
import { rng } from './directory-names.js';
import { EMAIL_GINS, ingest, INGEST_APP, pendingLists, type Ingest } from './email-ingest.js';
import { seedEmail, type EmailSeed } from './email-seed.js';
import { seedMembers } from './people.js';

/*
 * The email targets (docs/families/email.md, performance): a page of the Inbox or of a folder's threads under
 * 100 ms p95 at 100k threads, search under 300 ms p95 over 1M messages, and ingest of at least 20 messages a second
 * on 2 cores. The mail is inserted in bulk (email-seed.ts); every read is one request at a time against the real
 * server, as a member of the mailbox; ingest goes through the real SMTP listener (smtp-server, SPF/DKIM/DMARC,
 * receiveMessage) of a second server process on the same database, fed by nodemailer.
 */

const THREADS = Number(process.env.BENCH_EMAIL_THREADS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_EMAIL_MESSAGES ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_EMAIL_SAMPLES ?? 200);
const INGEST = Number(process.env.BENCH_EMAIL_INGEST ?? 400);
/** SMTP connections sending at once (a relay's usual few). */
const SENDERS = 8;
/**
 * Where the ingesting server looks up SPF, DKIM and DMARC (its EMAIL_SMTP_DNS): `none` (default) answers offline at
 * once, so the figure is the server's own; `system` uses the machine's resolver, as a default install does.
 */
const DNS = process.env.BENCH_EMAIL_DNS ?? 'none';
/** `on` or `off`: set fastupdate on the email GINs before measuring (unset: as the migrations leave them). */
const FASTUPDATE = process.env.BENCH_EMAIL_GIN_FASTUPDATE;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** What people search a mailbox for: two words, a phrase, an exclusion, a rare word, with an operator. */
const SEARCHES = ['invoice overdue', '"contract renewal"', 'refund -warranty', 'quarterly report budget', 'kalo', 'from:company7.example payment'];

type Read = 'inbox' | 'inbox unread' | 'threads' | 'threads deep page' | 'archive' | 'thread' | 'search';
/** Targets in ms; one thread read (10 messages with quoted text collapsed) has none. */
const TARGETS: Record<Read, number | null> = {
  inbox: 100,
  'inbox unread': 100,
  threads: 100,
  'threads deep page': 100,
  archive: 100,
  thread: null,
  search: 300,
};

async function deepCursors(ctx: BenchContext, org: BenchOrg, seed: EmailSeed): Promise<string[]> {
  const rows = await ctx.db.query<{ at: string; thread_id: string }>(
    `SELECT last_message_at::text AS at, thread_id FROM email_thread_folders WHERE org_id = $1 AND folder_id = $2 ORDER BY random() LIMIT $3`,
    [org.orgId, seed.folders.inbox, SAMPLES],
  );
  return rows.map((r) => encodeCursor([new Date(r.at).toISOString(), r.thread_id]));
}

function paramsOf(kind: Read, i: number, seed: EmailSeed, cursors: readonly string[], r: () => number): [string, Record<string, unknown>] {
  const mailboxId = seed.mailboxId;
  switch (kind) {
    case 'inbox':
      return ['email.inbox', { limit: 50 }];
    case 'inbox unread':
      return ['email.inbox', { unreadOnly: true, limit: 50 }];
    case 'threads':
      return ['email.threads', { mailboxId, limit: 50 }];
    case 'threads deep page':
      return ['email.threads', { mailboxId, cursor: cursors[i % cursors.length], limit: 50 }];
    case 'archive':
      return ['email.threads', { mailboxId, folderId: seed.folders.archive, limit: 50 }];
    case 'thread':
      return ['email.thread', { threadId: seed.threadIds[Math.floor(r() * seed.threadIds.length)] }];
    case 'search':
      return ['email.messages', { query: SEARCHES[i % SEARCHES.length], limit: 20 }];
  }
}

async function measure(ctx: BenchContext, org: BenchOrg, seed: EmailSeed): Promise<Record<Read, Latencies & { meanItems: number }>> {
  const out = {} as Record<Read, Latencies & { meanItems: number }>;
  const cursors = await deepCursors(ctx, org, seed);
  for (const kind of Object.keys(TARGETS) as Read[]) {
    const r = rng(14);
    const calls = Array.from({ length: SAMPLES }, (_, i) => paramsOf(kind, i, seed, cursors, r));
    for (let i = 0; i < 10; i++) await rpc(ctx.baseUrl, org.key, ...calls[i]);
    let items = 0;
    // Search mixes six queries: each one's own figures too, so a slow one is named.
    const byQuery = new Map<string, number[]>();
    const figures = await latencies(SAMPLES, async (i) => {
      const t = performance.now();
      const { body } = await rpc(ctx.baseUrl, org.key, ...calls[i]);
      const query = (calls[i][1] as { query?: string }).query;
      if (query !== undefined) byQuery.set(query, [...(byQuery.get(query) ?? []), performance.now() - t]);
      items += (body.result.threads ?? body.result.messages ?? []).length;
    });
    out[kind] = { ...figures, meanItems: items / SAMPLES };
    log(`15. ${kind}: p50 ${figures.p50Ms.toFixed(1)} p95 ${figures.p95Ms.toFixed(1)} ms; ${(items / SAMPLES).toFixed(1)} items an answer`);
    for (const [query, ms] of byQuery) {
      ms.sort((a, b) => a - b);
      log(`15.   ${JSON.stringify(query)}: p50 ${percentile(ms, 50).toFixed(1)} p95 ${percentile(ms, 95).toFixed(1)} ms (${ms.length} samples)`);
    }
    if (items === 0) throw new Error(`${calls[0][0]} ${kind}: every answer was empty; the seed is not what the read looks for`);
  }
  return out;
}

/** Search alone, as measure() runs it: the six queries in turn. */
async function measureSearch(ctx: BenchContext, org: BenchOrg): Promise<Latencies> {
  return latencies(SAMPLES, async (i) => {
    await rpc(ctx.baseUrl, org.key, 'email.messages', { query: SEARCHES[i % SEARCHES.length], limit: 20 });
  });
}

/** 15: email at 100k threads and 1M messages, and inbound SMTP ingest (docs/families/email.md, performance). */
export async function emailStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-email`);
  // The caller (the org's admin key) reads as a member of the mailbox; an agent's seat needs a human owner beside it.
  const { kind } = one(await ctx.db.query<{ kind: string }>('SELECT kind FROM principals WHERE org_id = $1 AND principal_id = $2', [org.orgId, org.actor]));
  const seats: { principalId: string; role: 'owner' | 'agent' }[] =
    kind === 'human'
      ? [{ principalId: org.actor, role: 'owner' }]
      : [{ principalId: (await seedMembers(ctx.db, org, 1, () => null, 'eml')).ids[0], role: 'owner' }];
  if (kind !== 'human') seats.push({ principalId: org.actor, role: 'agent' });
  const address = `support-${ctx.runId}@bench.example`;
  log(`15. email: inserting ${THREADS} threads and ${MESSAGES} messages in one mailbox, then ANALYZE`);
  const seed = await seedEmail(ctx.db, org.orgId, { address, seats, threads: THREADS, messages: MESSAGES });
  log(`15. seeded ${seed.threads} threads, ${seed.messages} messages in ${seed.seedMs.toFixed(0)} ms`);
  if (FASTUPDATE === 'on' || FASTUPDATE === 'off') {
    for (const index of EMAIL_GINS) await ctx.db.query(`ALTER INDEX ${index} SET (fastupdate = ${FASTUPDATE})`);
    log(`15. fastupdate ${FASTUPDATE} on ${EMAIL_GINS.join(', ')}`);
  }
  const fastupdate = await ctx.db.query<{ index: string; options: string[] | null }>(
    `SELECT c.relname AS index, c.reloptions AS options FROM pg_class c WHERE c.relname = ANY($1::text[]) ORDER BY 1`,
    [EMAIL_GINS],
  );
  const reads = await measure(ctx, org, seed);

  log(`15. ingest: a second server process with the SMTP listener; ${INGEST} messages on ${SENDERS} connections, then ${INGEST / 4} on one`);
  const port = await freePort();
  const second = await startServer({
    env: {
      DATABASE_URL: run.url,
      PG_POOL_SIZE: String(run.serverPool),
      EMAIL_SMTP_LISTEN: `127.0.0.1:${port}`,
      PGAPPNAME: INGEST_APP,
      ...(DNS === 'system' ? {} : { EMAIL_SMTP_DNS: DNS }),
      ...(process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` } : {}),
    },
  });
  const before = Number(one(await ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM email_messages WHERE org_id = $1', [org.orgId])).n);
  let many: Ingest, single: Ingest;
  try {
    await ingest(ctx.db, port, address, 20, 2, `${ctx.runId}-warm`);
    many = await ingest(ctx.db, port, address, INGEST, SENDERS, `${ctx.runId}-many`);
    single = await ingest(ctx.db, port, address, Math.ceil(INGEST / 4), 1, `${ctx.runId}-one`);
  } finally {
    await second.stop();
  }
  const stored = Number(one(await ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM email_messages WHERE org_id = $1', [org.orgId])).n) - before;
  const sent = 20 + many.messages + single.messages;
  if (stored !== sent) throw new Error(`ingest: ${sent} messages answered 250 but ${stored} message rows were stored`);
  log(
    `15. ingest (DNS ${DNS}): ${many.perSecond.toFixed(1)} msg/s on ${SENDERS} connections (p50 ${many.p50Ms.toFixed(0)}, p95 ${many.p95Ms.toFixed(0)} ms), ` +
      `${single.perSecond.toFixed(1)} msg/s on one (p50 ${single.p50Ms.toFixed(0)}, p95 ${single.p95Ms.toFixed(0)} ms)`,
  );
  log(`15. ingest backends, ${SENDERS} connections: ${JSON.stringify(many.backends)}; one: ${JSON.stringify(single.backends)}`);
  // The ingested mail sits in the GINs' pending lists until a vacuum (or, with fastupdate off, went straight in).
  const pending = await pendingLists(ctx.db);
  const after = await measureSearch(ctx, org);
  log(`15. search after ingest: p50 ${after.p50Ms.toFixed(1)} p95 ${after.p95Ms.toFixed(1)} ms; pending lists ${JSON.stringify(pending)}`);

  run.raw.email = {
    threads: seed.threads,
    messages: seed.messages,
    seedMs: seed.seedMs,
    dns: DNS,
    fastupdate,
    reads,
    ingest: { many, single },
    searchAfterIngest: { ...after, pending },
  };
  const size = `${seed.threads / 1000}k thr/${seed.messages / 1e6}M msg`;
  for (const k of Object.keys(TARGETS) as Read[]) {
    const f = reads[k];
    const target = TARGETS[k];
    run.rows.push(latencyRow(`15 email ${k}, ${size}`, f, target));
  }
  run.rows.push(latencyRow(`15 email search after ingest, ${size}`, after, TARGETS.search));
  run.rows.push({
    scenario: `15 email SMTP ingest, ${SENDERS} conns`,
    metric: 'msg/s',
    unit: '/s',
    product: many.perSecond,
    baseline: single.perSecond,
    baselineLabel: '1 connection',
    ratio: many.perSecond / single.perSecond,
    target: '>= 20/s',
    met: many.perSecond >= 20,
  });
}
