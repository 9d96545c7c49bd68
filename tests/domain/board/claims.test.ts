import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING } from './setup.js';
import { eventsAfter, expectOk, head, mutate, otherOrg, refused } from '../../helpers/calls.js';
import { newTask } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let other: TestClient;
let me: string;
/** A second worker of the same org (agent tier: board.work). */
let agent: { apiKey: string; id: string };

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  other = await otherOrg(s);
  me = (await c.get('org/whoami')).body.principal.id;
  const minted = await c.mint({ tier: 'agent' }, 'worker');
  agent = { apiKey: minted.apiKey, id: minted.principal.id };
});
afterAll(() => s.close());

/** Let a claim's lease run out (as if its holder stopped heart-beating). */
const lapse = (taskId: string) =>
  s.runtime.db.query(`UPDATE board_tasks SET claim_expires_at = now() - interval '1 second' WHERE task_id = $1 AND claimed_by IS NOT NULL`, [taskId]);

const secondsUntil = (iso: string) => (Date.parse(iso) - Date.now()) / 1000;

describe('board.claim', () => {
  it('claims for the default lease, moves to doing, appends item.claimed', async () => {
    const t = await newTask(c);
    const { result, event } = await mutate(c, 'board.claim', { taskId: t.id }, 'item.claimed', { entityId: () => t.id });
    expect(result).toMatchObject({ id: t.id, col: 'doing', claimedBy: me });
    expect(secondsUntil(result.claimExpiresAt)).toBeGreaterThan(880);
    expect(secondsUntil(result.claimExpiresAt)).toBeLessThanOrEqual(901);
    expect(event.payload).toEqual({ claimedBy: me, claimExpiresAt: result.claimExpiresAt, leaseSeconds: 900 });
  });

  it('takes a custom lease', async () => {
    const t = await newTask(c);
    const r = await c.ok('board.claim', { taskId: t.id, leaseSeconds: 60 });
    expect(secondsUntil(r.claimExpiresAt)).toBeGreaterThan(40);
    expect(secondsUntil(r.claimExpiresAt)).toBeLessThanOrEqual(61);
  });

  it('a second claim on a claimed item -> CONFLICT, whoever asks', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id }, { key: agent.apiKey });
    await refused(c, 'board.claim', { taskId: t.id }, 'CONFLICT', { message: new RegExp(`already claimed by ${agent.id} until`) });
    await refused(c, 'board.claim', { taskId: t.id }, 'CONFLICT', { message: /already claimed by you/, key: agent.apiKey });
  });

  it('a lapsed claim can be taken over', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id }, { key: agent.apiKey });
    await lapse(t.id);
    const ctx = await c.get('board.context', { taskId: t.id });
    expect(ctx.body.task.claimedBy).toBeNull();
    const { result } = await mutate(c, 'board.claim', { taskId: t.id }, 'item.claimed');
    expect(result.claimedBy).toBe(me);
  });

  it('done, blocked, non-work items and items blocked by an open item -> CONFLICT', async () => {
    const done = await newTask(c);
    await c.ok('board.complete', { taskId: done.id });
    await refused(c, 'board.claim', { taskId: done.id }, 'CONFLICT', { message: /is done/ });

    const blocked = await newTask(c);
    await c.ok('board.block', { taskId: blocked.id, reason: 'vendor' });
    await refused(c, 'board.claim', { taskId: blocked.id }, 'CONFLICT', { message: /is blocked \(vendor\)/ });

    const note = await c.ok('board.create', { type: 'note', title: 'n' });
    await refused(c, 'board.claim', { taskId: note.id }, 'CONFLICT', { message: /is a note; only task and bug items can be claimed/ });

    const blocker = await newTask(c);
    const waiting = await newTask(c);
    await c.ok('board.link', { fromTaskId: blocker.id, toTaskId: waiting.id, relation: 'blocks' });
    await refused(c, 'board.claim', { taskId: waiting.id }, 'CONFLICT', { message: new RegExp(`blocked by open item ${blocker.id}`) });
    await c.ok('board.complete', { taskId: blocker.id });
    expect((await c.ok('board.claim', { taskId: waiting.id })).claimedBy).toBe(me);

    const bug = await c.ok('board.create', { type: 'bug', title: 'b' });
    expect((await c.ok('board.claim', { taskId: bug.id })).col).toBe('doing');
  });

  it.each([
    ['leaseSeconds: must be >= 10', { leaseSeconds: 5 }],
    ['leaseSeconds: must be at most 86400', { leaseSeconds: 86_401 }],
    // zod 4 reports .int() as invalid_type, which the core formats without the custom message (see report).
    [/^leaseSeconds: (must be an integer|expected int, got number)$/, { leaseSeconds: 1.5 }],
    ['leaseSeconds: expected number, got string', { leaseSeconds: '60' }],
    ['until: unknown field', { until: 'tomorrow' }],
  ])('bad params -> BAD_REQUEST %s', async (message, extra) => {
    const t = await newTask(c);
    await refused(c, 'board.claim', { taskId: t.id, ...extra }, 'BAD_REQUEST', { message });
  });

  it('a missing or another org’s item -> NOT_FOUND', async () => {
    const theirs = await newTask(other);
    await refused(c, 'board.claim', { taskId: theirs.id }, 'NOT_FOUND', { message: `task ${theirs.id} not found` });
    await refused(c, 'board.claim', { taskId: MISSING.task }, 'NOT_FOUND');
    await refused(c, 'board.claim', {}, 'BAD_REQUEST', { message: 'taskId: required' });
  });
});

