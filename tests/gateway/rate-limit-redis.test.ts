import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { TestClient, testServer, type TestServer } from '../helpers/harness.js';

/*
 * Rate limits across processes: with REDIS_URL every gateway counts in the same Redis (a real redis-server
 * started here); without it each counts alone. A Redis that goes away fails open, with a warning logged.
 */

const REDIS_BIN = '/usr/bin/redis-server';
const missing = existsSync(REDIS_BIN) ? undefined : `skipped: ${REDIS_BIN} is missing (apt-get install redis-server)`;
if (missing) console.warn(`tests/gateway/rate-limit-redis.test.ts ${missing}`);

const LIMIT = 5;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(REDIS_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => s.end('PING\r\n'));
      s.once('data', (d) => resolve(String(d).startsWith('+PONG')));
      s.once('error', () => resolve(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}`, proc };
    if (Date.now() > deadline) throw new Error('redis-server did not start within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const stopRedis = (proc: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });

describe.skipIf(missing !== undefined)(`rate limits with and without Redis${missing ? ` [${missing}]` : ''}`, () => {
  let s: TestServer;
  let redis: { url: string; proc: ChildProcess };
  const warnings: string[] = [];
  const apps: FastifyInstance[] = [];
  /** A gateway as another process would build it, on the same database. */
  const gateway = async (redisUrl?: string) => {
    const logStream = new Writable({
      write(chunk, _enc, done) {
        const line = JSON.parse(String(chunk)) as { level: number; msg: string };
        if (line.level >= 40) warnings.push(line.msg);
        done();
      },
    });
    const app = await buildApp({ runtime: s.runtime, logger: { level: 'warn', stream: logStream }, rateLimitPerMinute: LIMIT, redisUrl });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    s = await testServer();
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await stopRedis(redis.proc);
    await s.close();
  });

  it(`with REDIS_URL two gateways share one count: ${LIMIT} calls across both, the next is refused by either`, async () => {
    const key = (await s.client.mint({ tier: 'reader' }, 'shared bucket')).apiKey;
    const [a, b] = [new TestClient(await gateway(redis.url), key), new TestClient(await gateway(redis.url), key)];
    const statuses = [];
    for (const c of [a, b, a, b, a]) statuses.push((await c.rpc('org.list')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await b.rpc('org.list');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await a.rpc('org.list')).status).toBe(429);
    // Another key has its own bucket.
    const other = (await s.client.mint({ tier: 'reader' }, 'other bucket')).apiKey;
    expect((await b.rpc('org.list', {}, { key: other })).status).toBe(200);
  });

  it(`without REDIS_URL each gateway counts alone: ${LIMIT} calls on each pass`, async () => {
    const key = (await s.client.mint({ tier: 'reader' }, 'own buckets')).apiKey;
    const [a, b] = [new TestClient(await gateway(), key), new TestClient(await gateway(), key)];
    for (let i = 0; i < LIMIT; i++) {
      expect((await a.rpc('org.list')).status).toBe(200);
      expect((await b.rpc('org.list')).status).toBe(200);
    }
    expect((await a.rpc('org.list')).status).toBe(429);
    expect((await b.rpc('org.list')).status).toBe(429);
  });

  it('a Redis that goes away fails open: calls are served at once, unthrottled, and a warning is logged', async () => {
    const key = (await s.client.mint({ tier: 'reader' }, 'redis down')).apiKey;
    const app = new TestClient(await gateway(redis.url), key);
    expect((await app.rpc('org.list')).status).toBe(200);
    await stopRedis(redis.proc);
    const started = performance.now();
    for (let i = 0; i < LIMIT * 2; i++) expect((await app.rpc('org.list')).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(warnings.some((w) => w.startsWith('rate limits: Redis unreachable'))).toBe(true);
  });
});
