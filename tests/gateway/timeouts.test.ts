import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { DEFAULT_TIMEOUTS } from '../../gateway/timeouts.js';
import { ENV_HELP, loadConfig } from '../../cli/config.js';
import { approvalReadContracts } from '../../protocol/reads/approval.js';
import type { Runtime } from '../../domain/deployed.js';
import { freshOrg, TestClient, testRuntime } from '../helpers/harness.js';

/*
 * Defect 5: 1,000 slow-body sockets stayed open past 75 s. Real sockets against a listening server with short
 * timeouts: a client that does not finish sending its request is answered 408 and closed within the request
 * timeout, while answers that take long (the approval.wait long-poll, the inbox's event stream) are not cut.
 */

const TIMEOUTS = { requestMs: 1000, headersMs: 500, idleMs: 5000, keepAliveMs: 500 };
const SLOW_SOCKETS = 1000;

let runtime: Runtime;
let app: FastifyInstance;
let port: number;
let admin: TestClient;
let approverKey: string;

beforeAll(async () => {
  runtime = await testRuntime();
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0, timeouts: TIMEOUTS, inbox: { heartbeatMs: 200 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
  const org = await freshOrg(runtime, 'slow');
  admin = new TestClient(app, org.adminKey);
  approverKey = (await admin.mint({ tier: 'approver' }, 'Dana Approver')).apiKey;
});
afterAll(async () => {
  await app.close();
  await runtime.close();
});

/** Open a socket, send `text`, then stall; resolves when the server closes it, with what it answered. */
function stall(text: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket: Socket = connect(port, '127.0.0.1', () => {
      if (text) socket.write(text);
    });
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => resolve({ ms: performance.now() - started, answer }));
  });
}

const slowBody = 'POST /api/v1/org.list HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"params":';

describe('a client that does not finish its request is cut off', () => {
  it(`${SLOW_SOCKETS} slow-body sockets are answered 408 and closed within the request timeout`, async () => {
    const started = performance.now();
    const closed = await Promise.all(Array.from({ length: SLOW_SOCKETS }, () => stall(slowBody)));
    const all = performance.now() - started;
    const times = closed.map((c) => c.ms).sort((a, b) => a - b);
    console.log(
      `${SLOW_SOCKETS} slow-body sockets, requestTimeout ${TIMEOUTS.requestMs} ms: first closed at ${times[0].toFixed(0)} ms, ` +
        `median ${times[times.length >> 1].toFixed(0)} ms, last ${times.at(-1)!.toFixed(0)} ms; all closed ${all.toFixed(0)} ms after the first connect`,
    );
    for (const c of closed) expect(c.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(times[0]).toBeGreaterThanOrEqual(TIMEOUTS.requestMs * 0.9);
    // The deadline is checked every quarter of it; the rest is this process accepting 1,000 connections while it
    // also runs the client, on two shared cores. Before the fix they stayed open for minutes.
    expect(all).toBeLessThan(TIMEOUTS.requestMs + 3000);
  });

  it('slow headers and a connection that sends nothing are closed within the headers timeout', async () => {
    const [headers, nothing] = await Promise.all([stall('GET /healthz HTTP/1.1\r\nHost: x\r\n'), stall('')]);
    for (const c of [headers, nothing]) {
      expect(c.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(c.ms).toBeLessThan(TIMEOUTS.headersMs * 1.25 + 1000);
    }
  });

  it('a kept-alive connection is closed once idle for the keep-alive timeout', async () => {
    const c = await stall('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(c.answer).toMatch(/^HTTP\/1\.1 200/);
    expect(c.ms).toBeLessThan(TIMEOUTS.keepAliveMs + 1500);
  });
});

describe('answers that take long are not cut', () => {
  it('GET /approval.wait long-polls past the request timeout and answers', async () => {
    const filed = await admin.ok('approval.request', {
      actionClass: 'board.publish_plan',
      payloadHash: 'a'.repeat(64),
      subject: { kind: 'board.plan', subjectId: 'plan_1', summary: 'Publish plan 1' },
    });
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/approval.wait?approvalId=${filed.approvalId}&timeoutMs=2500`, {
      headers: { authorization: `Bearer ${admin.defaultKey}` },
    });
    const ms = performance.now() - started;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ approvalId: filed.approvalId, timedOut: true });
    expect(ms).toBeGreaterThan(2400);
  });

  it('the inbox event stream stays open past the request timeout', async () => {
    const signIn = await app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:8080' },
      payload: { apiKey: approverKey },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    const received = await new Promise<{ text: string; open: boolean }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/approvals/api/stream', headers: { cookie } }, (res) => {
        let text = '';
        let ended = false;
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('close', () => (ended = true));
        setTimeout(() => {
          resolve({ text, open: !ended });
          req.destroy();
        }, TIMEOUTS.requestMs * 2.5);
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
    expect(received.open).toBe(true);
    // Heartbeats kept arriving after the request timeout had passed.
    expect(received.text.split('\n').filter((l) => l.startsWith(':')).length).toBeGreaterThan(5);
  });
});

describe('configuration', () => {
  it('REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, CONNECTION_TIMEOUT_MS, KEEPALIVE_TIMEOUT_MS and REDIS_URL are read and documented', () => {
    const config = loadConfig({
      REQUEST_TIMEOUT_MS: '1234',
      HEADERS_TIMEOUT_MS: '567',
      CONNECTION_TIMEOUT_MS: '89000',
      KEEPALIVE_TIMEOUT_MS: '0',
      REDIS_URL: 'redis://127.0.0.1:6390',
    });
    expect(config.timeouts).toEqual({ requestMs: 1234, headersMs: 567, idleMs: 89000, keepAliveMs: 0 });
    expect(config.redisUrl).toBe('redis://127.0.0.1:6390');
    expect(loadConfig({}).timeouts).toEqual(DEFAULT_TIMEOUTS);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/^REQUEST_TIMEOUT_MS: must be an integer >= 0, got "soon"/);
    for (const name of [
      'REQUEST_TIMEOUT_MS',
      'HEADERS_TIMEOUT_MS',
      'CONNECTION_TIMEOUT_MS',
      'KEEPALIVE_TIMEOUT_MS',
      'REDIS_URL',
      'PAIRING_PENDING_MAX',
      'PAIRING_ORG_PER_HOUR',
      'PAIRING_ADDRESS_PER_MINUTE',
      'PAIRING_ANSWER_FLOOR_MS',
      'TRUST_PROXY',
    ]) {
      expect(ENV_HELP).toContain(name);
    }
  });

  it('TRUST_PROXY takes addresses and CIDRs, never "true", and is off by default', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,::1' }).trustProxy).toEqual(['10.0.0.5', '10.1.0.0/16', '::1']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/^TRUST_PROXY: "true" is not an address or a CIDR/);
  });

  it('the default idle timeout outlasts the longest long-poll', () => {
    // approval.wait refuses to wait as long as the idle timeout: no long-poll is ever idle long enough to be cut.
    const wait = approvalReadContracts['approval.wait'].query;
    expect(wait.safeParse({ approvalId: 'apr_a', timeoutMs: String(DEFAULT_TIMEOUTS.idleMs) }).success).toBe(false);
    expect(wait.safeParse({ approvalId: 'apr_a', timeoutMs: '50000' }).success).toBe(true);
    // Nor as long as the MCP SDK client's default request timeout (60 s): approval_wait answers before it.
    expect(wait.safeParse({ approvalId: 'apr_a', timeoutMs: '60000' }).success).toBe(false);
  });
});
