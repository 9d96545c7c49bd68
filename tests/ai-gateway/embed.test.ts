import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAiConfig } from '../../ai-gateway/config.js';
import { embed } from '../../ai-gateway/embed.js';
import type { Runtime } from '../../domain/core/runtime.js';
import { freshOrg, testRuntime } from '../helpers/harness.js';
import { embedServer, type EmbedServer } from '../domain/knowledge/embed-server.js';

/* AI_EMBED_* and the gateway's embedding call: never an error to its caller, audited when it reached the endpoint. */

describe('AI_EMBED_* configuration', () => {
  const base = { AI_EMBED_MODEL: 'text-embedding-3-small', AI_EMBED_BASE_URL: 'http://127.0.0.1:9/v1', AI_EMBED_DIMENSIONS: '256' };

  it('unset: no embeddings; set: the endpoint, falling back to AI_BASE_URL and AI_API_KEY', () => {
    expect(loadAiConfig({}).embed).toBeUndefined();
    expect(loadAiConfig(base).embed).toEqual({
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: '',
      model: 'text-embedding-3-small',
      dimensions: 256,
      timeoutMs: 2000,
      minSimilarity: 0.3,
    });
    const shared = loadAiConfig({ AI_EMBED_MODEL: 'm', AI_EMBED_DIMENSIONS: '8', AI_BASE_URL: 'https://api.example.test/v1/', AI_API_KEY: 'k' }).embed;
    expect(shared).toMatchObject({ baseURL: 'https://api.example.test/v1', apiKey: 'k' });
  });

  it('refuses what it cannot use, naming the variable', () => {
    expect(() => loadAiConfig({ AI_EMBED_MODEL: 'm', AI_EMBED_DIMENSIONS: '8' })).toThrow(/^AI_EMBED_BASE_URL: an http\(s\) URL is required/);
    expect(() => loadAiConfig({ ...base, AI_EMBED_DIMENSIONS: '' })).toThrow(/^AI_EMBED_DIMENSIONS: required/);
    expect(() => loadAiConfig({ ...base, AI_EMBED_DIMENSIONS: '4096' })).toThrow(/^AI_EMBED_DIMENSIONS: at most 2000/);
    expect(() => loadAiConfig({ ...base, AI_EMBED_MIN_SIMILARITY: '1.5' })).toThrow(/^AI_EMBED_MIN_SIMILARITY: must be a number from 0 to 1/);
  });
});

describe('embed', () => {
  let es: EmbedServer;
  let runtime: Runtime;
  beforeAll(async () => {
    es = await embedServer();
    runtime = await testRuntime();
  });
  afterAll(async () => {
    await runtime.close();
    await es.close();
  });
  const call = (orgId: string) => ({ method: 'knowledge.search', orgId, requestId: 'req_1', actor: 'usr_1', keyId: 'key_1', texts: ['Brisbane office'] });

  it('not configured: a reason, no request, no audit', async () => {
    const { orgId } = await freshOrg(runtime);
    expect(await embed({ db: runtime.db, config: { ...runtime.deps.ai.config, embed: undefined } }, call(orgId))).toEqual({
      ok: false,
      reason: 'no embedding model is configured (AI_EMBED_MODEL)',
      retry: false,
    });
    expect(es.requests).toBe(0);
  });

  it('priced from the table and audited without text; vectors of the wrong length: a provider error', async () => {
    const { orgId } = await freshOrg(runtime);
    const env = { db: runtime.db, config: { ...runtime.deps.ai.config, embed: es.settings } };
    expect(await embed(env, call(orgId))).toMatchObject({ ok: true, dimensions: es.settings.dimensions });
    es.mode = 'short';
    try {
      expect(await embed(env, call(orgId))).toEqual({
        ok: false,
        reason: `the embedding endpoint did not answer 1 vector(s) of ${es.settings.dimensions} numbers (AI_EMBED_DIMENSIONS)`,
        retry: true,
      });
    } finally {
      es.mode = 'ok';
    }
    const rows = await runtime.db.query<{ verdict: string; record: string }>('SELECT verdict, record FROM ai_audit WHERE org_id = $1 ORDER BY seq', [orgId]);
    expect(rows.map((r) => r.verdict)).toEqual(['embedded', 'provider_error']);
    const record = JSON.parse(rows[0]!.record) as { method: string; priceSource: string; costMicroUsd: number; bodies: unknown };
    expect(record).toMatchObject({ method: 'knowledge.search', priceSource: 'table:text-embedding-3-small', bodies: null });
    expect(record.costMicroUsd).toBeGreaterThan(0);
    expect(JSON.parse(rows[1]!.record)).toMatchObject({ costMicroUsd: 0 });
    expect(rows.map((r) => r.record).join('\n')).not.toMatch(/brisbane/i);
  });
});
