import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream } from '../helpers/sse.js';
import { buildApp } from '../../gateway/app.js';
import { DEPLOYED, METHOD_HANDLERS } from '../../domain/deployed.js';
import { actionClassOf } from '../../domain/approval/signature.js';
import { describeApproval } from '../../gateway/inbox/describe.js';
import { SessionStore } from '../../domain/people/index.js';
import type { Runtime } from '../../domain/deployed.js';
import { TestClock } from '../helpers/clock.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { eventsAfter, head } from '../helpers/calls.js';
import { payRuns, type DraftRun } from '../helpers/inbox.js';

/*
 * The approval inbox's server side through app.inject (and one real socket for the event stream): the page and
 * its vendored files, sign-in (human keys only), the session cookie, CSRF refusals, the data behind the page
 * (pipeline calls as the signed-in human: one ledger event per decision), and the live stream.
 */

const ORIGIN = 'http://localhost:8080'; // the default PUBLIC_URL's origin
let runtime: Runtime;
let app: FastifyInstance;
let admin: TestClient;
let agentKey: string;
let approverKey: string;
let readerKey: string;
let nextRun: () => Promise<DraftRun>;
let orgId: string;

beforeAll(async () => {
  runtime = await testRuntime({ clock: new TestClock('2026-11-20') });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0, inbox: { heartbeatMs: 100 } });
  const org = await freshOrg(runtime, 'inbox');
  orgId = org.orgId;
  admin = new TestClient(app, org.adminKey);
  agentKey = (await admin.mint({ tier: 'agent' }, 'payroll agent')).apiKey;
  approverKey = (await admin.mint({ tier: 'approver' }, 'Dana Approver')).apiKey;
  readerKey = (await admin.mint({ tier: 'reader' }, 'reporting bot')).apiKey;
  nextRun = payRuns(admin, (await admin.mint({ tier: 'agent' }, 'hr agent')).apiKey);
});
afterAll(async () => {
  await app.close();
  await runtime.close();
});

interface Signed {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: any;
}

async function signIn(apiKey: string, headers: Record<string, string> = { origin: ORIGIN }): Promise<Signed> {
  const res = await app.inject({
    method: 'POST',
    url: '/approvals/api/session',
    headers: { 'content-type': 'application/json', ...headers },
    payload: { apiKey },
  });
  const setCookie = String(res.headers['set-cookie'] ?? '');
  return { cookie: setCookie.split(';')[0], csrf: res.json().result?.csrfToken, setCookie, body: { status: res.statusCode, ...res.json() } };
}

const inboxGet = (url: string, cookie?: string) => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

