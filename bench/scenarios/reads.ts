import { eventsPageJson, readEvents, readSnapshot } from '../../ledger/read.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { rowHashInput, sha256Hex } from '../../protocol/hashing.js';
import type { BenchContext, BenchOrg } from '../fixture.js';
import { closedLoop, httpLoad, type Throughput } from '../measure.js';

const CHUNK = 5000;

/** The seeded event at `seq`: its columns and the exact text its row_hash is the SHA-256 of. */
export function seededRow(prev: string, seq: number, actor: string): { entity: string; at: string; payload: string; input: string } {
  const entity = `task_bench${String(seq).padStart(12, '0')}`;
  const at = new Date(Date.UTC(2026, 0, 1) + seq).toISOString();
  const payload = `{"col":"triage","parentId":null,"priority":"normal","title":"Seeded task ${seq}","type":"task","workstreamId":null}`;
  return { entity, at, payload, input: rowHashInput(prev, { seq, family: 'board', kind: 'item.created', entity_id: entity, actor, at }, payload) };
}

/**
 * Give the org a chain of `total` events. The bench computes the chain itself (same canonical text and
 * SHA-256 as ledger/append.ts) and inserts it in bulk, because appending 100k events one call at a time
 * would take most of the bench's time budget; the result is checked with ledger/verify.ts before use.
 */
export interface SeededChain {
  seedMs: number;
  verifyMs: number | null;
  /** The head the seeded events were chained after. */
  afterSeq: number;
  afterHash: string;
}

export async function seedChain(ctx: BenchContext, org: BenchOrg, total: number, opts: { verify?: boolean } = {}): Promise<SeededChain> {
  const started = performance.now();
  const { head } = await readSnapshot(ctx.db, org.orgId);
  let seq = head.seq;
  let prev = head.rowHash;
  const after = { afterSeq: seq, afterHash: prev };
  const last = seq + total;
  while (seq < last) {
    const cols = { seq: [] as number[], entity: [] as string[], at: [] as string[], payload: [] as string[], prev: [] as string[], hash: [] as string[] };
    const end = Math.min(last, seq + CHUNK);
    for (let s = seq + 1; s <= end; s++) {
      const { entity, at, payload, input } = seededRow(prev, s, org.actor);
      const hash = sha256Hex(input);
      cols.seq.push(s);
      cols.entity.push(entity);
      cols.at.push(at);
      cols.payload.push(payload);
      cols.prev.push(prev);
      cols.hash.push(hash);
      prev = hash;
    }
    await ctx.db.tx(async (q) => {
      await q.query(
        `INSERT INTO events (org_id, seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash)
         SELECT $1, s, 'board', 'item.created', e, $2, a, p, ph, rh
           FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS t(s, e, a, p, ph, rh)`,
        [org.orgId, org.actor, cols.seq, cols.entity, cols.at, cols.payload, cols.prev, cols.hash],
      );
      await q.query('UPDATE ledger_heads SET seq = $2, row_hash = $3 WHERE org_id = $1', [org.orgId, end, prev]);
    });
    seq = end;
  }
  const seedMs = performance.now() - started;
  await ctx.db.query('ANALYZE events');
  if (opts.verify === false) return { seedMs, verifyMs: null, ...after };
  const v0 = performance.now();
  const verdict = await verifyOrgChain(ctx.db, org.orgId);
  if (!verdict.ok) throw new Error(`seeded chain does not verify: ${verdict.break.message}`);
  return { seedMs, verifyMs: performance.now() - v0, ...after };
}

export interface PagingResult {
  eventsPerSecond: number;
  events: number;
  pages: number;
  /** Each pass timed separately; the figure is the median pass. */
  passesMs: number[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function pageAll(fetchPage: (cursor: number) => Promise<{ count: number; nextCursor: number }>, passes: number): Promise<PagingResult> {
  const passesMs: number[] = [];
  let events = 0;
  let pages = 0;
  for (let p = 0; p < passes; p++) {
    const t = performance.now();
    let cursor = 0;
    events = 0;
    pages = 0;
    for (;;) {
      const page = await fetchPage(cursor);
      pages++;
      events += page.count;
      if (page.count === 0) break;
      cursor = page.nextCursor;
    }
    passesMs.push(performance.now() - t);
  }
  return { eventsPerSecond: events / (median(passesMs) / 1000), events, pages, passesMs };
}

/** One client paging GET /events to the end (parsing each page), against the same queries and page JSON built directly. */
export async function pageEventsOverHttp(ctx: BenchContext, org: BenchOrg, limit: number, passes: number): Promise<PagingResult> {
  return pageAll(async (cursor) => {
    const res = await fetch(`${ctx.baseUrl}/api/v1/events?cursor=${cursor}&limit=${limit}`, { headers: { authorization: `Bearer ${org.key}` } });
    if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { events: unknown[]; nextCursor: number };
    return { count: body.events.length, nextCursor: body.nextCursor };
  }, passes);
}

export async function pageEventsDirectSql(ctx: BenchContext, org: BenchOrg, limit: number, passes: number): Promise<PagingResult> {
  return pageAll(async (cursor) => {
    const rows = await readEvents(ctx.db, org.orgId, cursor, limit);
    const body = JSON.parse(eventsPageJson(rows, cursor)) as { events: unknown[]; nextCursor: number };
    return { count: body.events.length, nextCursor: body.nextCursor };
  }, passes);
}

export async function snapshotOverHttp(ctx: BenchContext): Promise<Throughput> {
  return httpLoad(
    ctx.baseUrl,
    { method: 'GET', path: '/api/v1/snapshot', build: (i) => ({ headers: { authorization: `Bearer ${ctx.orgs[i % ctx.orgs.length].key}` } }) },
    { connections: ctx.connections, seconds: ctx.seconds },
  );
}

export async function snapshotDirectSql(ctx: BenchContext): Promise<Throughput> {
  return closedLoop(
    async (i) => {
      await readSnapshot(ctx.db, ctx.orgs[i % ctx.orgs.length].orgId);
    },
    { workers: ctx.connections, seconds: ctx.seconds },
  );
}