describe('racing claims', () => {
  const race = async (n: number) => {
    const t = await newTask(c);
    const keys = await Promise.all(Array.from({ length: n }, (_, i) => c.mint({ tier: 'agent' }, `racer ${i}`)));
    const before = await head(c);
    const results = await Promise.all(keys.map((k) => c.rpc('board.claim', { taskId: t.id }, { key: k.apiKey })));
    const wins = results.filter((r) => r.status === 200 && r.body.ok === true);
    const conflicts = results.filter((r) => r.body.ok === false && r.body.error.code === 'CONFLICT' && r.status === 409);
    expect(wins).toHaveLength(1);
    expect(conflicts).toHaveLength(n - 1);
    for (const r of conflicts) expect(r.body.error.message).toMatch(/already claimed by agt_/);
    const winner = expectOk('board.claim', wins[0]).claimedBy;
    expect(keys.map((k) => k.principal.id)).toContain(winner);
    const events = await eventsAfter(c, before);
    expect(events.filter((e) => e.kind === 'item.claimed')).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ entity_id: t.id, actor: winner });
    const ctx = await c.get('board.context', { taskId: t.id });
    expect(ctx.body.task.claimedBy).toBe(winner);
  };

  it.skipIf(!onPostgres)('racing claims (PostgreSQL only: skipped on PGlite): 2 at once, exactly one wins', () => race(2));
  it.skipIf(!onPostgres)('racing claims (PostgreSQL only: skipped on PGlite): 20 at once, exactly one wins', () => race(20));
  it('claims in sequence (both databases): the first wins, every later one is CONFLICT', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id }, { key: agent.apiKey });
    for (let i = 0; i < 3; i++) await refused(c, 'board.claim', { taskId: t.id }, 'CONFLICT');
  });
});

describe('board.heartbeat', () => {
  it('the claimer extends the lease', async () => {
    const t = await newTask(c);
    const claimed = await c.ok('board.claim', { taskId: t.id, leaseSeconds: 30 });
    const { result, event } = await mutate(c, 'board.heartbeat', { taskId: t.id, leaseSeconds: 600 }, 'item.heartbeat', { entityId: () => t.id });
    expect(result.claimedBy).toBe(me);
    expect(Date.parse(result.claimExpiresAt)).toBeGreaterThan(Date.parse(claimed.claimExpiresAt));
    expect(secondsUntil(result.claimExpiresAt)).toBeGreaterThan(580);
    expect(event.payload).toEqual({ claimExpiresAt: result.claimExpiresAt, leaseSeconds: 600 });
  });

  it('anyone but the claimer, an unclaimed item and a lapsed claim -> CONFLICT', async () => {
    const t = await newTask(c);
    await refused(c, 'board.heartbeat', { taskId: t.id }, 'CONFLICT', { message: /is not claimed; claim it first/ });
    await c.ok('board.claim', { taskId: t.id }, { key: agent.apiKey });
    await refused(c, 'board.heartbeat', { taskId: t.id }, 'CONFLICT', { message: new RegExp(`claimed by ${agent.id}; only the claimer may heartbeat`) });
    await lapse(t.id);
    await refused(c, 'board.heartbeat', { taskId: t.id }, 'CONFLICT', { message: /lapsed .*claim it again/, key: agent.apiKey });
  });

  it('bad input, missing and foreign items', async () => {
    const theirs = await newTask(other);
    await other.ok('board.claim', { taskId: theirs.id });
    await refused(c, 'board.heartbeat', { taskId: theirs.id }, 'NOT_FOUND');
    await refused(c, 'board.heartbeat', { taskId: MISSING.task }, 'NOT_FOUND');
    await refused(c, 'board.heartbeat', { taskId: 'ws_123' }, 'BAD_REQUEST', { message: 'taskId: must be an id of the form task_…' });
  });
});

