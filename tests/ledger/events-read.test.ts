import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent } from '../../ledger/append.js';
import { verifyChain } from '../../protocol/hashing.js';
import { freshOrg, TestClient, testServer, allEvents, type TestOrg, type TestServer } from '../helpers/harness.js';
import { expectError } from '../helpers/frames.js';

/** GET /events and GET /snapshot (spec: Events 7, Endpoints, Limits). */
let s: TestServer;
let big: TestOrg;
let bigClient: TestClient;
const N = 523;

beforeAll(async () => {
  s = await testServer();
  big = await freshOrg(s.runtime, 'big');
  bigClient = new TestClient(s.app, big.adminKey);
  await s.runtime.db.tx(async (q) => {
    for (let i = 1; i <= N; i++) {
      await appendEvent(q, big.orgId, { family: 'test', kind: 'test.filler', entityId: `ent_${i}`, actor: '', payload: { i } });
    }
  });
});
afterAll(() => s.close());

describe('GET /events', () => {
  it('?kind= finds a renamed kind under its old and its new name, in its own family; stored kinds are returned as appended', async () => {
    const o = await freshOrg(s.runtime, 'renamed');
    await s.runtime.db.tx(async (q) => {
      // As appended before the grammar (protocol/events.ts), then under the current names.
      await appendEvent(q, o.orgId, { family: 'approval', kind: 'approval.approved', entityId: 'apr_old', actor: '', payload: null });
      await appendEvent(q, o.orgId, { family: 'settings', kind: 'org.key.minted', entityId: 'key_old', actor: '', payload: null });
      await appendEvent(q, o.orgId, { family: 'approval', kind: 'approval.request.approve', entityId: 'apr_new', actor: '', payload: null });
      await appendEvent(q, o.orgId, { family: 'approval', kind: 'approval.request.reject', entityId: 'apr_no', actor: '', payload: null });
      await appendEvent(q, o.orgId, { family: 'org', kind: 'org.key.minted', entityId: 'key_org', actor: '', payload: null });
    });
    const client = new TestClient(s.app, o.adminKey);
    const found = async (kind: string) =>
      (await client.get('events', { kind })).body.events.map((e: { entity_id: string; kind: string }) => [e.entity_id, e.kind]);
    const approved = [
      ['apr_old', 'approval.approved'],
      ['apr_new', 'approval.request.approve'],
    ];
    expect(await found('approval.request.approve')).toEqual(approved);
    expect(await found('approval.approved')).toEqual(approved);
    expect(await found('settings.key.mint')).toEqual([['key_old', 'org.key.minted']]);
    expect(await found('org.key.mint')).toEqual([['key_org', 'org.key.minted']]);
    expect(await found('org.key.minted')).toEqual([
      ['key_old', 'org.key.minted'],
      ['key_org', 'org.key.minted'],
    ]);
    expect((await client.get('events', { kind: 'approval.request.approve', family: 'approval' })).body.events).toHaveLength(2);
  });

  it('defaults: cursor 0 and a page of 100', async () => {
    const page = await bigClient.get('events');
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['events', 'nextCursor']);
    expect(page.body.events).toHaveLength(100);
    expect(page.body.events[0].seq).toBe(1);
    expect(page.body.nextCursor).toBe(100);
  });

  it('limit up to 500', async () => {
    const page = await bigClient.get('events', { cursor: 0, limit: 500 });
    expect(page.status).toBe(200);
    expect(page.body.events).toHaveLength(500);
    expect(page.body.nextCursor).toBe(500);
  });

  it('limit 501 is BAD_REQUEST naming limit', async () => {
    const res = await bigClient.get('events', { limit: 501 });
    expect(res.status).toBe(400);
    expectError(res, 'BAD_REQUEST', /^limit: /);
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: -1 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ limit: 'abc' }, 'limit'],
    [{ cursor: -1 }, 'cursor'],
    [{ cursor: 'x' }, 'cursor'],
    [{ after: 3 }, 'after'],
  ] as const)('query %j is BAD_REQUEST naming %s', async (query, field) => {
    const res = await bigClient.get('events', query);
    const err = expectError(res, 'BAD_REQUEST');
    expect(err.message.startsWith(`${field}: `), err.message).toBe(true);
  });

  it('a non-number query value says so', async () => {
    const res = await bigClient.get('events', { limit: 'abc' });
    expect(expectError(res, 'BAD_REQUEST').message).not.toMatch(/got number/);
  });

  it('pages by cursor: every seq once, in order, nextCursor = last seq, empty page keeps the cursor', async () => {
    const seen: number[] = [];
    let cursor = 0;
    for (let i = 0; i < 20; i++) {
      const page = await bigClient.get('events', { cursor, limit: 97 });
      expect(page.status).toBe(200);
      if (page.body.events.length === 0) {
        expect(page.body.nextCursor).toBe(cursor);
        break;
      }
      seen.push(...page.body.events.map((e: any) => e.seq));
      expect(page.body.nextCursor).toBe(page.body.events.at(-1).seq);
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    // At the head: an empty page that keeps the cursor. Beyond it: refused, naming the field and the head (a cursor
    // this ledger never reached would otherwise answer nothing forever, then skip the seqs it grows into).
    expect((await bigClient.get('events', { cursor: N })).body).toEqual({ events: [], nextCursor: N });
    const past = await bigClient.get('events', { cursor: N + 50 });
    expect(expectError(past, 'BAD_REQUEST').message).toMatch(new RegExp(`^cursor: ${N + 50} is beyond the org's head seq ${N}`));
  });

  it('a cursor mid-chain starts right after it', async () => {
    const page = await bigClient.get('events', { cursor: 250, limit: 3 });
    expect(page.body.events.map((e: any) => e.seq)).toEqual([251, 252, 253]);
    expect(page.body.events[0].payload).toEqual({ i: 251 });
  });

  it('events have exactly the wire fields, verbatim payloads, and verify', async () => {
    const events = await allEvents(bigClient);
    expect(events).toHaveLength(N);
    for (const e of events.slice(0, 3)) {
      expect(Object.keys(e).sort()).toEqual(['actor', 'at', 'entity_id', 'family', 'kind', 'payload', 'prev_hash', 'row_hash', 'seq']);
      expect(e.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(e.row_hash).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(events[0].prev_hash).toBe('');
    expect(verifyChain(events)).toMatchObject({ ok: true, count: N });
  });

  it('needs a key, and org.read', async () => {
    const none = await s.app.inject({ method: 'GET', url: '/api/v1/events' });
    expect(none.statusCode).toBe(401);
    const noScopes = await bigClient.mint({ scopes: [] }, 'no scopes');
    const res = await bigClient.get('events', {}, { key: noScopes.apiKey });
    expectError(res, 'FORBIDDEN_SCOPE', 'missing scope org.read for /events');
    const reader = await bigClient.mint({ tier: 'reader' }, 'reader');
    expect((await bigClient.get('events', {}, { key: reader.apiKey })).status).toBe(200);
  });
});

describe('GET /snapshot', () => {
  it('is {orgId, head:{seq, rowHash}} and moves with the chain', async () => {
    const org = await freshOrg(s.runtime, 'snap');
    const client = new TestClient(s.app, org.adminKey);
    const empty = await client.get('snapshot');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ orgId: org.orgId, head: { seq: 0, rowHash: '' } });
    await client.ok('settings.renameApiKey', { keyId: org.adminKeyId, name: 'renamed' });
    const one = await client.get('snapshot');
    const [event] = (await client.get('events')).body.events;
    expect(one.body).toEqual({ orgId: org.orgId, head: { seq: 1, rowHash: event.row_hash } });
    const rejected = await client.get('snapshot', { x: 1 });
    expectError(rejected, 'BAD_REQUEST', 'x: unknown field');
  });

  it('for the big org, head is the last event', async () => {
    const snap = await bigClient.get('snapshot');
    const events = await allEvents(bigClient);
    expect(snap.body.head.seq).toBeGreaterThanOrEqual(N);
    expect(snap.body).toEqual({ orgId: big.orgId, head: { seq: events.length, rowHash: events.at(-1).row_hash } });
  });
});

