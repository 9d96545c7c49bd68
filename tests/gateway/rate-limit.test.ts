import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { TestClient, testServer, type TestServer } from '../helpers/harness.js';
import { expectError } from '../helpers/frames.js';

/** Spec: Errors (RATE_LIMITED 429), Limits 1: throttled calls get a frame with a retry-in-seconds hint. */
let s: TestServer;
let app: FastifyInstance;
beforeAll(async () => {
  s = await testServer();
  app = await buildApp({ runtime: s.runtime, logger: false, rateLimitPerMinute: 3 });
});
afterAll(async () => {
  await app.close();
  await s.close();
});

describe('rate limiting', () => {
  it('the call past the quota is 429 RATE_LIMITED, a plain frame, with seconds to wait and Retry-After', async () => {
    const client = new TestClient(app, s.org.adminKey);
    for (let i = 0; i < 3; i++) expect((await client.rpc('org.list')).status).toBe(200);
    const res = await client.rpc('org.list');
    expect(res.status).toBe(429);
    const err = expectError(res, 'RATE_LIMITED');
    const m = /(\d+) seconds?/.exec(err.message);
    expect(m, err.message).not.toBeNull();
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60).toBe(true);
    expect(Number(m![1])).toBe(retryAfter);
    // Reads are throttled by the same bucket, with the same frame.
    const read = await client.get('events');
    expectError(read, 'RATE_LIMITED');
    expect(read.headers['retry-after']).toBeDefined();
  });

  it('buckets are per credential', async () => {
    const other = await s.client.mint({ tier: 'reader' }, 'own bucket');
    const client = new TestClient(app, other.apiKey);
    expect((await client.rpc('org.list')).status).toBe(200);
  });

  it('a throttled mutation appends nothing', async () => {
    const client = new TestClient(app, s.org.adminKey);
    const before = (await s.client.get('snapshot')).body.head.seq;
    expectError(await client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId, name: 'throttled' }), 'RATE_LIMITED');
    expect((await s.client.get('snapshot')).body.head.seq).toBe(before);
  });
});