function inboxPost(url: string, s: Signed, payload: unknown, headers: Record<string, string | undefined> = {}) {
  const base: Record<string, string> = { cookie: s.cookie, origin: ORIGIN, 'x-csrf-token': s.csrf, 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return app.inject({ method: 'POST', url, headers: base, payload: JSON.stringify(payload) });
}

/** The agent holds a real pay run and files the approval: what the inbox shows. */
async function filedPayRun() {
  const run = await nextRun();
  const hold = await admin.ok('books.payrollSign', { runId: run.id }, { key: agentKey, idem: `sign-${run.id}` });
  expect(hold.status).toBe('approval_required');
  const filed = await admin.ok(
    'approval.request',
    { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
    { key: agentKey },
  );
  return { run, hold, approvalId: filed.approvalId as string, view: filed };
}

describe('the inbox page and its files', () => {
  it('serves one page at /approvals and /approvals/<approvalId> with a strict CSP allowing only its import map', async () => {
    for (const url of ['/approvals', '/approvals/apr_0123456789abcdef']) {
      const res = await inboxGet(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      const inline = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => m[2] !== '');
      expect(inline.map((m) => m[1].trim())).toEqual(['type="importmap"']);
      const hash = createHash('sha256').update(inline[0][2]).digest('base64');
      expect(csp).toContain(`'sha256-${hash}'`);
      // Nothing from elsewhere: every src and href is on this server.
      for (const [, ref] of res.body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(ref).toMatch(/^\/approvals\//);
    }
    expect((await inboxGet('/approvals/not-an-approval')).statusCode).toBe(404);
  });

  it('serves every module the import map names, and the app, from this server', async () => {
    const page = (await inboxGet('/approvals')).body;
    const map = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(page)![1]).imports as Record<string, string>;
    expect(Object.keys(map).sort()).toEqual(['canonicalize', 'htm', 'htm/preact', 'preact', 'preact/hooks']);
    for (const url of [...Object.values(map), '/approvals/assets/app.js', '/approvals/assets/api.js', '/approvals/assets/format.js']) {
      const res = await inboxGet(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/javascript; charset=utf-8');
      expect(res.body, url).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // no fetches from elsewhere
    }
    expect((await inboxGet('/approvals/assets/inbox.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await inboxGet('/approvals/assets/missing.js')).statusCode).toBe(404);
    expect((await inboxGet('/approvals/vendor/..%2Fpackage.json')).statusCode).toBe(404);
  });
});

describe('sign-in', () => {
  it('refuses agent keys with a clear message and sets no cookie', async () => {
    for (const key of [agentKey, readerKey]) {
      const res = await signIn(key);
      expect(res.body.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN_SCOPE');
      expect(res.body.error.message).toMatch(/^This is an agent key \(.+, agt_[0-9a-z]+, tier (agent|reader)\)\. The approval inbox is for humans/);
      expect(res.setCookie).toBe('');
    }
  });

  it('refuses unknown keys (401), an empty body (400), and sign-in from another origin (403)', async () => {
    const unknown = await signIn('wops_notakey');
    expect(unknown.body).toMatchObject({ status: 401, error: { code: 'UNAUTHORIZED', message: 'this key is not valid (unknown or revoked)' } });
    const empty = await app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toMatch(/^apiKey: required/);
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, {}, { origin: ORIGIN, 'sec-fetch-site': 'cross-site' }];
    for (const headers of foreign) {
      const res = await signIn(approverKey, headers);
      expect(res.body.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.message).toMatch(/cross-site sign-in refused/);
      expect(res.setCookie).toBe('');
    }
  });

  it('a human key opens a session: HttpOnly, SameSite=Strict cookie scoped to /approvals; the key is not in it', async () => {
    const s = await signIn(approverKey);
    expect(s.body.status).toBe(200);
    expect(s.body.result.principal).toMatchObject({ name: 'Dana Approver', kind: 'human', tier: 'approver', canDecide: true });
    expect(s.setCookie).toMatch(/^wops_inbox=[A-Za-z0-9_-]{43}; Path=\/approvals; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(s.setCookie).not.toContain(approverKey);
    expect(JSON.stringify(s.body)).not.toContain(approverKey);
    expect(s.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The Host's own origin is accepted too (the server reached by another name than PUBLIC_URL).
    expect((await signIn(approverKey, { origin: 'http://localhost:80' })).body.status).toBe(200);

    const me = await inboxGet('/approvals/api/session', s.cookie);
    expect(me.statusCode).toBe(200);
    expect(me.headers['cache-control']).toBe('no-store');
    expect(me.json().result).toMatchObject({ principal: { name: 'Dana Approver' }, csrfToken: s.csrf });
    const none = await inboxGet('/approvals/api/session');
    expect(none.statusCode).toBe(401);
    expect(none.json().error.message).toMatch(/not signed in/);
    expect((await inboxGet('/approvals/api/session', 'wops_inbox=forged')).statusCode).toBe(401);
  });

  it('the cookie is Secure when PUBLIC_URL is https', async () => {
    const https = { ...runtime, deps: { ...runtime.deps, config: { ...runtime.deps.config, publicUrl: 'https://inbox.example' } } };
    const other = await buildApp({ runtime: https, logger: false, rateLimitPerMinute: 0 });
    try {
      const res = await other.inject({
        method: 'POST',
        url: '/approvals/api/session',
        headers: { origin: 'https://inbox.example', 'content-type': 'application/json' },
        payload: { apiKey: approverKey },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['set-cookie']).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await other.close();
    }
  });

  it('signing out ends the session (CSRF-checked) and clears the cookie', async () => {
    const s = await signIn(approverKey);
    const forged = await app.inject({ method: 'DELETE', url: '/approvals/api/session', headers: { cookie: s.cookie, origin: ORIGIN } });
    expect(forged.statusCode).toBe(403);
    expect((await inboxGet('/approvals/api/session', s.cookie)).statusCode).toBe(200);
    const out = await app.inject({ method: 'DELETE', url: '/approvals/api/session', headers: { cookie: s.cookie, origin: ORIGIN, 'x-csrf-token': s.csrf } });
    expect(out.statusCode).toBe(200);
    expect(out.headers['set-cookie']).toMatch(/^wops_inbox=; Path=\/approvals; Max-Age=0; HttpOnly; SameSite=Strict$/);
    expect((await inboxGet('/approvals/api/session', s.cookie)).statusCode).toBe(401);
  });

  it('a key revoked after sign-in ends the session at its next call', async () => {
    const minted = await admin.mint({ tier: 'approver' }, 'short-lived approver');
    const s = await signIn(minted.apiKey);
    expect((await inboxGet('/approvals/api/approvals', s.cookie)).statusCode).toBe(200);
    await admin.ok('settings.revokeApiKey', { keyId: minted.keyId });
    const res = await inboxGet('/approvals/api/approvals', s.cookie);
    expect(res.statusCode).toBe(401);
    expect(res.headers['set-cookie']).toMatch(/Max-Age=0/);
    expect((await inboxGet('/approvals/api/session', s.cookie)).statusCode).toBe(401);
  });
});

describe('sessions in the database', () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it("a row holds the cookie's hash and the key's id: never the key, never the cookie", async () => {
    const minted = await admin.mint({ tier: 'approver' }, 'stored approver');
    const s = await signIn(minted.apiKey);
    const cookie = s.cookie.slice('wops_inbox='.length);
    const rows = await runtime.db.query<Record<string, unknown>>('SELECT * FROM inbox_sessions WHERE principal_id = $1', [minted.principal.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id_hash: sha256(cookie), key_id: minted.keyId, csrf_token: s.csrf });
    const text = JSON.stringify(rows);
    expect(text).not.toContain(minted.apiKey);
    expect(text).not.toContain(cookie);
  });

  it('a cookie from one gateway works on another on the same database, and signing out on one ends it on both', async () => {
    const other = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
    try {
      const s = await signIn(approverKey);
      const there = await other.inject({ method: 'GET', url: '/approvals/api/approvals', headers: { cookie: s.cookie } });
      expect(there.statusCode).toBe(200);
      expect(there.headers['set-cookie']).toBeUndefined();
      const out = await other.inject({
        method: 'DELETE',
        url: '/approvals/api/session',
        headers: { cookie: s.cookie, origin: ORIGIN, 'x-csrf-token': s.csrf },
      });
      expect(out.statusCode).toBe(200);
      expect((await inboxGet('/approvals/api/session', s.cookie)).statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });

  it("expire after the idle time and after the maximum age whatever the use (the database's clock); beyond the cap the least recently used goes", async () => {
    const minted = await admin.mint({ tier: 'approver' }, 'expiring approver');
    const store = new SessionStore(runtime.db, { idleMs: 60_000, maxAgeMs: 600_000, maxPerPrincipal: 2 });
    const open = () => store.create({ orgId, principalId: minted.principal.id, keyId: minted.keyId });
    const backdate = (sessionId: string, column: 'last_seen_at' | 'expires_at', ms: number) =>
      runtime.db.query(`UPDATE inbox_sessions SET ${column} = now() - make_interval(secs => $2::double precision / 1000) WHERE session_id = $1`, [
        sessionId,
        ms,
      ]);
    const rowCount = async (sessionId: string) => (await runtime.db.query('SELECT 1 FROM inbox_sessions WHERE session_id = $1', [sessionId])).length;

    const a = await open();
    await backdate(a.session.sessionId, 'last_seen_at', 59_000);
    expect(await store.get(a.cookieValue)).toEqual(a.session); // and marks it used now
    await backdate(a.session.sessionId, 'last_seen_at', 59_000);
    expect(await store.isLive(a.session)).toBe(true);
    expect(await store.get(a.cookieValue)).toEqual(a.session);
    await backdate(a.session.sessionId, 'last_seen_at', 61_000);
    expect(await store.isLive(a.session)).toBe(false);
    expect(await store.get(a.cookieValue)).toBeUndefined();
    expect(await rowCount(a.session.sessionId)).toBe(0); // an expired row found is deleted

    const b = await open();
    await backdate(b.session.sessionId, 'expires_at', 1);
    expect(await store.get(b.cookieValue)).toBeUndefined(); // used a moment ago, but past its maximum age

    // An expired row nobody asks for again goes at the next sign-in (anyone's).
    const c = await open();
    await backdate(c.session.sessionId, 'last_seen_at', 3 * 3_600_000); // idle beyond the app's 2 hours too
    await signIn(approverKey);
    expect(await rowCount(c.session.sessionId)).toBe(0);

    // The cap: d, e live; e used, then d; f opens: e is now the least recently used and goes.
    const [d, e] = [await open(), await open()];
    await backdate(e.session.sessionId, 'last_seen_at', 2000);
    await backdate(d.session.sessionId, 'last_seen_at', 1000);
    const f = await open();
    expect(await store.get(e.cookieValue)).toBeUndefined();
    expect(await store.get(d.cookieValue)).toEqual(d.session);
    expect(await store.get(f.cookieValue)).toEqual(f.session);

    await admin.ok('settings.revokeApiKey', { keyId: minted.keyId });
    expect(await store.isLive(d.session)).toBe(false); // a stream's heartbeat ends on a revoked key
  });
});

describe('approvals through the pipeline', () => {
  it('lists a pending pay run in plain words with who asked; one approval shows the exact payload behind its hash', async () => {
    const { run, approvalId, view } = await filedPayRun();
    expect(view.url).toBe(`${ORIGIN}/approvals/${approvalId}`);
    const s = await signIn(approverKey);
    const list = await inboxGet('/approvals/api/approvals?view=pending', s.cookie);
    expect(list.statusCode).toBe(200);
    const item = list.json().result.approvals.find((a: any) => a.approvalId === approvalId);
    expect(item).toMatchObject({
      status: 'pending',
      actionClass: 'books.payroll_sign',
      requestedByName: 'payroll agent',
      mine: false,
      plain: { title: 'Sign a pay run' },
    });
    const facts = Object.fromEntries(item.plain.facts.map((f: any) => [f.label, f.value]));
    expect(Object.keys(facts)).toEqual(['Period', 'Employees', 'Gross wages', 'Net pay', 'Pay date', 'PAYG withheld', 'PAYG schedule', 'PAYG scales']);
    expect(facts['PAYG schedule']).toBe(run.paygSchedule);
    expect(facts['Net pay']).toBe(`$${(run.netCents / 100).toLocaleString('en-AU', { minimumFractionDigits: 2 })}`);
    expect(facts.Employees).toBe('1');

    const one = (await inboxGet(`/approvals/api/approvals/${approvalId}`, s.cookie)).json().result;
    expect(one.signed).toEqual({ actionClass: 'books.payroll_sign', subjectId: run.id, params: { runId: run.id } });
    expect(one.canonical).toBe(`{"actionClass":"books.payroll_sign","params":{"runId":"${run.id}"},"subjectId":"${run.id}"}`);
    expect(createHash('sha256').update(one.canonical).digest('hex')).toBe(one.payloadHash);
    expect(one.hashMatches).toBe(true);
    expect(one.heldAct).toEqual({ method: 'books.payrollSign', params: { runId: run.id } });

    const bad = await inboxGet('/approvals/api/approvals/apr_doesnotexist0000', s.cookie);
    expect(bad.statusCode).toBe(404);
    expect(bad.json().error.message).toBe('approval apr_doesnotexist0000 not found');
    expect((await inboxGet('/approvals/api/approvals?view=nonsense', s.cookie)).statusCode).toBe(400);
    expect((await inboxGet('/approvals/api/approvals')).statusCode).toBe(401);
  });

  it('a decision needs the CSRF token and this origin; it appends exactly one ledger event and never shows the token', async () => {
    const { approvalId } = await filedPayRun();
    const s = await signIn(approverKey);
    const url = `/approvals/api/approvals/${approvalId}/decision`;
    const before = await head(admin);
    const refusals: [Record<string, string | undefined>, RegExp][] = [
      [{ 'x-csrf-token': undefined }, /x-csrf-token/],
      [{ 'x-csrf-token': 'A'.repeat(43) }, /x-csrf-token/],
      [{ origin: 'https://evil.example' }, /cross-site request refused/],
      [{ origin: undefined }, /cross-site request refused/],
      [{ 'sec-fetch-site': 'same-site' }, /cross-site request refused/],
    ];
    for (const [headers, message] of refusals) {
      const res = await inboxPost(url, s, { decision: 'approve' }, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error.message).toMatch(message);
    }
    const noCookie = await inboxPost(url, { ...s, cookie: '' }, { decision: 'approve' });
    expect(noCookie.statusCode).toBe(401);
    expect(await head(admin)).toBe(before);
    expect((await admin.ok('approval.get', { approvalId })).status).toBe('pending');

    // The contract's own validation answers through the inbox unchanged.
    const invalid = await inboxPost(url, s, { decision: 'maybe' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.message).toMatch(/^decision:/);

    const ok = await inboxPost(url, s, { decision: 'approve', note: '  Checked against the timesheets.  ' });
    expect(ok.statusCode, ok.body).toBe(200);
    const decided = ok.json().result;
    expect(decided).toMatchObject({ status: 'approved', decidedByName: 'Dana Approver', note: 'Checked against the timesheets.' });
    expect(decided).not.toHaveProperty('signatureToken');
    const events = await eventsAfter(admin, before);
    expect(events.map((e) => [e.kind, e.actor])).toEqual([['approval.request.approve', s.body.result.principal.id]]);

    // Deciding again: the pipeline's CONFLICT, nothing appended.
    const again = await inboxPost(url, s, { decision: 'reject' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toMatch(/is already approved/);
    expect((await eventsAfter(admin, before)).length).toBe(1);
    const decidedList = (await inboxGet('/approvals/api/approvals?view=decided', s.cookie)).json().result.approvals;
    expect(decidedList[0]).toMatchObject({ approvalId, status: 'approved' });
    expect(JSON.stringify(decidedList)).not.toContain('signatureToken');
  });

  it("a stored payload that does not hash to the approval's payload hash is flagged, not shown as verified", async () => {
    const { run, approvalId, hold } = await filedPayRun();
    const other = await nextRun();
    // The approval shows its own copy of the held call: rewriting the hold's record afterwards changes nothing shown.
    await runtime.db.query('UPDATE signature_holds SET params = $1 WHERE payload_hash = $2', [JSON.stringify({ runId: other.id }), hold.approval.payloadHash]);
    const s = await signIn(approverKey);
    const kept = (await inboxGet(`/approvals/api/approvals/${approvalId}`, s.cookie)).json().result;
    expect(kept.signed.params).toEqual({ runId: run.id });
    expect(kept.hashMatches).toBe(true);
    // That copy never changes (the database refuses); a damaged record can only be written as a new row.
    await expect(
      runtime.db.query('UPDATE approvals SET held_params = $1 WHERE approval_id = $2', [JSON.stringify({ runId: other.id }), approvalId]),
    ).rejects.toThrow(/keeps what its human was shown/);
    const damaged = `${approvalId}x`;
    await runtime.db.query(
      `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at, held_method, held_params, held_at)
       SELECT org_id, $2, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at, held_method, $3::jsonb, held_at
         FROM approvals WHERE approval_id = $1`,
      [approvalId, damaged, JSON.stringify({ runId: other.id })],
    );
    const one = (await inboxGet(`/approvals/api/approvals/${damaged}`, s.cookie)).json().result;
    expect(one.signed.params).toEqual({ runId: other.id });
    expect(one.hashMatches).toBe(false);
    expect(createHash('sha256').update(one.canonical).digest('hex')).not.toBe(one.payloadHash);
    expect(run.id).not.toBe(other.id);
  });

  it('the requester rule holds: a human who filed the request cannot decide it in the inbox either', async () => {
    const run = await nextRun();
    const hold = await admin.ok('books.payrollSign', { runId: run.id }, { idem: `own-${run.id}` });
    const filed = await admin.ok('approval.request', {
      actionClass: hold.approval.actionClass,
      payloadHash: hold.approval.payloadHash,
      subject: hold.approval.subject,
    });
    const s = await signIn(admin.defaultKey);
    expect(s.body.result.principal).toMatchObject({ tier: 'admin', canDecide: true });
    const one = (await inboxGet(`/approvals/api/approvals/${filed.approvalId}`, s.cookie)).json().result;
    expect(one.mine).toBe(true);
    const res = await inboxPost(`/approvals/api/approvals/${filed.approvalId}/decision`, s, { decision: 'approve' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/another human must decide it/) });
  });
});

describe('the live stream', () => {
  let base: string;
  beforeAll(async () => {
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  /** Open /approvals/api/stream and collect its events as they come. */
  const open = (cookie: string) => openEventStream(`${base}/approvals/api/stream`, cookie);

  it('closing the server ends open streams instead of waiting for them', async () => {
    const second = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
    const at = await second.listen({ port: 0, host: '127.0.0.1' });
    const login = await second.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: { apiKey: approverKey },
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const res = await fetch(`${at}/approvals/api/stream`, { headers: { cookie } });
    expect(res.status).toBe(200);
    // Close once the stream is live (its headers go out before it has subscribed to the ledger).
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: ready')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const closing = second.close();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await closing;
    expect(text).toContain('event: ready');
    expect(text).toContain('event: end\ndata: {"reason":"the server is shutting down"}');
  });

  it('refuses without a session', async () => {
    const res = await fetch(`${base}/approvals/api/stream`);
    expect(res.status).toBe(401);
  });

  it('announces approvals filed and decided in the org (not in others), and ends when the session does', async () => {
    const human = await signIn(approverKey);
    const stream = await open(human.cookie);
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await stream.next('ready');

    // Another org's approval is not announced here.
    const other = await freshOrg(runtime, 'other');
    const otherClient = new TestClient(app, other.adminKey);
    const otherAgent = (await otherClient.mint({ tier: 'agent' }, 'their agent')).apiKey;
    const otherRun = await payRuns(otherClient, otherAgent)();
    const otherHold = await otherClient.ok('books.payrollSign', { runId: otherRun.id }, { key: otherAgent });
    const otherFiled = await otherClient.ok(
      'approval.request',
      { actionClass: otherHold.approval.actionClass, payloadHash: otherHold.approval.payloadHash, subject: otherHold.approval.subject },
      { key: otherAgent },
    );

    const { approvalId } = await filedPayRun();
    expect(await stream.next('approval', (d) => d.approvalId === approvalId)).toEqual({ approvalId, change: 'requested' });
    await inboxPost(`/approvals/api/approvals/${approvalId}/decision`, human, { decision: 'reject', note: 'wrong period' });
    expect(await stream.next('approval', (d) => d.change === 'rejected')).toEqual({ approvalId, change: 'rejected' });
    expect(stream.events.some((e) => e.data?.approvalId === otherFiled.approvalId)).toBe(false);

    const out = await app.inject({
      method: 'DELETE',
      url: '/approvals/api/session',
      headers: { cookie: human.cookie, origin: ORIGIN, 'x-csrf-token': human.csrf },
    });
    expect(out.statusCode).toBe(200);
    expect(await stream.next('end')).toEqual({ reason: 'signed out' });
    await stream.ended;
  });
});

describe('plain words for each signature act', () => {
  const plain = (actionClass: string, summary: string, params: Record<string, unknown> = {}) => {
    const p = describeApproval({ actionClass, subject: { summary }, heldAct: { method: 'm', params } }, DEPLOYED.holdActs);
    return { title: p.title, facts: Object.fromEntries(p.facts.map((f) => [f.label, f.value])) };
  };

  it('reads the act, amounts, payee and period out of the summaries the acts record', () => {
    expect(plain('books.payroll_sign', 'Pay run 1–14 Nov 2026: 3 staff, gross $15,000.00, net $12,345.67, paid 2026-11-15')).toEqual({
      title: 'Sign a pay run',
      facts: { Period: '1–14 Nov 2026', Employees: '3', 'Gross wages': '$15,000.00', 'Net pay': '$12,345.67', 'Pay date': '2026-11-15' },
    });
    expect(
      plain(
        'books.bill_approve',
        'Approve bill bill_1 for $6,600.00 incl. GST $600.00, due 2026-12-01: ABOVE FLOOR and NEW PAYEE; new payee bank details BSB 062-000 account ****4321 (Fitout Co); from Fitout Co, ref INV-9',
      ),
    ).toEqual({
      title: 'Approve a bill',
      facts: {
        Payee: 'Fitout Co',
        Amount: '$6,600.00',
        'GST included': '$600.00',
        Due: '2026-12-01',
        'Why it needs a signature': 'ABOVE FLOOR and NEW PAYEE',
        'New bank details': 'BSB 062-000 account ****4321 (Fitout Co)',
        Reference: 'INV-9',
      },
    });
    expect(plain('books.bill_schedule_run', 'Pay 2 bills on 2026-10-20: $990.00 (Office Co $330.00 ref OC-1, Paper Co $660.00 ref P-2)').facts).toEqual({
      Total: '$990.00',
      'Pay date': '2026-10-20',
      Bills: '2',
      Payees: 'Office Co $330.00 ref OC-1, Paper Co $660.00 ref P-2',
    });
    expect(plain('books.invoice_chase_step', 'Step 2 (firm) reminder to Slow Payer for INV-0003: $550.00 due, 12 days overdue')).toEqual({
      title: 'Send a payment reminder',
      facts: { To: 'Slow Payer', 'Amount due': '$550.00', Invoice: 'INV-0003', 'Days overdue': '12', 'Reminder step': '2', Tone: 'firm' },
    });
    expect(
      plain('books.onboarding_advance', 'Employment contract c/offer.pdf for Sam Lee as Designer, starting 2026-07-01 at $78,000.00 a year, 38 h/week').facts,
    ).toEqual({
      Employee: 'Sam Lee',
      Role: 'Designer',
      Pay: '$78,000.00 a year, 38 h/week',
      Starts: '2026-07-01',
      Contract: 'c/offer.pdf',
    });
    expect(
      plain('books.tax_sign_lodge', 'BAS 1 Jul–30 Sep 2026 (bas_1), awaiting signature to lodge: net $100.00 payable to the ATO (1A $100.00, …)', {
        id: 'bas_1',
        labels: { '1A': 10000, '1B': 0 },
        netCents: 10000,
      }).facts,
    ).toEqual({ Period: '1 Jul–30 Sep 2026', 'Payable to the ATO': '$100.00', 'BAS 1A': '$100.00', 'BAS 1B': '$0.00' });
    expect(plain('books.match_hold_resolve', 'Release $6,600.00 from the bank line 2026-10-10 "Fit-out" to account 429 Fit-out costs').facts).toEqual({
      Amount: '$6,600.00',
      'Bank line payee': 'Fit-out',
      'Bank line date': '2026-10-10',
      'Posted to': 'account 429 Fit-out costs',
    });
  });

  it('words every family gives name a deployed method’s act (no wording for an act that does not exist)', () => {
    const acts = new Set([...METHOD_HANDLERS.keys()].map(actionClassOf));
    for (const actionClass of DEPLOYED.holdActs.keys()) expect(acts, actionClass).toContain(actionClass);
  });

  it('the shared-memory holds read as what the agent asks to change', () => {
    expect(
      plain('memory.author', 'An agent writes memory block "House style" as version 2', { label: 'House style', value: 'Short.', audience: 'org' }),
    ).toEqual({
      title: "Write a memory block others load (an agent's)",
      facts: { Block: 'House style', Value: 'Short.', 'Loaded by': 'org' },
    });
    expect(plain('memory.merge_amendment', '…', { amendmentId: 'mam_1', decision: 'merge' }).title).toBe(
      "Merge an amendment into a memory block others load (an agent's)",
    );
    expect(plain('knowledge.invalidate', '…', { entryId: 'kn_1', reason: 'outdated' })).toEqual({
      title: "Invalidate a verified knowledge entry (an agent's)",
      facts: { Entry: 'kn_1', Reason: 'outdated' },
    });
    expect(plain('sop.update', '…', { sopId: 'sop_1', ifVersion: 2, status: 'active' })).toEqual({
      title: "Change or publish a procedure (an agent's)",
      facts: { Procedure: 'sop_1', 'On version': '2', Status: 'active' },
    });
  });

  it('falls back to the amounts in the summary for anything else', () => {
    const p = describeApproval(
      {
        actionClass: 'crm.big_discount',
        subject: { summary: 'Give Acme $1,000.00 off and $5.00 shipping' },
        heldAct: { method: 'crm.bigDiscount', params: {} },
      },
      DEPLOYED.holdActs,
    );
    expect(p.title).toBe('Big discount');
    expect(p.facts).toEqual([
      { label: 'Amount', value: '$1,000.00' },
      { label: 'Amount', value: '$5.00' },
    ]);
  });

  it('never titles an approval bound to no held act as a signature act, whatever its class and words', () => {
    const p = describeApproval(
      { actionClass: 'books.payroll_sign', subject: { summary: 'Pay run 1–14 Nov 2026: 3 staff, gross $10.00, net $8.00, paid 2026-11-15' }, heldAct: null },
      DEPLOYED.holdActs,
    );
    expect(p.title).toBe('Not a signature: Payroll sign');
    expect(p.facts.map((f) => f.label)).toEqual(['Amount', 'Amount']);
  });
});