describe('tenancy', () => {
  it('events of another org are invisible', async () => {
    const a = await freshOrg(s.runtime, 'ta');
    const b = await freshOrg(s.runtime, 'tb');
    const ca = new TestClient(s.app, a.adminKey);
    const cb = new TestClient(s.app, b.adminKey);
    await ca.ok('settings.renameApiKey', { keyId: a.adminKeyId, name: 'only in a' });
    await ca.ok('settings.renameApiKey', { keyId: a.adminKeyId, name: 'only in a again' });
    await cb.ok('settings.renameApiKey', { keyId: b.adminKeyId, name: 'only in b' });
    const ea = await allEvents(ca);
    const eb = await allEvents(cb);
    expect(ea.map((e) => e.payload.name)).toEqual(['only in a', 'only in a again']);
    expect(eb.map((e) => e.payload.name)).toEqual(['only in b']);
    expect(eb[0].seq).toBe(1);
    expect((await cb.get('snapshot')).body.orgId).toBe(b.orgId);
    // b's key cannot act on a's rows either.
    const cross = await cb.rpc('settings.renameApiKey', { keyId: a.adminKeyId, name: 'hijack' });
    expectError(cross, 'NOT_FOUND');
    expect(await allEvents(ca)).toHaveLength(2);
  });
});
