import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import type { RequestLog } from '../../gateway/request-log.js';
import { TestClient, testServer, type TestServer } from '../helpers/harness.js';

/** Logs never print keys: neither the caller's bearer secret nor a secret minted in a result. */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

/** The requests exercise() sends (the mint, 9 more, 6 past the quota): one line each at info in `line` mode. */
const REQUESTS = 16;

async function exercise(logger: object, secrets: string[], requestLog: RequestLog = 'full') {
  const app = await buildApp({ runtime: s.runtime, logger, rateLimitPerMinute: 5, requestLog });
  try {
    const client = new TestClient(app, s.org.adminKey);
    const minted = await client.mint({ tier: 'agent' }, 'logged key');
    secrets.push(minted.apiKey);
    await client.rpc('org.list', {}, { key: minted.apiKey });
    await client.rpc('org.list', {}, { key: 'wops_notarealkeybutstillsecret00000000000' });
    await client.rpc('settings.renameApiKey', { keyId: s.org.adminKeyId, bogus: true });
    await client.raw('org.list', '{not json');
    await client.get('events', { limit: 9999 });
    await client.rpc('nosuch.method');
    // A blob's signed download URL: its signature is a credential until it expires.
    const signed = s.runtime.deps.blobs.signedPath(s.org.orgId, 'a'.repeat(64));
    secrets.push(new URL(signed.path, 'http://x').searchParams.get('sig')!);
    await app.inject({ method: 'GET', url: signed.path });
    // Search words and filters name people: they must stay erasable, so out of logs.
    await client.get('directory', { q: 'Zelda Quorrenby', limit: 5 });
    await app.inject({ method: 'GET', url: `/scim/v2/Users?filter=${encodeURIComponent('userName eq "zelda.quorrenby@example.com"')}` });
    secrets.push('Zelda', 'Quorrenby', 'quorrenby');
    for (let i = 0; i < 6; i++) await client.rpc('org.list'); // past the quota: 429s
  } finally {
    await app.close();
  }
}

describe('logs', () => {
  it('a pino logger at trace level sees requests but never a key', async () => {
    const out = capture();
    const secrets = [s.org.adminKey, 'wops_notarealkeybutstillsecret00000000000'];
    await exercise({ level: 'trace', stream: out.stream }, secrets);
    const text = out.text();
    expect(text).toContain('incoming request');
    expect(text).toContain('/api/v1/org.list');
    expect(text).toContain('sig=[Redacted]');
    expect(text).toContain('/api/v1/directory?q=[Redacted]&limit=5');
    expect(text).toContain('/scim/v2/Users?filter=[Redacted]');
    for (const secret of secrets) expect(text.includes(secret), `log contains ${secret.slice(0, 9)}…`).toBe(false);
  });

  it('even a logger whose serializers print request headers gets Authorization redacted', async () => {
    const out = capture();
    const secrets = [s.org.adminKey, 'wops_notarealkeybutstillsecret00000000000'];
    await exercise(
      {
        level: 'info',
        stream: out.stream,
        serializers: { req: (req: { method: string; url: string; headers: unknown }) => ({ method: req.method, url: req.url, headers: req.headers }) },
      },
      secrets,
    );
    const text = out.text();
    expect(text).toContain('"headers"');
    for (const secret of secrets) expect(text.includes(secret), `log contains ${secret.slice(0, 9)}…`).toBe(false);
  });

  it('by default (LOG_REQUESTS=line) each request is one line when answered, redacted like the full lines', async () => {
    const out = capture();
    const secrets = [s.org.adminKey, 'wops_notarealkeybutstillsecret00000000000'];
    await exercise({ level: 'info', stream: out.stream }, secrets, 'line');
    const lines = out
      .text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; url?: string; statusCode?: number; ms?: number; reqId?: string });
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(REQUESTS);
    expect(lines.some((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toBe(false);
    expect(requests.map((l) => l.statusCode)).toContain(429);
    for (const l of requests) expect(typeof l.ms === 'number' && typeof l.reqId === 'string').toBe(true);
    const text = out.text();
    expect(text).toContain('sig=[Redacted]');
    expect(text).toContain('/api/v1/directory?q=[Redacted]&limit=5');
    expect(text).toContain('/scim/v2/Users?filter=[Redacted]');
    for (const secret of secrets) expect(text.includes(secret), `log contains ${secret.slice(0, 9)}…`).toBe(false);
  });

  it('LOG_REQUESTS=off logs no request at info', async () => {
    const out = capture();
    await exercise({ level: 'info', stream: out.stream }, [], 'off');
    expect(out.text()).not.toMatch(/"msg":"(request|incoming request|request completed)"/);
  });
});
