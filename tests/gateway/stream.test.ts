import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import type { Notifier } from '../../db/notifier.js';
import type { Runtime } from '../../domain/deployed.js';
import { LEDGER_APPENDED, StreamHub, type FeedEvent } from '../../domain/stream/hub.js';
import { appendEvent } from '../../ledger/append.js';
import { one } from '../../db/types.js';
import { freshOrg, onPostgres, TestClient, testRuntime, type TestOrg } from '../helpers/harness.js';
import { openOrgStream } from '../helpers/org-stream.js';

/*
 * GET /api/v1/org/stream over a real socket (one process; PGlite or PostgreSQL as DATABASE_URL says), the hub
 * behind it, and GET /events' family and kind filters. The two-process case is tests/multiprocess/stream.test.ts.
 */

const HEARTBEAT_MS = 200;
const MAX_BUFFERED = 50;

let runtime: Runtime;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  runtime = await testRuntime({ config: { streamPollMs: 200 } });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0, stream: { heartbeatMs: HEARTBEAT_MS, maxBufferedFrames: MAX_BUFFERED } });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
});

async function org(): Promise<{ org: TestOrg; client: TestClient }> {
  const o = await freshOrg(runtime);
  return { org: o, client: new TestClient(app, o.adminKey) };
}

/** Append n events to the org straight through the ledger (the same statement every call uses), announced as calls are. */
async function append(orgId: string, n: number, kind = 'item.created', family = 'board', workers = 1): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < n) {
        const i = next++;
        const e = await runtime.db.tx((q) => appendEvent(q, orgId, { family, kind, entityId: `task_${i}`, actor: '', payload: { i } }));
        runtime.deps.stream.appended(orgId, e.seq); // as the pipeline does after every call's commit
        // As requests would: let I/O run between appends (in-memory PGlite otherwise never leaves the microtask queue).
        await new Promise((r) => setImmediate(r));
      }
    }),
  );
}

const head = async (orgId: string) => one(await runtime.db.query<{ seq: number }>('SELECT seq FROM ledger_heads WHERE org_id = $1', [orgId])).seq;

