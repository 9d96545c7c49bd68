import nodemailer from 'nodemailer';
import { one } from '../../db/types.js';
import { encodeCursor } from '../../domain/core/cursor.js';
import { createOrgs, rpc, type BenchContext, type BenchOrg } from '../fixture.js';
import { latencies, percentile, type Latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import { freePort, startServer } from '../server.js';
import type { BenchRun } from '../steps.js';
import { rng } from './directory-names.js';
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

interface Ingest {
  messages: number;
  connections: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
}

/** `n` messages through the SMTP listener on `connections` connections: messages a second, and each one's time to 250. */
async function ingest(port: number, to: string, n: number, connections: number, tag: string): Promise<Ingest> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections });
  const body = 'Hello, please find the invoice for the quarterly order below; the payment is overdue since last month. '.repeat(12);
  const ms: number[] = [];
  let next = 0;
  const started = performance.now();
  try {
    const worker = async () => {
      for (let i = next++; i < n; i = next++) {
        const t = performance.now();
        // Every fourth a reply to the one before (threaded by In-Reply-To), as a customer's thread goes.
        await transport.sendMail({
          from: `Person ${i % 500} <person${i % 500}@company${i % 50}.example>`,
          to,
          subject: `Order ${tag}-${i - (i % 4)} question`,
          messageId: `<${tag}-${i}@company${i % 50}.example>`,
          ...(i % 4 ? { inReplyTo: `<${tag}-${i - 1}@company${(i - 1) % 50}.example>` } : {}),
          text: `${body}\nOrder ${i}`,
        });
        ms.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    transport.close();
  }
  const seconds = (performance.now() - started) / 1000;
  ms.sort((a, b) => a - b);
  return { messages: n, connections, perSecond: n / seconds, p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95) };
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
  const reads = await measure(ctx, org, seed);

  log(`15. ingest: a second server process with the SMTP listener; ${INGEST} messages on ${SENDERS} connections, then ${INGEST / 4} on one`);
  const port = await freePort();
  const second = await startServer({ env: { DATABASE_URL: run.url, PG_POOL_SIZE: String(run.serverPool), EMAIL_SMTP_LISTEN: `127.0.0.1:${port}` } });
  const before = Number(one(await ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM email_messages WHERE org_id = $1', [org.orgId])).n);
  let many: Ingest, single: Ingest;
  try {
    await ingest(port, address, 20, 2, `${ctx.runId}-warm`);
    many = await ingest(port, address, INGEST, SENDERS, `${ctx.runId}-many`);
    single = await ingest(port, address, Math.ceil(INGEST / 4), 1, `${ctx.runId}-one`);
  } finally {
    await second.stop();
  }
  const stored = Number(one(await ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM email_messages WHERE org_id = $1', [org.orgId])).n) - before;
  const sent = 20 + many.messages + single.messages;
  if (stored !== sent) throw new Error(`ingest: ${sent} messages answered 250 but ${stored} message rows were stored`);
  log(
    `15. ingest: ${many.perSecond.toFixed(1)} msg/s on ${SENDERS} connections (p95 ${many.p95Ms.toFixed(0)} ms), ${single.perSecond.toFixed(1)} msg/s on one`,
  );

  run.raw.email = { threads: seed.threads, messages: seed.messages, seedMs: seed.seedMs, reads, ingest: { many, single } };
  const size = `${seed.threads / 1000}k thr/${seed.messages / 1e6}M msg`;
  for (const k of Object.keys(TARGETS) as Read[]) {
    const f = reads[k];
    const target = TARGETS[k];
    run.rows.push(latencyRow(`15 email ${k}, ${size}`, f, target));
  }
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