describe('board.block', () => {
  it('the claimer blocks with a reason; the claim is released; the ledger records only the reason’s length', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id });
    const { result, event } = await mutate(c, 'board.block', { taskId: t.id, reason: 'bank statement missing' }, 'item.blocked', {
      entityId: () => t.id,
    });
    expect(result).toMatchObject({ col: 'blocked', blockedReason: 'bank statement missing', claimedBy: null, claimExpiresAt: null });
    expect(event.payload).toEqual({ fromCol: 'doing', reasonLength: 22 });
  });

  it('an unclaimed item, or one whose claim lapsed, can be blocked by anyone', async () => {
    const t = await newTask(c);
    expect((await c.ok('board.block', { taskId: t.id, reason: 'r' })).col).toBe('blocked');
    const u = await newTask(c);
    await c.ok('board.claim', { taskId: u.id }, { key: agent.apiKey });
    await lapse(u.id);
    expect((await c.ok('board.block', { taskId: u.id, reason: 'r' })).col).toBe('blocked');
  });

  it('someone else’s live claim, already blocked, done -> CONFLICT', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id }, { key: agent.apiKey });
    await refused(c, 'board.block', { taskId: t.id, reason: 'r' }, 'CONFLICT', { message: /only the claimer may block it/ });
    await c.ok('board.block', { taskId: t.id, reason: 'first' }, { key: agent.apiKey });
    await refused(c, 'board.block', { taskId: t.id, reason: 'again' }, 'CONFLICT', { message: /already blocked \(first\)/ });
    const d = await newTask(c);
    await c.ok('board.complete', { taskId: d.id });
    await refused(c, 'board.block', { taskId: d.id, reason: 'r' }, 'CONFLICT', { message: /is done/ });
  });

  it('bad input, missing and foreign items', async () => {
    const t = await newTask(c);
    const theirs = await newTask(other);
    await refused(c, 'board.block', { taskId: t.id }, 'BAD_REQUEST', { message: 'reason: required' });
    await refused(c, 'board.block', { taskId: t.id, reason: '' }, 'BAD_REQUEST', { message: 'reason: must be at least 1 character' });
    await refused(c, 'board.block', { taskId: t.id, reason: 'x'.repeat(1001) }, 'BAD_REQUEST', { message: 'reason: must be at most 1000 characters' });
    await refused(c, 'board.block', { taskId: theirs.id, reason: 'r' }, 'NOT_FOUND');
    await refused(c, 'board.block', { taskId: MISSING.task, reason: 'r' }, 'NOT_FOUND');
  });
});

describe('board.complete', () => {
  it('the claimer completes: done, completedAt set, claim released', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id });
    const { result, event } = await mutate(c, 'board.complete', { taskId: t.id }, 'item.completed', { entityId: () => t.id });
    expect(result).toMatchObject({ col: 'done', claimedBy: null, claimExpiresAt: null });
    expect(Date.parse(result.completedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(event.payload).toEqual({ fromCol: 'doing', title: t.title });
  });

  it('an unclaimed item (e.g. a milestone) or a blocked one completes too', async () => {
    const m = await c.ok('board.create', { type: 'milestone', title: 'Q3' });
    expect((await c.ok('board.complete', { taskId: m.id })).col).toBe('done');
    const b = await newTask(c);
    await c.ok('board.block', { taskId: b.id, reason: 'r' });
    expect(await c.ok('board.complete', { taskId: b.id })).toMatchObject({ col: 'done', blockedReason: null });
  });

  it('someone else’s live claim, already done, open children -> CONFLICT', async () => {
    const t = await newTask(c);
    await c.ok('board.claim', { taskId: t.id }, { key: agent.apiKey });
    await refused(c, 'board.complete', { taskId: t.id }, 'CONFLICT', { message: /only the claimer may complete it/ });
    await c.ok('board.complete', { taskId: t.id }, { key: agent.apiKey });
    await refused(c, 'board.complete', { taskId: t.id }, 'CONFLICT', { message: /already done/ });

    const parent = await newTask(c);
    const child = await c.ok('board.create', { type: 'task', title: 'child', parentId: parent.id });
    await refused(c, 'board.complete', { taskId: parent.id }, 'CONFLICT', { message: /has 1 open child item; complete them first/ });
    await c.ok('board.complete', { taskId: child.id });
    expect((await c.ok('board.complete', { taskId: parent.id })).col).toBe('done');
  });

  it('bad input, missing and foreign items', async () => {
    const theirs = await newTask(other);
    await refused(c, 'board.complete', { taskId: theirs.id }, 'NOT_FOUND');
    await refused(c, 'board.complete', { taskId: MISSING.task }, 'NOT_FOUND');
    await refused(c, 'board.complete', { taskId: 'task_' }, 'BAD_REQUEST', { message: 'taskId: must be an id of the form task_…' });
    expect((await other.get('board.context', { taskId: theirs.id })).body.task.col).toBe('triage');
  });
});