describe('GET /api/v1/org/stream', () => {
  it('refuses without a key (401) and without org.read (403)', async () => {
    const { client } = await org();
    await expect(openOrgStream(base, 'wops_not_a_key')).rejects.toMatchObject({ status: 401 });
    const noRead = await client.mint({ scopes: ['board.read'] });
    await expect(openOrgStream(base, noRead.apiKey)).rejects.toMatchObject({ status: 403, body: expect.stringContaining('org.read') });
    const { org: o } = await org();
    await expect(openOrgStream(base, o.adminKey, { query: { kind: 'Not A Kind!' } })).rejects.toMatchObject({ status: 400 });
  });

  it("frames are the org's new events, id = seq, data exactly as GET /events shows them; other orgs' never", async () => {
    const { org: o, client } = await org();
    const other = await org();
    const stream = await openOrgStream(base, o.adminKey);
    try {
      expect(stream.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await stream.until(() => stream.comments.some((c) => c.startsWith('live after')), 'live');
      const start = await head(o.orgId);
      await client.ok('board.createTask', { title: 'Stream me', priority: 'normal' });
      await other.client.ok('board.createTask', { title: 'Not mine', priority: 'normal' });
      await client.ok('board.createTask', { title: 'Stream me too', priority: 'high' });
      await stream.until(() => stream.frames.length >= 2, '2 frames');
      const page = await client.get('events', { cursor: start, limit: 10 });
      expect(stream.frames.map((f) => f.id)).toEqual([start + 1, start + 2]);
      expect(stream.frames.map((f) => f.data)).toEqual(page.body.events);
      // Byte for byte: the data line is the /events event's text (payload as hashed).
      expect(page.raw).toContain(JSON.stringify(stream.frames[0].data));
      await new Promise((r) => setTimeout(r, 300));
      expect(stream.frames).toHaveLength(2);
    } finally {
      stream.close();
    }
  });

  it("a key without a family's read scope sees none of its events, on the stream as on GET /events", async () => {
    const { client } = await org();
    const orgOnly = await client.mint({ scopes: ['org.read', 'approval.request'] });
    const stream = await openOrgStream(base, orgOnly.apiKey, { lastEventId: 0 });
    try {
      await client.ok('board.createTask', { title: 'Hidden from org.read alone', priority: 'normal' });
      const filed = await client.ok('approval.request', {
        actionClass: 'board.publish_plan',
        payloadHash: 'c'.repeat(64),
        subject: { kind: 'board.plan', subjectId: 'plan_1', summary: 'Publish plan 1' },
      });
      await stream.until(() => stream.frames.some((f) => f.data.kind === 'approval.request.create'), 'the approval');
      expect(stream.frames.find((f) => f.data.kind === 'approval.request.create')!.data.entity_id).toBe(filed.approvalId);
      expect(stream.frames.filter((f) => f.data.family === 'board')).toEqual([]);
      const all = await client.get('events', { cursor: 0, limit: 500 });
      const seen = await client.get('events', { cursor: 0, limit: 500 }, { key: orgOnly.apiKey });
      expect(all.body.events.some((e: any) => e.family === 'board')).toBe(true);
      expect(seen.body.events.some((e: any) => e.family === 'board')).toBe(false);
      expect(seen.body.events.map((e: any) => e.seq)).toEqual(stream.frames.map((f) => f.id));
      expect(seen.body.nextCursor).toBe(all.body.nextCursor);
    } finally {
      stream.close();
    }
  });

  it('Last-Event-ID (or ?after=) resumes strictly after that seq, backlog then live, with family and kind filters', async () => {
    const { org: o } = await org();
    const start = await head(o.orgId);
    await append(o.orgId, 5);
    await append(o.orgId, 2, 'approval.requested', 'approval');
    const resumed = await openOrgStream(base, o.adminKey, { lastEventId: start + 3 });
    const byQuery = await openOrgStream(base, o.adminKey, { query: { after: start + 6 } });
    const approvals = await openOrgStream(base, o.adminKey, { query: { after: start, family: 'approval' } });
    const headerWins = await openOrgStream(base, o.adminKey, { lastEventId: start + 5, query: { after: start } });
    try {
      await append(o.orgId, 1);
      await append(o.orgId, 1, 'approval.approved', 'approval');
      const end = start + 9;
      await resumed.until(() => resumed.lastId() === end, `at ${end}`);
      expect(resumed.frames.map((f) => f.id)).toEqual([4, 5, 6, 7, 8, 9].map((d) => start + d));
      await byQuery.until(() => byQuery.lastId() === end, `at ${end}`);
      expect(byQuery.frames.map((f) => f.id)).toEqual([start + 7, start + 8, start + 9]);
      await headerWins.until(() => headerWins.lastId() === end, `at ${end}`);
      expect(headerWins.frames[0].id).toBe(start + 6);
      await approvals.until(() => approvals.lastId() === end, `at ${end}`);
      expect(approvals.frames.map((f) => [f.id, f.data.kind])).toEqual([
        [start + 6, 'approval.requested'],
        [start + 7, 'approval.requested'],
        [start + 9, 'approval.approved'],
      ]);
      const kind = await openOrgStream(base, o.adminKey, { query: { after: start, kind: 'approval.approved' } });
      await kind.until(() => kind.frames.length === 1, 'one frame');
      expect(kind.frames[0].id).toBe(end);
      kind.close();
      // approval.approved was renamed approval.request.approve (protocol/events.ts): the new name finds the old event.
      const renamed = await openOrgStream(base, o.adminKey, { query: { after: start, kind: 'approval.request.approve' } });
      await renamed.until(() => renamed.frames.length === 1, 'one frame');
      expect(renamed.frames.map((f) => [f.id, f.data.kind])).toEqual([[end, 'approval.approved']]);
      renamed.close();
    } finally {
      for (const s of [resumed, byQuery, approvals, headerWins]) s.close();
    }
  });

  it('1,000 events appended while the client reconnects three times arrive exactly once each, in order', async () => {
    const { org: o } = await org();
    const start = await head(o.orgId);
    const ids: number[] = [];
    let stream = await openOrgStream(base, o.adminKey);
    const appending = append(o.orgId, 1000, 'item.created', 'board', onPostgres ? 4 : 1);
    for (const at of [150, 400, 700]) {
      await stream.until(() => ids.length + stream.frames.length >= at, `${at} frames`, 60_000);
      stream.close();
      ids.push(...stream.frames.map((f) => f.id));
      // Resume from the last id received, as EventSource does.
      stream = await openOrgStream(base, o.adminKey, { lastEventId: ids[ids.length - 1] });
    }
    await appending;
    await stream.until(() => stream.lastId() === start + 1000, 'at the end', 60_000);
    stream.close();
    ids.push(...stream.frames.map((f) => f.id));
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => start + 1 + i));
  });

  it(`heartbeats every ${HEARTBEAT_MS} ms; a revoked key's stream ends at the next one`, async () => {
    const { client } = await org();
    const minted = await client.mint({ tier: 'reader' });
    const stream = await openOrgStream(base, minted.apiKey);
    await stream.until(() => stream.comments.filter((c) => c === 'heartbeat').length >= 2, 'two heartbeats', 3000);
    await client.ok('settings.revokeApiKey', { keyId: minted.keyId });
    await stream.ended;
    expect(stream.comments.at(-1)).toMatch(/^end: the key is no longer valid/);
  });

  it(`a client that stops reading is let go once ${MAX_BUFFERED} frames behind; it resumes with Last-Event-ID`, async () => {
    const { org: o } = await org();
    const start = await head(o.orgId);
    const slow = await openOrgStream(base, o.adminKey, { pauseAfter: 1 });
    // Big payloads (ids only) so the socket's buffers fill: 1,500 events of about 16 kB, 100 to a transaction.
    const ids = Array.from({ length: 800 }, (_, i) => `item_${String(i).padStart(12, '0')}`);
    for (let t = 0; t < 15; t++) {
      const last = await runtime.db.tx(async (q) => {
        let e = await appendEvent(q, o.orgId, { family: 'board', kind: 'item.linked', entityId: 'x', actor: '', payload: { ids } });
        for (let i = 1; i < 100; i++) e = await appendEvent(q, o.orgId, { family: 'board', kind: 'item.linked', entityId: 'x', actor: '', payload: { ids } });
        return e;
      });
      runtime.deps.stream.appended(o.orgId, last.seq);
      await new Promise((r) => setImmediate(r));
    }
    const total = 1500;
    slow.res.resume();
    await slow.ended;
    expect(slow.comments.at(-1)).toBe(`end: more than ${MAX_BUFFERED} frames behind; reconnect with Last-Event-ID to resume`);
    const got = slow.frames.map((f) => f.id);
    expect(got.length).toBeLessThan(total);
    const again = await openOrgStream(base, o.adminKey, { lastEventId: slow.lastId() });
    await again.until(() => again.lastId() === start + total, 'the rest', 60_000);
    again.close();
    expect([...got, ...again.frames.map((f) => f.id)]).toEqual(Array.from({ length: total }, (_, i) => start + 1 + i));
  });
});

describe('the hub', () => {
  /** The runtime's notifier, but the other processes' wake-ups never arrive: what a lost notification looks like. */
  const deaf = (n: Notifier): Notifier => ({
    ...n,
    subscribe: (topic, onMessage, onResync) => n.subscribe(topic, topic === LEDGER_APPENDED ? () => {} : onMessage, onResync),
  });

  it('a lost notification delays a frame until the head poll, never loses it', async () => {
    const hub = new StreamHub(runtime.db, deaf(runtime.deps.notifier), { pollMs: 250 });
    const { org: o } = await org();
    const got: number[] = [];
    const sub = await hub.subscribe(o.orgId, undefined, (events) => void got.push(...events.map((e) => e.row.seq)));
    try {
      const start = await head(o.orgId);
      const t0 = performance.now();
      await append(o.orgId, 3);
      while (got.length < 3 && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(got).toEqual([start + 1, start + 2, start + 3]);
    } finally {
      sub.close();
      await hub.close();
    }
  });

  it('1,000 subscribers of one org cost one read per wake-up, not 1,000', async () => {
    const hub = new StreamHub(runtime.db, runtime.deps.notifier, { pollMs: 60_000 });
    const { org: o } = await org();
    const counts = new Array<number>(1000).fill(0);
    const subs = await Promise.all(counts.map((_, i) => hub.subscribe(o.orgId, undefined, (ev: readonly FeedEvent[]) => void (counts[i] += ev.length))));
    try {
      const before = hub.feedReads;
      for (let i = 0; i < 5; i++) {
        // This hub is not the runtime's: it is told of the append as the pipeline tells its own.
        const e = await runtime.db.tx((q) =>
          appendEvent(q, o.orgId, { family: 'board', kind: 'item.created', entityId: `task_${i}`, actor: '', payload: { i } }),
        );
        hub.appended(o.orgId, e.seq);
        const t0 = performance.now();
        while (counts.some((c) => c < i + 1) && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
      }
      expect(counts.every((c) => c === 5)).toBe(true);
      // One read per append (and at most the one look the feed takes when it opens).
      expect(hub.feedReads - before).toBeLessThanOrEqual(6);
    } finally {
      for (const s of subs) s.close();
      await hub.close();
    }
  });
});

describe('GET /events family and kind filters', () => {
  it('keep only matching events; nextCursor is the last seq scanned, so an empty filtered page still moves on', async () => {
    const { org: o, client } = await org();
    const start = await head(o.orgId);
    await append(o.orgId, 4);
    await append(o.orgId, 1, 'approval.requested', 'approval');
    await append(o.orgId, 3);
    const end = start + 8;
    const approvals = await client.get('events', { cursor: start, family: 'approval' });
    expect(approvals.status).toBe(200);
    expect(approvals.body.events.map((e: any) => e.seq)).toEqual([start + 5]);
    expect(approvals.body.nextCursor).toBe(end);
    const byKind = await client.get('events', { cursor: start, kind: 'item.created', limit: 2 });
    expect(byKind.body.events.map((e: any) => e.seq)).toEqual([start + 1, start + 2]);
    expect(byKind.body.nextCursor).toBe(start + 2); // the page filled: the next starts after its last event
    const none = await client.get('events', { cursor: start, kind: 'approval.request.approve' });
    expect(none.body).toEqual({ events: [], nextCursor: end });
    const atEnd = await client.get('events', { cursor: end, family: 'board' });
    expect(atEnd.body).toEqual({ events: [], nextCursor: end });
    // Unfiltered, the page is as before.
    const plain = await client.get('events', { cursor: start, limit: 3 });
    expect(plain.body.events.map((e: any) => e.seq)).toEqual([start + 1, start + 2, start + 3]);
    expect(plain.body.nextCursor).toBe(start + 3);
    const bad = await client.get('events', { cursor: 0, family: 'Board!' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/family/);
  });
});
